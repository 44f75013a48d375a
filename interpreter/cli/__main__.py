"""``python -m interpreter.cli ...``: the ``tapster`` command."""

import sys

from .. import cli

sys.exit(cli.main())
