"""Compiled code under CUDA graphs (``mode="reduce-overhead"``): where its kernels' bytes come from.

A CUDA graph replays recorded launches: the generated wrapper, where ``generated_code`` records each
kernel's buffers, runs only while the graph is recorded. The kernels themselves are the ones Inductor
generates without CUDA graphs (graphs change how kernels are launched, not which), so their bytes are read
from a twin compiled with graphs off. The replay adds one launch of its own: copying the inputs into the
graph's static buffers (``_foreach_copy_``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

from kernel_tui.engine.counting.traffic import Traffic, tensors_in, unique_bytes

FOREACH_COPY = "aten::_foreach_copy_"


def twin_compile_options(compile_options: dict[str, Any]) -> dict[str, Any] | None:
    """``torch.compile`` options that generate the same kernels with CUDA graphs off, or None when
    ``compile_options`` do not use CUDA graphs."""
    options = dict(compile_options)
    inductor = dict(options.pop("options", None) or {})
    mode = options.pop("mode", None)
    if mode is not None:
        from torch._inductor import list_mode_options

        inductor = {**list_mode_options(mode), **inductor}
    if not inductor.get("triton.cudagraphs"):
        return None
    inductor["triton.cudagraphs"] = False
    return {**options, "options": inductor}


def traffic_twin(
    compile_with: Callable[[dict[str, Any]], Callable[..., Any]],
    compile_options: dict[str, Any],
    device: str,
    args: tuple[Any, ...],
) -> Callable[..., Any] | None:
    """The warm twin of what ``compile_with(options)`` compiles, compiled with ``compile_options`` but CUDA graphs
    off, or None where no graphs are used. Warmed under ``no_grad``, as the compiled call is; a training step
    turns grad on itself."""
    options = twin_compile_options(compile_options) if device == "cuda" else None
    if options is None:
        return None
    twin = compile_with(options)
    with torch.no_grad():
        twin(*args)
    return twin


def graph_input_copies(args: tuple[Any, ...]) -> list[Traffic]:
    """Each replay first copies the inputs into the graph's buffers: one launch reading and writing each
    input once."""
    moved = unique_bytes(tensors_in(args))
    return [Traffic(FOREACH_COPY, moved, moved, (FOREACH_COPY,))]
