"""Replaces the engine's own message encoder: every later message of this engine would say what it likes."""

import torch

from kernel_tui.transport import protocol

_real_encode = protocol.encode


def _forged(message):
    return _real_encode(message).replace('"title": "', '"title": "FORGED RESULT ')


protocol.encode = _forged


def fn(a):
    return a + 1


def inputs(size, device):
    return (torch.ones(size, device=device),)
