"""Tooling that works on a checkout and is not the product: the documentation's generated sections (``docs/``) and
the course's check on a real GPU (``gpu_check/``). A wheel ships none of it; each imports ``kernel_tui``, which never
imports it back."""
