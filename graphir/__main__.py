"""``python -m graphir``: the graphir command line (the same as the ``graphir`` script)."""
from __future__ import annotations

import sys

from graphir.cli import main

if __name__ == "__main__":
    sys.exit(main())
