"""``python -m tools.gpu_check`` (``make gpu-check``): the course on a real GPU, against the CUDA preview."""

import sys

from tools.gpu_check.check import main

sys.exit(main())
