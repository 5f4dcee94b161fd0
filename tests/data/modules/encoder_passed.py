"""A transformer encoder layer built in inputs() and passed to fn (a test's model; not a lesson).

In training mode with no dropout, so that its attention and feed-forward run as their own operators: in eval mode
under no_grad, PyTorch's fast path runs the whole layer as one operator, ``_transformer_encoder_layer_fwd``, which
Inductor leaves as it is.
"""

import torch
from torch import nn

WIDTH = 64


def fn(x, layer):
    return layer(x)


def inputs(size, device):
    layer = nn.TransformerEncoderLayer(WIDTH, nhead=4, dim_feedforward=128, dropout=0.0, batch_first=True)
    return torch.randn(size // (16 * WIDTH), 16, WIDTH, device=device), layer
