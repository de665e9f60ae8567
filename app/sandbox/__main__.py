import sys

from app.sandbox.cli import main

sys.exit(main())
