import sys

from .teacher.cli import main

sys.exit(main())
