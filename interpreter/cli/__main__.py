"""``python -m interpreter.cli``: the same as the ``tapster`` command."""

import sys

from . import main

sys.exit(main())
