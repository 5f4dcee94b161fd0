"""Bytes per compiled kernel, from what Inductor generated.

Inductor writes a Python wrapper module per graph whose ``call()`` invokes each kernel on named buffers.
Its kernels' parameters follow one naming rule in C++ and Triton alike: ``out_ptr`` is written, ``in_out_ptr``
is written and, where the code loads through it, read; every other tensor parameter is read (``in_ptr``, and
the ``arg_A``, ``arg_B`` of Triton template kernels). We install a recording stand-in for every kernel (and for
the library calls, ``extern_kernels.mm(..., out=buf)``) in the loaded wrapper modules, call the compiled
function once, and read the tensors each kernel received. The stand-ins are removed afterwards.

What a wrapper does with tensors outside its kernels (a fallback written ``torch.ops.aten.sort.stable(...)``,
a device copy ``buf1.copy_(buf0)``), and what runs eagerly between graphs after a graph break (``.item()``),
reaches the dispatcher: a dispatch mode that ``torch.compile`` leaves active while compiled code runs records
each data-moving operator that no stand-in is already counting.
"""

from __future__ import annotations

import contextlib
import functools
import re
import string
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from typing import Any

import torch
from torch._subclasses.fake_tensor import FakeTensor
from torch.utils._python_dispatch import TorchDispatchMode

from kernel_tui.engine.compiler.gathers import POINTER, SIGNATURE, Gather, gathered_pointers
from kernel_tui.engine.counting.flops import library_flops
from kernel_tui.engine.counting.launch_info import TritonLaunchPlan
from kernel_tui.engine.counting.op_kinds import FUSED_LAYERS, inductor_op_name, moves_data, op_name
from kernel_tui.engine.counting.traffic import (
    EagerTrafficMode,
    Traffic,
    host_transfer,
    largest_elements,
    op_tensors,
    tensor_bytes,
    tensors_in,
    unique_bytes,
)
from kernel_tui.model.names.names import is_wrapper_kernel, names_no_operator


def wrapper_modules() -> list[Any]:
    """The Inductor wrapper modules loaded in this process."""
    try:
        from torch._inductor.codecache import PyCodeCache
    except ImportError:
        return []
    modules = list(getattr(PyCodeCache, "modules", []))
    return [m for m in modules if hasattr(m, "call") and getattr(m, "__file__", None)]


@functools.lru_cache(maxsize=256)
def _source(path: str) -> str:
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except OSError:
        return ""


def kernel_params(source: str, name: str) -> list[str]:
    """Parameter names of kernel ``name`` as defined in a wrapper module's source."""
    start = source.find(f"{name} = async_compile.")
    if start < 0:
        return []
    end = source.find("'''", source.find("'''", start) + 3)
    body = source[start : end if end > 0 else len(source)]
    match = re.search(rf"def {re.escape(name)}\((.*?)\):", body, re.S) or re.search(
        r"void\s+kernel\((.*?)\)", body, re.S
    )
    if not match:
        return []
    params = []
    for piece in match.group(1).split(","):
        piece = piece.split(":")[0].strip()
        if piece:
            params.append(re.split(r"[\s*&]+", piece)[-1])
    return params


def loads_pointer(code: str | None, param: str) -> bool:
    """Whether kernel code reads through ``param``: an ``in_out_ptr`` Inductor reuses for an output is
    often only stored to. Without the code, assume it is read and written, as Inductor's own estimate does."""
    if code is None:
        return True
    body = SIGNATURE.sub("", code, count=1)
    # C++ kernels may name the same buffer twice (``auto out_ptr0 = in_out_ptr0;``): loads through the
    # alias are loads of the parameter.
    names = [param, *re.findall(rf"auto\s+(\w+)\s*=\s*{re.escape(param)}\s*;", body)]
    return any(re.search(rf"(?:(?<!store)\(\s*|=\s*){re.escape(name)}\b(?!\s*;)", body) is not None for name in names)


def kernel_definition(source: str, name: str) -> str | None:
    """The generated source of kernel ``name``: the C++ or Triton text inside its ``async_compile`` call."""
    start = source.find(f"{name} = async_compile.")
    if start < 0:
        return None
    body_start = source.find("'''", start)
    # Triton's text ends with ''', device_str='cuda'), C++'s with '''): the closing quotes are what they share.
    body_end = source.find("'''", body_start + 3)
    if body_start < 0 or body_end < 0:
        return None
    return source[body_start + 3 : body_end].strip("\n")


