"""Bytes moved, counted from the real tensors: per eager operator, and the ideal for a whole ``fn``.

The rules a learner counts by: a view moves nothing; an input is read once over its non-broadcast
dimensions (a stride of 0 is the same element again); an in-place op reads and writes its target; an
``out=`` argument is written, not read; ``copy_``, ``fill_`` and ``zero_`` overwrite their target without
reading it. The same tensor passed twice to one op is read once.

Tensors are told apart by address, or, for the fake tensors of the CUDA preview (which have no memory), by
storage and offset.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

import torch
from torch._subclasses.fake_tensor import FakeTensor
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_leaves

from kernel_tui.engine.counting.module_paths import ModuleStack
from kernel_tui.engine.counting.op_kinds import FUSED_LAYERS, moves_data, only_composition, op_name
from kernel_tui.engine.counting.source_lines import LineFinder

if TYPE_CHECKING:
    from kernel_tui.model.report.launch import KernelLaunch


def tensor_bytes(tensor: torch.Tensor) -> int:
    """Bytes a kernel must touch for ``tensor``: its elements over the dimensions that are not broadcast."""
    count = 1
    for size, stride in zip(tensor.shape, tensor.stride()):
        if stride != 0:
            count *= size
    return count * tensor.element_size()


def _key(tensor: torch.Tensor) -> tuple[Any, tuple[int, ...], tuple[int, ...], Any]:
    if isinstance(tensor, FakeTensor):
        address: Any = (tensor.untyped_storage()._cdata, tensor.storage_offset())
    else:
        address = tensor.data_ptr()
    return (address, tuple(tensor.shape), tuple(tensor.stride()), tensor.dtype)


def unique_bytes(tensors: Iterable[torch.Tensor], charged: dict[int, int] | None = None) -> int:
    """Bytes of ``tensors``, each counted once: its ``tensor_bytes``, or what ``charged`` (by ``id``) says a
    kernel moves of it (a gather's rows); a tensor reached both ways counts the larger."""
    seen: dict[Any, int] = {}
    for tensor in tensors:
        size = tensor_bytes(tensor) if charged is None else charged.get(id(tensor), tensor_bytes(tensor))
        key = _key(tensor)
        seen[key] = max(seen.get(key, 0), size)
    return sum(seen.values())


def largest_elements(tensors: Iterable[Any]) -> int | None:
    """Elements of the largest tensor among ``tensors``: the array a kernel's threads share out."""
    return max((t.numel() for t in tensors if isinstance(t, torch.Tensor)), default=None)


def tensors_in(value: Any) -> list[torch.Tensor]:
    return [leaf for leaf in tree_leaves(value) if isinstance(leaf, torch.Tensor)]


@dataclass(frozen=True)
class Traffic:
    """The bytes one unit of work moved: an eager operator, a generated kernel, a library call or a copy.

    The one record of bytes in the engine: counted here for eager operators, by ``generated_code`` for compiled
    kernels, joined to the profiler's launches by ``profiling`` and turned into launches by the preview.
    """

    name: str
    """What it is joined to a profiler launch by: the operator (``aten::add``, ``aten::mm`` for a library
    call) or the generated kernel (``cpp_fused_add_relu_0``)."""
    bytes_read: int
    bytes_written: int
    aten_ops: tuple[str, ...] = ()
    """The ATen operators whose work it is: an eager operator's own name; what Inductor recorded for a kernel."""
    lines: tuple[int, ...] = ()
    """Lines of the scenario file it came from (``source_lines``): the calling line, a helper's line and the line
    that called the helper, or backward, the forward lines it differentiates."""
    unplaced: str | None = None
    """Why ``lines`` is empty, when it is and the reason is known."""
    code: str | None = None
    """A generated kernel's source (C++ or Triton)."""
    call: str | None = None
    """What a launch that is not a generated kernel is called where it runs: ``extern_kernels.mm`` as the
    wrapper spells it, or the profiler's name of a copy between host and device (``Memcpy DtoH (…)``)."""
    kind: str = "kernel"
    """``kernel``, ``op`` (an eager operator, in a preview) or ``memcpy`` (a copy between host and device)."""
    elements: int | None = None
    """Elements of the largest tensor it received: what elements per thread are counted over."""
    launch: KernelLaunch | None = None
    """How it would be launched, where the code alone says (a Triton kernel in the CUDA preview)."""
    basis: str | None = None
    """A preview's launch whose count follows ATen's CUDA source rather than one launch per operator: which
    source, and that it is a prediction (``aten_cuda``)."""
    layer_call: int | None = None
    """Compiled: which call of a fused layer, counted from 1 in the call of ``fn``, this record is a pass of."""
    module: str | None = None
    """Eager: the path of the ``nn.Module`` whose ``forward`` ran it (``module_paths``), ``""`` for ``fn``'s own
    code; backward, the module whose operator it differentiates; None where unknown (a record that is not an eager
    operator)."""
    stack: tuple[str, ...] = ()
    """Eager: the user's frames that ran it, ``file:line``, nearest first (``LineFinder.stack``)."""
    flops: int | None = None
    """Compiled: a library call's FLOPs counted from its own arguments (``flops.library_flops``); None for
    everything else, whose FLOPs are those of the eager operators it replaced."""
    own_flops: int | None = None
    """Eager: the operator's FLOPs as ``flops.FlopCountingMode`` counted them while it was recorded, so that a row of
    several modules' calls knows each module's (``Kernel.module_work``); None where not counted."""

    layout: str | None = None
    """Compiled: a kernel that only copies tensors into another layout, in words (``Kernel.layout``)."""

    @property
    def bytes_total(self) -> int:
        return self.bytes_read + self.bytes_written


class EagerTrafficMode(TorchDispatchMode):
    """Records each dispatched operator's reads and writes, in order, skipping views and allocations."""

    def __init__(self, source_file: str | None = None) -> None:
        super().__init__()  # type: ignore[no-untyped-call]  # torch leaves TorchDispatchMode.__init__ unannotated
        self.ops: list[Traffic] = []
        """The records, in dispatch order."""
        self._lines = LineFinder(source_file)
        # Only a pass that names lines names modules: a fused layer's passes are recorded without either.
        self._modules = ModuleStack() if source_file is not None else None

    def __enter__(self) -> EagerTrafficMode:
        self._lines.__enter__()
        if self._modules is not None:
            self._modules.__enter__()
        return cast("EagerTrafficMode", super().__enter__())  # type: ignore[no-untyped-call]  # torch leaves TorchDispatchMode.__enter__ unannotated; it returns self

    def __exit__(self, *exc: Any) -> None:
        super().__exit__(*exc)  # type: ignore[no-untyped-call]  # torch leaves TorchDispatchMode.__exit__ unannotated
        self._lines.__exit__(*exc)
        if self._modules is not None:
            self._modules.__exit__(*exc)

    def __torch_dispatch__(
        self, func: Any, types: Sequence[type], args: tuple[Any, ...] = (), kwargs: dict[str, Any] | None = None
    ) -> Any:
        kwargs = kwargs or {}
        name = op_name(func)
        if (inside := seen_inside(func, name, args)) is not None:
            with self:
                return inside(*args, **kwargs)
        out = func(*args, **kwargs)
        if moves_data(name):
            read, written = op_tensors(name, func._schema, args, kwargs, out)
            self.ops.append(self.record(name, read, written))
        return out

    def record(self, name: str, read: list[torch.Tensor], written: list[torch.Tensor], **extra: Any) -> Traffic:
        """The record of the operator ``name`` being dispatched, which reads ``read`` and writes ``written``: its
        bytes, lines, elements, module and stack (``extra``: the fields a subclass adds)."""
        lines, unplaced = self.source_lines(read)
        return Traffic(
            name,
            unique_bytes(read),
            unique_bytes(written),
            (name,),
            lines,
            unplaced,
            elements=largest_elements(read + written),
            module=self.module_now(),
            stack=self._lines.stack(),
            **extra,
        )

    @property
    def records(self) -> list[Traffic]:
        """The list this mode appends each operator's record to, in dispatch order."""
        return self.ops

    def module_now(self) -> str | None:
        """The module whose ``forward`` runs the operator being dispatched, or backward, whose operator it
        differentiates; None where not tracked."""
        return None if self._modules is None else self._modules.current()

    def source_lines(self, read: list[torch.Tensor]) -> tuple[tuple[int, ...], str | None]:
        """The lines of the scenario that ran the operator being dispatched (which reads ``read``); if none,
        why."""
        return self._lines.lines(read, _key)


def seen_inside(func: Any, name: str, args: tuple[Any, ...]) -> Any:
    """How a dispatch mode runs an operator to see the operators inside it, or None to see it whole.

    A fused layer's C++ kernel calls ATen operators through the dispatcher, each a pass of its own: run on real
    tensors below the mode, with the mode still on, its projections, attention and norms reach the mode one by
    one. Called from C++, an operator that is only a composition of others (``contiguous``) reaches the mode
    whole, as it never does from Python; its composition runs instead. The caller runs what this returns with
    its mode pushed again."""
    if name in FUSED_LAYERS:
        backend = _backend_keys(args)
        return None if backend is None else functools.partial(func.redispatch, backend)
    if only_composition(func.name()) and not any(t.is_nested for t in tensors_in(args)):
        return func.decompose
    return None


_BACKENDS = {"cpu": torch._C.DispatchKey.CPU, "cuda": torch._C.DispatchKey.CUDA}


def _backend_keys(args: tuple[Any, ...]) -> torch._C.DispatchKeySet | None:
    """The device kernel's key for real dense tensors; None for a subclass (the preview's fakes run no kernel)."""
    tensors = tensors_in(args)
    if not tensors or any(t.is_nested or torch._C._dispatch_keys(t).has(torch._C.DispatchKey.Python) for t in tensors):
        return None  # a nested tensor's kernel is another one
    key = _BACKENDS.get(tensors[0].device.type)
    return None if key is None else torch._C.DispatchKeySet(key)


OVERWRITES = frozenset({"aten::copy_", "aten::fill_", "aten::zero_"})
"""In-place operators that replace their target's contents without reading them."""


def op_tensors(
    name: str, schema: Any, args: tuple[Any, ...], kwargs: dict[str, Any], out: Any
) -> tuple[list[torch.Tensor], list[torch.Tensor]]:
    """The tensors one dispatched operator reads, and those it writes."""
    read: list[torch.Tensor] = []
    written: list[torch.Tensor] = []
    bound = dict(zip((a.name for a in schema.arguments), args))
    bound.update(kwargs)
    for argument in schema.arguments:
        value = bound.get(argument.name)
        tensors = tensors_in(value)
        if not tensors:
            continue
        alias = argument.alias_info
        if alias is not None and alias.is_write:
            written.extend(tensors)
            if not argument.kwarg_only and name not in OVERWRITES:
                read.extend(tensors)  # add_ reads its target; out= is only written
        else:
            read.extend(tensors)
    if name in GATHERS:
        read = _rows_gathered(name, bound, read)
    written_keys = {_key(t) for t in written}
    read_keys = {_key(t) for t in read}
    for result in tensors_in(out):
        key = _key(result)
        if key not in written_keys and key not in read_keys:
            written.append(result)
    return read, written


GATHERS: dict[str, tuple[str, str, str | int | None]] = {
    "aten::embedding": ("weight", "indices", 0),
    "aten::index_select": ("self", "index", "dim"),
    "aten::nll_loss_forward": ("self", "target", None),
}
"""Operators that read the rows (or elements) their indices pick, not the whole table: the table, the indices,
and the dimension picked along (None: ``nll_loss``'s class dimension, one element per target)."""


def _rows_gathered(name: str, bound: dict[str, Any], read: list[torch.Tensor]) -> list[torch.Tensor]:
    """``read`` with a gather's table replaced by the part of it its indices pick: as many rows as indices, at
    most the whole table (a row picked twice is counted twice, up to the table's size)."""
    table_arg, index_arg, dim_arg = GATHERS[name]
    table, index = bound.get(table_arg), bound.get(index_arg)
    if not isinstance(table, torch.Tensor) or not isinstance(index, torch.Tensor) or table.dim() == 0:
        return read
    if dim_arg is None:  # nll_loss: (N, C) or (C,) scores, one class picked per target
        dim, picked = (1 if table.dim() == 2 else 0), 1
    else:
        dim = int(bound.get(dim_arg, 0) if isinstance(dim_arg, str) else dim_arg) % table.dim()
        picked = min(max(index.numel(), 1), table.shape[dim])
    rows = table.narrow(dim, 0, picked)
    return [rows if item is table else item for item in read]


def host_transfer(name: str, read: list[torch.Tensor], written: list[torch.Tensor]) -> str | None:
    """``DtoH`` or ``HtoD`` when an operator moves data between the host and a device (what a GPU profile
    shows as a memcpy), else None. ``.item()`` returns a Python number: its destination is the host."""
    sources = {t.device.type for t in read}
    targets = {"cpu"} if name == "aten::_local_scalar_dense" else {t.device.type for t in written}
    if targets == {"cpu"} and sources and "cpu" not in sources:
        return "DtoH"
    if sources == {"cpu"} and targets and "cpu" not in targets:
        return "HtoD"
    return None


def eager_traffic(fn: Any, args: tuple[Any, ...], source_file: str | None = None) -> list[Traffic]:
    """Run ``fn`` once (untimed, unprofiled) and return its data-moving operators in order, each with the
    lines of ``source_file`` it came from."""
    mode = EagerTrafficMode(source_file)
    with torch.no_grad(), mode:
        fn(*args)
    return mode.ops


def ideal_bytes(args: tuple[Any, ...], output: Any) -> int:
    """Each input read once and each output written once: what a perfect single kernel would move. A model's
    parameters and buffers are among its inputs (``LoadedScenario.weights``): every layer must read them."""
    return unique_bytes(tensors_in(args)) + unique_bytes(tensors_in(output))


def array_bytes(args: tuple[Any, ...], weights: Sequence[torch.Tensor] = ()) -> int:
    """The unit of an array-sized transfer: the bytes of the largest input. Token ids fed to a model (integer
    inputs only, and ``weights``) are no unit of what its kernels move, so there is none: 0."""
    tensors = tensors_in(args)
    if weights and not any(t.is_floating_point() or t.is_complex() for t in tensors):
        return 0
    return max((tensor_bytes(t) for t in tensors), default=0)
