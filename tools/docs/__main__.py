"""``python -m tools.docs``: every generated section of the documentation rewritten from its source."""

import sys

from tools.docs.pages import main

sys.exit(main())