def original_aten(source: str, name: str) -> tuple[str, ...]:
    """``Original ATen: [aten.add, aten.relu]`` from the comment Inductor writes above a kernel, if any."""
    start = source.find(f"{name} = async_compile.")
    if start < 0:
        return ()
    # The comment block directly above the kernel, however long its graph fragment: lines back to the first
    # that is not a comment.
    block, end = [], start
    while end > 0:
        begin = source.rfind("\n", 0, end - 1) + 1
        line = source[begin:end]
        if not line.startswith("#"):
            break
        block.append(line)
        end = begin
    match = re.search(r"Original ATen: \[(.*?)\]", "".join(reversed(block)))
    if not match:
        return ()
    return tuple(inductor_op_name(op.strip()) for op in match.group(1).split(",") if op.strip())


class _Recorder:
    """The records of one recorded call, and how deep it is inside stand-ins (whose work is already counted)."""

    def __init__(self, records: list[Traffic]) -> None:
        self.records = records
        self.depth = 0
        self.layer_calls = 0

    @contextlib.contextmanager
    def inside(self) -> Iterator[None]:
        self.depth += 1
        try:
            yield
        finally:
            self.depth -= 1

    def fused_layer(self, call: str, run: Callable[[], Any]) -> tuple[Any, bool]:
        """Run a fused layer Inductor left as it is, recording each pass inside it as eager counts them: its
        output, and False when it could not be seen into (the preview's fakes) and is the caller's to record."""
        passes = EagerTrafficMode()
        with self.inside(), passes:
            out = run()
        if len(passes.ops) <= 1:
            return out, False
        self.layer_calls += 1
        self.records.extend(replace(record, call=call, lines=(), layer_call=self.layer_calls) for record in passes.ops)
        return out, True


class _RecordingKernel:
    """Stands in for a generated kernel: records the tensors by parameter role, then calls through."""

    def __init__(self, target: Any, name: str, source: str, recorder: _Recorder) -> None:
        self._target = target
        self._name = name
        self._params = kernel_params(source, name)
        self._code = kernel_definition(source, name)
        self._aten_ops = original_aten(source, name)
        self._read_through = {
            param: loads_pointer(self._code, param) for param in self._params if param.startswith("in_out_ptr")
        }
        self._gathers = gathered_pointers(self._code)
        self._recorder = recorder

    def _record(self, args: tuple[Any, ...]) -> tuple[int, list[Any], list[Any]]:
        """Record one launch with ``args``: its record's index, and the tensors it reads and writes."""
        read, written = [], []
        by_param = dict(zip(self._params, args))
        for param, value in by_param.items():
            if not isinstance(value, torch.Tensor):
                continue
            # in_ptr0 is an in_ptr; arg_A, arg_B of a template: inputs
            kind = param.rstrip(string.digits) if POINTER.fullmatch(param) else "in_ptr"
            if kind == "in_ptr" or self._read_through.get(param, False):
                read.append(value)
            if kind in ("out_ptr", "in_out_ptr"):
                written.append(value)
        elements = largest_elements(args)
        # The CUDA preview's stub kernels know how Inductor would launch them; a real kernel's launch is the
        # profiler's to report.
        plan = getattr(self._target, "launch_plan", None)
        launch = plan.launch(args, elements) if isinstance(plan, TritonLaunchPlan) else None
        charged = gathered_bytes(self._gathers, by_param)
        index = len(self._recorder.records)
        self._recorder.records.append(
            Traffic(
                self._name,
                unique_bytes(read, charged),
                unique_bytes(written, charged),
                self._aten_ops,
                code=self._code,
                elements=elements,
                launch=launch,
            )
        )
        return index, read, written

    def _after(self, index: int, read: list[Any], written: list[Any]) -> None:
        """Once the kernel ran (``_record``'s record ``index``, its tensors ``read`` and ``written``): a copy into
        another layout is named as such and computes nothing."""
        with self._recorder.inside():  # comparing values is no work of the call's
            conversion = layout_conversion(self._name, self._aten_ops, read, written)
        if conversion is not None:
            # Its nodes' operator (the convolution whose weights it converts) is not its work: no FLOPs of it.
            records = self._recorder.records
            records[index] = replace(records[index], aten_ops=(), layout=conversion, flops=0)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        recorded = self._record(args)
        with self._recorder.inside():
            out = self._target(*args, **kwargs)
        self._after(*recorded)
        return out

    def run(self, *args: Any, **kwargs: Any) -> Any:
        recorded = self._record(args)
        with self._recorder.inside():
            out = self._target.run(*args, **kwargs)
        self._after(*recorded)
        return out

    def __getattr__(self, item: str) -> Any:
        return getattr(self._target, item)


