"""The frozen app's entry point: the same `main` as the installed `service-console` command."""

import sys

from app.__main__ import main

if __name__ == "__main__":
    sys.exit(main())
