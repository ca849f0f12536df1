import sys

from loupe_engine.cli import main

sys.exit(main())
