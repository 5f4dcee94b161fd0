"""What Inductor's scheduler decided for a graph it has compiled before, kept beside Inductor's own cache.

To read why kernels stayed apart, the engine compiles ``fn`` once more with the scheduler watched, and that
compile bypasses Inductor's graph cache (``fusion_watch``): every run paid a whole Inductor compile again, even
where its measured compile came from the cache in a fraction of a second. For a lesson that is half a second;
for a user's ``nn.Module`` it is as long as the model's first compile, on every run.

What the watch records is decided by what Inductor compiles from: the graph Dynamo hands it (its code, every
node's value and the line that wrote it), the inputs' shapes, strides and dtypes, the scenario's compile options,
Inductor's and AOTAutograd's configs, torch's version, the CPU's vector ISA and thread count, and the watch's
own code. A watch is kept under a digest of those, in Inductor's cache folder (clearing that cache clears these
too). Where one of them has no text that is the same in every process (an object printed with its address), no
key is made: the graph is compiled and watched as before, and nothing is kept. Inductor's config holds a path
made from the working folder (``xpu.cutlass_dir``), so an engine started in another folder compiles once more.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import pickle
from pathlib import Path
from typing import Any

import torch

from kernel_tui.engine.compiler import fusion_watch
from kernel_tui.engine.compiler.fusion_watch import GraphFusion
from kernel_tui.model.storage.atomic_write import write_atomic

FOLDER = "kernel-tui-boundaries"


class _Unstable(Exception):
    """A value whose text would differ from one process to the next."""


def folder() -> Path:
    from torch._inductor.runtime.cache_dir_utils import cache_dir

    return Path(cache_dir()) / FOLDER


def graph_key(gm: torch.fx.GraphModule, example_inputs: list[Any], compile_options: dict[str, Any]) -> str | None:
    """The digest of everything the watch of this graph's compile depends on; None where that cannot be told."""
    try:
        parts = [
            _watch_code(),
            torch.__version__,
            torch._inductor.config.get_hash().hex(),
            torch._functorch.config.get_hash().hex(),
            _describe(sorted(compile_options.items())),
            f"{torch.get_num_threads()} threads, {torch.backends.cpu.get_cpu_capability()}",
            gm.code,
            *(_node(node) for node in gm.graph.nodes),
            *(_describe(value) for value in example_inputs),
            *(f"{name} {_describe(value)}" for name, value in gm.named_parameters()),
            *(f"{name} {_describe(value)}" for name, value in gm.named_buffers()),
        ]
    except Exception:  # noqa: BLE001 - a graph that cannot be described is watched, not kept
        return None
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


@functools.cache
def _watch_code() -> str:
    """The watch's own source: what it records changes with it. Read once per engine, not per graph."""
    return Path(fusion_watch.__file__).read_text(encoding="utf-8")


def _node(node: torch.fx.Node) -> str:
    # The target is in gm.code by name; its repr can carry an address.
    return f"{node.op} {node.name} {_describe(node.meta.get('val'))} {node.meta.get('stack_trace')}"


def _describe(value: Any) -> str:
    if isinstance(value, torch.Tensor):
        shape, stride = tuple(map(str, value.shape)), tuple(map(str, value.stride()))
        return f"tensor{shape} stride{stride} {value.dtype} {value.device} grad={value.requires_grad}"
    if isinstance(value, (list, tuple)):
        return "(" + ", ".join(map(_describe, value)) + ")"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_describe(name)}: {_describe(item)}" for name, item in sorted(value.items())) + "}"
    if value is None or isinstance(value, (bool, int, float, str)):
        return repr(value)
    if isinstance(value, (torch.SymInt, torch.SymFloat, torch.SymBool, torch.dtype, torch.device)):
        return str(value)
    raise _Unstable(type(value).__name__)


def kept(key: str) -> list[GraphFusion] | None:
    """The graphs watched under this key by an earlier compile; None if none were kept or the file is unreadable."""
    try:
        graphs = pickle.loads((folder() / f"{key}.pickle").read_bytes())
    except Exception:  # noqa: BLE001 - a missing, half-written or foreign file is a graph to compile
        return None
    if not isinstance(graphs, list) or not all(isinstance(graph, GraphFusion) for graph in graphs):
        return None
    return graphs


def keep(key: str, graphs: list[GraphFusion]) -> None:
    """Keep what one compile's watch saw; a watch that saw nothing, or failed in a graph, is not kept."""
    if not graphs or not all(graph.nodes for graph in graphs):
        return
    try:
        data = pickle.dumps(graphs)
    except Exception:  # noqa: BLE001 - a fact that does not pickle is compiled next time, nothing more
        return
    # Engines on other workers may read the same key at the same moment. An unwritable or full cache costs a
    # compile next time, nothing more.
    with contextlib.suppress(OSError):
        write_atomic(folder() / f"{key}.pickle", data)
