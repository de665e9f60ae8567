"""The sandbox's state in SQLite, one module per aggregate, all writes through one writer thread."""
