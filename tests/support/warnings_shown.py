"""Warnings the tests list in their output, declared apart from the test files that raise them: pytest-xdist's
controller rebuilds a worker's warning by importing its class's module by name, and a test file in a tier folder is
not on the controller's path (an undeclared one took the worker down, ``No module named 'test_cuda_preview'``)."""

from __future__ import annotations


class PreviewUndecided(UserWarning):
    """A lesson's CUDA claim that the preview cannot check (listed in the test output)."""
