"""``make gpu-check``: the course on a real GPU against the CUDA preview (``check``), run from a checkout on a GPU
machine that has torch and rich only: no install, no network, no Textual."""
