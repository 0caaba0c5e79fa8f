"""``python -m relay``: run a stand-alone relay."""

import sys

from relay.cli import main

sys.exit(main())