CONVERTS_FOR = frozenset({"aten::convolution", "aten::convolution_backward", "aten::clone", "aten::_to_copy"})
"""The operators a layout conversion may be named for: the convolution whose weights or result it converts (its
node's origin), or a copy."""


def layout_conversion(name: str, aten_ops: tuple[str, ...], read: list[Any], written: list[Any]) -> str | None:
    """What a kernel is when it only copies tensors into another layout, else None.

    Inductor writes such a kernel of its own accord, for no operator of the user's but the convolution it serves
    (``CONVERTS_FOR``): it converts a convolution's weights to channels-last, the layout its convolutions run in, on
    every call, since the weights are the graph's inputs. Told from the tensors it was handed once it ran: each it
    wrote is one it read, in the same shape and dtype, strided otherwise, and equal to it (the preview's fake
    tensors have no values: there, a kernel named for no operator). It computes nothing."""
    if not set(aten_ops) <= CONVERTS_FOR or not written:
        return None
    for out in written:
        sources = [t for t in read if t is not out and t.shape == out.shape and t.dtype == out.dtype]
        sources = [t for t in sources if t.stride() != out.stride()]
        if isinstance(out, FakeTensor):
            if not sources or not names_no_operator(name):
                return None
        elif not any(torch.equal(t, out) for t in sources):
            return None
    layout = "channels-last" if all(_channels_last(t) for t in written) else "another layout"
    return (
        f"a layout conversion Inductor added: {len(written)} tensor{'s' if len(written) > 1 else ''} copied into "
        f"{layout} on every call, for no operator of yours"
        + (
            "; keep the model and its input channels-last (model.to(memory_format=torch.channels_last)) and there "
            "is nothing to convert"
            if layout == "channels-last"
            else ""
        )
    )


def _channels_last(tensor: torch.Tensor) -> bool:
    return tensor.dim() == 4 and tensor.is_contiguous(memory_format=torch.channels_last) and not tensor.is_contiguous()


