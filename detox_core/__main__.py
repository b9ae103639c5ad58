"""``python -m detox_core``: see :mod:`detox_core.cli`."""

import sys

from detox_core.cli import main

sys.exit(main())
