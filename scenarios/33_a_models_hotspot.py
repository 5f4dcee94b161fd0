"""A whole model's hotspot

`model` is a small GPT as people write one: token and position embeddings, two blocks of attention and MLP
with their layer norms, a final norm, and an `lm_head` that scores each of 128 tokens against 8,192 words.
Predict: which layer does the most arithmetic and moves the most bytes, eager and compiled? What share of the
model's FLOPs is it? And what does Inductor fuse next to it?

**Why.** `model.lm_head`, eager and compiled, as the module table (`M`) shows. It is one matrix product,
128 × 128 by 128 × 8,192: 268 M of the model's 378 M FLOPs, 71 %, where each linear of a block does 4 to 17 M.
It moves most of the bytes too, 54 % eager: its 4 MiB weight in, 4 MiB of scores out. At about 32 FLOPs a
byte it is compute-bound, and the hotspot line under the summary (of kernel time, of bytes in the preview)
names it first unless a busy machine stalls the small kernels. Attention at 64 tokens is a small part.

Inductor cannot write into a library's product, so the `mm` stands alone with nothing fused after it. The
kernel before it does fuse: the last block's residual add and the final layer norm become one kernel
(`cpp_fused_add_native_layer_norm...` on the CPU), which writes the normalised activations once for the
product to read.

**Try next.** Set `VOCAB = 512`: which layer leads now, and does its kernel time follow?
"""

import torch
import torch.nn.functional as F
from torch import nn

VOCAB, WIDTH, HEADS, CONTEXT = 8192, 128, 4, 64


class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(WIDTH, 3 * WIDTH)
        self.proj = nn.Linear(WIDTH, WIDTH)

    def forward(self, x):
        batch, tokens, _ = x.shape
        q, k, v = self.qkv(x).split(WIDTH, dim=2)
        q, k, v = (t.view(batch, tokens, HEADS, -1).transpose(1, 2) for t in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.proj(y.transpose(1, 2).reshape(batch, tokens, WIDTH))


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.up = nn.Linear(WIDTH, 4 * WIDTH)
        self.down = nn.Linear(4 * WIDTH, WIDTH)

    def forward(self, x):
        return self.down(F.gelu(self.up(x)))


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm1 = nn.LayerNorm(WIDTH)
        self.attn = Attention()
        self.norm2 = nn.LayerNorm(WIDTH)
        self.mlp = MLP()

    def forward(self, x):
        x = x + self.attn(self.norm1(x))
        return x + self.mlp(self.norm2(x))


class TinyGPT(nn.Module):
    def __init__(self):
        super().__init__()
        self.tokens = nn.Embedding(VOCAB, WIDTH)
        self.positions = nn.Embedding(CONTEXT, WIDTH)
        self.blocks = nn.ModuleList([Block(), Block()])
        self.norm = nn.LayerNorm(WIDTH)
        self.lm_head = nn.Linear(WIDTH, VOCAB, bias=False)

    def forward(self, ids):
        x = self.tokens(ids) + self.positions(torch.arange(ids.shape[1], device=ids.device))
        for block in self.blocks:
            x = block(x)
        x = self.norm(x)
        return self.lm_head(x)


model = TinyGPT()
SIZE = 128
EXPECT = {
    "compiled": 18,
    "eager_hotspot_flops_model-lm_head": 1,
    "compiled_hotspot_flops_model-lm_head": 1,
    "eager_flops_percent_model-lm_head": 71,
    "compiled_flops_percent_model-lm_head": 71,
    "eager_bytes_percent_model-lm_head": 54,
    "compiled_bytes_percent_model-lm_head": 57,
    "fused_lines_63_79": 1,
    "cpu": {"eager": 26},
}


def fn(ids):
    return model(ids)


def inputs(size, device):
    return (torch.randint(0, VOCAB, (size // CONTEXT, CONTEXT), device=device),)
