"""Which ``nn.Module`` ran each operator: its path from the name ``fn`` knows the model by (``model.h.0.attn``).

Eagerly, global forward hooks (``torch.nn.modules.module.register_module_forward_pre_hook`` and its post twin,
public since torch 1.13) keep the stack of modules whose ``forward`` is running while the dispatch mode records
operators. A module is named as Dynamo names it in the ``nn_module_stack`` of the nodes it traces (``G['model']``
for a global of ``fn``'s file, ``L['model']`` for an argument, then the attribute path ``h.0.attn``): the root by
the variable its caller holds it in, each module below it by its attribute in its parent. So an eager kernel and
the compiled kernel it went into name one module alike, and a kernel is named by the deepest module that holds
all of its work (a kernel Inductor fused across two blocks belongs to their parent).

Backward, the autograd engine runs operators outside every ``forward``: each runs for an autograd node, and a node
is numbered (``Node._sequence_nr()``, the profiler's "Sequence number") by the forward thread's counter when the
forward operator it differentiates ran (``torch._C._autograd._get_sequence_nr()`` reads the counter). The stack
notes the counter each time a ``forward`` starts or ends, so a backward operator is named by the module that was
running when its node was made: ``gelu_backward`` by the ``GELU`` whose ``gelu`` it differentiates.
"""

from __future__ import annotations

import bisect
import re
import sys
from collections.abc import Iterable, Sequence
from types import FrameType
from typing import Any

import torch

# A global of another module's file, as Dynamo names it (``G['__import_scenario'].model``: the ``model`` of the
# scenario's file, reached from the training step's own): the name in that file.
_IMPORTED = re.compile(r"^G\[['\"]__import_[^'\"]+['\"]\]\.")
_SOURCE = re.compile(r"^(?:[GL]\[['\"](?P<name>[^'\"]+)['\"]\])")
_INDEX = re.compile(r"\[['\"]?([^\]'\"]+)['\"]?\]")
_GETATTR = re.compile(r"getattr\((?P<inner>.+), ['\"](?P<attr>[^'\"]+)['\"]\)$")
_TORCH_DIR = torch.__file__.rsplit("/", 1)[0]


def dynamo_path(fqn: str) -> str:
    """A path as Dynamo writes it in ``nn_module_stack`` (``G['model'].h[0]._modules['attn']``,
    ``getattr(L['self'].h, '0')``) as this module writes it: ``model.h.0.attn``."""
    text = fqn.strip()
    while (found := _GETATTR.match(text)) is not None:
        text = f"{found['inner']}.{found['attr']}"
    text = _IMPORTED.sub("", text)
    text = _SOURCE.sub(lambda found: found["name"], text)
    text = text.replace("._modules", "")
    text = _INDEX.sub(lambda found: f".{found[1]}", text)
    return ".".join(part for part in text.split(".") if part)


def node_module(meta: dict[str, Any]) -> str | None:
    """The innermost module of an FX node's ``nn_module_stack`` (Dynamo's record of the modules whose
    ``forward`` traced it), as a path; None for a node no module ran (``fn``'s own code). A node of a backward
    graph has AOTAutograd's copy of the stack of the forward node it differentiates (``fwd_nn_module_stack``, the
    one with its ``seq_nr``: ``copy_fwd_metadata_to_bw_nodes``)."""
    stack = meta.get("nn_module_stack") or meta.get("fwd_nn_module_stack")
    if not stack:
        return None
    innermost = list(stack.values())[-1]
    fqn = innermost[0] if isinstance(innermost, (tuple, list)) else innermost
    return dynamo_path(str(fqn)) or None


def fx_node_module(node: torch.fx.Node) -> str | None:
    """``node_module`` of an FX node. A node of a backward graph that AOTAutograd gave no forward stack, because it
    differentiates no one forward node (a sum of two gradients of one tensor, ``is_gradient_acc``) or was made
    after tracing (Inductor's pattern passes make an ``addmm`` of a product and a gradient sum, with no
    ``seq_nr``), belongs to the deepest module holding the nodes it reads that have one. Elsewhere a node with no
    module is ``fn``'s own code (a default loss, its gradient)."""
    found = node_module(node.meta)
    if found is not None or node.meta.get("partitioner_tag") != "is_backward":
        return found
    if not node.meta.get("is_gradient_acc") and node.meta.get("seq_nr") is not None:
        return None
    read = [module for source in node.all_input_nodes if (module := fx_node_module(source)) is not None]
    return common_module(read) if read else None


def common_module(paths: Iterable[str | None]) -> str | None:
    """The deepest module that holds every one of ``paths`` (``model.h`` for ``model.h.0`` and ``model.h.1.ln``);
    ``""`` where they share none, or where one of them is ``fn``'s own code (None); None for no path at all."""
    found = list(dict.fromkeys(paths))
    if not found:
        return None
    if any(path is None for path in found):
        return ""
    parts = [str(path).split(".") for path in found]
    shared: list[str] = []
    for level in zip(*parts):
        if len(set(level)) != 1:
            break
        shared.append(level[0])
    return ".".join(shared)


