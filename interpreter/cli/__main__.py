"""``python -m interpreter.cli ...``: the ``tapster`` command (the package's ``__init__``, run
first, has registered every command group on the click group)."""

import sys

from .common import main

sys.exit(main())
