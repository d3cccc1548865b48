"""`python -m service.cli`: the `cardtable` command (service/cli/__init__.py)."""

import sys

from service.cli import main

sys.exit(main())