def launch_time_by_module(modules: Sequence[str | None], launch_us: Sequence[float]) -> tuple[tuple[str, float], ...]:
    """Per module of a row's launches (``modules``, one per launch in launch order), the profiled time of its own
    launches (``launch_us``): the ``lm_head``'s large product is not one launch's share of a row of nine linears.
    In order of first launch; launches of no module are left out. Empty where the two do not line up (a row of one
    launch, launches the profiler did not time alike). The module table scales these to the row's time."""
    if len(modules) != len(launch_us) or len(launch_us) < 2 or sum(launch_us) <= 0:
        return ()
    parts: dict[str, float] = {}
    for module, spent in zip(modules, launch_us):
        if module is not None:
            parts[module] = parts.get(module, 0.0) + spent
    return tuple(parts.items())


class ModuleStack:
    """While entered, the path of the module whose ``forward`` runs now (``current``): ``""`` outside them all;
    backward, that of the module whose operator the running autograd node differentiates."""

    def __init__(self) -> None:
        self._running: list[str] = []
        # From which sequence number on each module ran: (counter when its forward started or a forward below it
        # ended, its path), in the order they happened on the forward thread.
        self._numbered_from: list[int] = []
        self._numbered_path: list[str] = []
        self._names: dict[int, str] = {}
        self._held: list[torch.nn.Module] = []  # named modules stay alive, so their ids stay theirs
        self._handles: list[Any] = []

    def __enter__(self) -> ModuleStack:
        hooks = torch.nn.modules.module
        self._handles = [
            hooks.register_module_forward_pre_hook(self._entered),
            hooks.register_module_forward_hook(self._left, always_call=True),
        ]
        return self

    def __exit__(self, *exc: object) -> None:
        for handle in self._handles:
            handle.remove()
        self._handles.clear()
        self._running.clear()
        self._numbered_from.clear()
        self._numbered_path.clear()

    def current(self) -> str:
        node = torch._C._current_autograd_node()
        return self._running_now() if node is None else self.differentiated(node._sequence_nr())

    def differentiated(self, sequence_nr: int) -> str:
        """The module that ran the forward operator whose autograd node is numbered ``sequence_nr``: ``""`` for
        ``fn``'s own code (a loss computed outside the model), and for a node numbered by no forward operator
        (``AccumulateGrad``, numbered after every other)."""
        if sequence_nr >= torch._C._autograd._get_sequence_nr():
            return ""
        at = bisect.bisect_right(self._numbered_from, sequence_nr) - 1
        return self._numbered_path[at] if at >= 0 else ""

    def _running_now(self) -> str:
        return self._running[-1] if self._running else ""

    def _entered(self, module: torch.nn.Module, _args: Any) -> None:
        self._running.append(self._path(module))
        self._numbered()

    def _left(self, _module: torch.nn.Module, _args: Any, _output: Any) -> None:
        if self._running:
            self._running.pop()
        self._numbered()

    def _numbered(self) -> None:
        """Note that the nodes the forward thread numbers from now on are made while ``_running_now`` runs."""
        self._numbered_from.append(torch._C._autograd._get_sequence_nr())
        self._numbered_path.append(self._running_now())

    def _path(self, module: torch.nn.Module) -> str:
        known = self._names.get(id(module))
        if known is not None:
            return known
        parent = self._running_now()
        name = self._root_name(module) if not parent else None
        if name is None and parent:
            holder = next((held for held in self._held if self._names[id(held)] == parent), None)
            attribute = next((n for n, child in holder.named_children() if child is module), None) if holder else None
            name = f"{parent}.{attribute}" if attribute is not None else self._root_name(module)
        self._name(module, name or type(module).__name__)
        return self._names[id(module)]

    def _name(self, module: torch.nn.Module, path: str) -> None:
        """``module`` and every module below it, named by their attributes from ``path``."""
        for below, child in module.named_modules(prefix=path):
            if id(child) not in self._names:
                self._names[id(child)] = below
                self._held.append(child)

    @staticmethod
    def _root_name(module: torch.nn.Module) -> str | None:
        """The variable the code calling ``module`` holds it in, as Dynamo's ``L[...]``/``G[...]`` names it: the
        first frame outside torch's own files, its locals first."""
        frame: FrameType | None = sys._getframe(1)
        while frame is not None and (frame.f_code.co_filename.startswith(_TORCH_DIR) or frame.f_code.co_name in _OWN):
            frame = frame.f_back
        if frame is None:
            return None
        for scope in (frame.f_locals, frame.f_globals):
            name = next((name for name, value in scope.items() if value is module), None)
            if name is not None:
                return name
        return None


_OWN = frozenset({"_entered", "_path", "_root_name"})
