"""``python -m schedbench.cli``: the ``schedbench`` command."""

import sys

from schedbench.cli import main

sys.exit(main())