def gathered_bytes(gathers: dict[str, Gather], by_param: dict[str, Any]) -> dict[int, int]:
    """What a kernel moves of each table it gathers from or scatters into (``gathers``), by the tensor's ``id``:
    a slice per value of the index tensors it was handed (``by_param``: its arguments by parameter name)."""
    charged = {}
    for param, gather in gathers.items():
        table = by_param.get(param)
        found = [by_param.get(name) for name in gather.index]
        indexes = {id(t): t for t in found if isinstance(t, torch.Tensor)}
        if not isinstance(table, torch.Tensor) or len(indexes) < len({id(t) for t in found}):
            continue  # an index that is no tensor the kernel was handed: the table is charged whole
        indices = sum(t.numel() for t in indexes.values())
        elements = gather.elements(indices, tensor_bytes(table) // max(table.element_size(), 1))
        charged[id(table)] = elements * table.element_size()
    return charged


class _RecordingLibrary:
    """Stands in for ``extern_kernels`` or ``aten`` in a wrapper: each call is one library kernel."""

    def __init__(self, target: Any, recorder: _Recorder, path: tuple[str, ...]) -> None:
        self._target = target
        self._recorder = recorder
        self._path = path

    def __getattr__(self, item: str) -> Any:
        return _RecordingLibrary(getattr(self._target, item), self._recorder, self._path + (item,))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        op = f"aten::{self._path[1] if len(self._path) > 1 else '?'}"
        if op in FUSED_LAYERS:
            result, recorded = self._recorder.fused_layer(".".join(self._path), lambda: self._target(*args, **kwargs))
            if recorded:
                return result
        else:
            with self._recorder.inside():
                result = self._target(*args, **kwargs)
        out = kwargs.get("out")
        written = tensors_in(out) if out is not None else tensors_in(result)
        inputs = tensors_in(args) + tensors_in({k: v for k, v in kwargs.items() if k != "out"})
        self._recorder.records.append(
            Traffic(
                op,
                unique_bytes(inputs),
                unique_bytes(written),
                (op,),
                call=".".join(self._path),
                elements=largest_elements(inputs + written),
                flops=library_flops(op, args, kwargs, out if out is not None else result),
            )
        )
        return result


class _WrapperOps(TorchDispatchMode):
    """Records the data-moving operators that reach the dispatcher outside any stand-in: a wrapper's
    ``torch.ops.aten`` fallbacks and device copies, and eager code between graphs.

    ``torch.compile`` keeps a mode that ignores compile internals switched off while it compiles and on while
    compiled code runs; any other mode would make it run ``fn`` eagerly instead."""

    def __init__(self, recorder: _Recorder) -> None:
        super().__init__()  # type: ignore[no-untyped-call]  # torch leaves TorchDispatchMode.__init__ unannotated
        self._recorder = recorder

    @classmethod
    def ignore_compile_internals(cls) -> bool:
        return True

    def __torch_dispatch__(
        self, func: Any, types: Sequence[type], args: tuple[Any, ...] = (), kwargs: dict[str, Any] | None = None
    ) -> Any:
        kwargs = kwargs or {}
        name = op_name(func)
        if self._recorder.depth == 0 and name in FUSED_LAYERS:
            out, recorded = self._recorder.fused_layer(name.replace("::", "."), lambda: func(*args, **kwargs))
            if recorded:
                return out
        else:
            out = func(*args, **kwargs)
        # prim:: operators ask about metadata (a fake tensor's device): no memory is touched.
        if self._recorder.depth == 0 and func.namespace != "prim" and moves_data(name):
            read, written = op_tensors(name, func._schema, args, kwargs, out)
            direction = host_transfer(name, read, written)
            call = memcpy_name(name, direction) if direction else None
            self._recorder.records.append(
                Traffic(
                    name,
                    unique_bytes(read),
                    unique_bytes(written),
                    (name,),
                    call=call,
                    kind="memcpy" if direction else "kernel",
                    elements=largest_elements(read + written),
                    flops=library_flops(name, args, kwargs, out),
                )
            )
        return out


MEMCPY_NAMES = {"DtoH": "Memcpy DtoH (Device -> Pageable)", "HtoD": "Memcpy HtoD (Pageable -> Device)"}
"""How the CUDA profiler names a copy between device memory and ordinary (pageable) host memory."""
PINNED_DTOH = "Memcpy DtoH (Device -> Pinned)"
"""``.item()`` (``_local_scalar_dense``): ATen's CUDA code copies the value into a pinned host buffer."""


def memcpy_name(op: str, direction: str) -> str:
    """The profiler's name of the copy an operator makes between host and device (``DtoH`` or ``HtoD``)."""
    return PINNED_DTOH if op == "aten::_local_scalar_dense" else MEMCPY_NAMES[direction]


@contextlib.contextmanager
def recording_kernels(records: list[Traffic], modules: list[Any] | None = None) -> Iterator[None]:
    """Install recording stand-ins in every loaded wrapper module (or in ``modules``) and record what reaches
    the dispatcher outside them; restore the originals on exit."""
    recorder = _Recorder(records)
    patched: list[tuple[Any, str, Any]] = []
    try:
        for module in wrapper_modules() if modules is None else modules:
            source = _source(module.__file__)
            namespace = vars(module)
            for name, value in list(namespace.items()):
                if is_wrapper_kernel(name) and (callable(value) or hasattr(value, "run")):
                    stand_in: Any = _RecordingKernel(value, name, source, recorder)
                elif name in ("extern_kernels", "aten") and value is not None:
                    stand_in = _RecordingLibrary(value, recorder, (name,))
                else:
                    continue
                patched.append((module, name, value))
                setattr(module, name, stand_in)
        with _WrapperOps(recorder):
            yield
    finally:
        for module, name, value in reversed(patched):
            setattr(module, name, value)


def compiled_traffic(compiled_fn: Any, args: tuple[Any, ...], modules: list[Any] | None = None) -> list[Traffic]:
    """Call the (already compiled, warm) function once and return each kernel's traffic in call order."""
    records: list[Traffic] = []
    with recording_kernels(records, modules), torch.no_grad():
        compiled_fn(*args)
    return records
