"""Choosing the device a run measures on, from the command line's ``--device``: before anything else, so that an
engine that cannot measure there refuses in one line (``server``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch

if TYPE_CHECKING:
    from kernel_tui.transport.protocol import Device


def choose_device(requested: str) -> Device:
    """``auto`` is CUDA when available, else CPU; asking for CUDA without one is an error."""
    if requested == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if requested == "cuda-preview":
        from kernel_tui.engine.preview.preview_support import check_preview

        check_preview()  # a RuntimeError that names what this torch lacks
        return "cuda-preview"
    if requested == "cuda" and not torch.cuda.is_available():
        raise RuntimeError("--device cuda was asked for, but torch sees no CUDA device")
    if requested == "cuda":
        return "cuda"
    if requested == "cpu":
        return "cpu"
    raise RuntimeError(f"unknown device {requested!r}: use auto, cpu or cuda")
