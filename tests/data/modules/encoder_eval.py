"""An eval-mode transformer encoder layer at module level (a test's model; not a lesson).

Under no_grad, PyTorch's fast path runs it as one operator, ``_transformer_encoder_layer_fwd``: eagerly, and compiled
too, since Inductor leaves that operator as it is. ``FAST_PATH = False`` in a copy of this file switches it off.
"""

import torch
from torch import nn

WIDTH, HEADS, TOKENS = 64, 4, 64
layer = nn.TransformerEncoderLayer(WIDTH, HEADS, dim_feedforward=128, batch_first=True).eval()


def fn(x):
    return layer(x)


def inputs(size, device):
    return (torch.randn(size // (TOKENS * WIDTH), TOKENS, WIDTH, device=device),)
