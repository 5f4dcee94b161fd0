"""Small models that return what models return besides a tensor: a dict with a loss, a dataclass."""

from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn


class ScoredHead(nn.Module):
    """Returns {"logits": ..., "loss": ...}: the loss is its own (a cross-entropy against the first class)."""

    def __init__(self, width=64, classes=10):
        super().__init__()
        self.head = nn.Linear(width, classes)

    def forward(self, x):
        logits = self.head(x)
        target = torch.zeros(x.shape[0], dtype=torch.long, device=x.device)
        return {"logits": logits, "loss": F.cross_entropy(logits, target)}


@dataclass
class Encoded:
    hidden: torch.Tensor
    pooled: torch.Tensor
    attentions: tuple | None = None


class Encoder(nn.Module):
    """Returns an Encoded dataclass with no loss and a None field, as many encoders do."""

    def __init__(self, width=64):
        super().__init__()
        self.layer = nn.Linear(width, width)

    def forward(self, x):
        hidden = torch.tanh(self.layer(x))
        return Encoded(hidden, hidden.mean(dim=1))
