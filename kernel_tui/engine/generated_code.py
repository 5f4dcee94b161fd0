"""Bytes per compiled kernel, from what Inductor generated.

Inductor writes a Python wrapper module per graph whose ``call()`` invokes each kernel on named buffers.
Its kernels' parameters follow one naming rule in C++ and Triton alike: ``in_ptr`` is read, ``out_ptr``
is written, ``in_out_ptr`` is both. We install a recording stand-in for every kernel (and for the library
calls, ``extern_kernels.mm(..., out=buf)``) in the loaded wrapper modules, call the compiled function once,
and read the real tensors each kernel received. The stand-ins are removed afterwards.
"""

from __future__ import annotations

import contextlib
import functools
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import torch

from kernel_tui.engine.traffic import tensors_in, unique_bytes

KERNEL_GLOBAL = re.compile(r"^(cpp_fused_|cpp_|triton_)\w*$")
POINTER_PARAM = re.compile(r"^(in_out_ptr|in_ptr|out_ptr)\d+$")


@dataclass(frozen=True)
class KernelTraffic:
    name: str
    """The kernel's name in the wrapper (``cpp_fused_add_relu_0``), or ``aten::mm`` for a library call."""
    bytes_read: int
    bytes_written: int
    code: str | None = None
    aten_ops: tuple[str, ...] = ()
    """The original ATen operators, where the generated code records them (Triton kernels do)."""


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
    end = source.find("''')", start)
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
    body = re.sub(r"def \w+\(.*?\):|void\s+kernel\(.*?\)", "", code, count=1, flags=re.S)
    # C++ kernels may name the same buffer twice (``auto out_ptr0 = in_out_ptr0;``): loads through the
    # alias are loads of the parameter.
    names = [param, *re.findall(rf"auto\s+(\w+)\s*=\s*{re.escape(param)}\s*;", body)]
    return any(
        re.search(rf"(?:(?<!store)\(\s*|=\s*){re.escape(name)}\b(?!\s*;)", body) is not None for name in names
    )


def kernel_definition(source: str, name: str) -> str | None:
    """The generated source of kernel ``name``: the C++ or Triton text inside its ``async_compile`` call."""
    start = source.find(f"{name} = async_compile.")
    if start < 0:
        return None
    body_start = source.find("'''", start)
    body_end = source.find("''')", body_start + 3)
    if body_start < 0 or body_end < 0:
        return None
    return source[body_start + 3 : body_end].strip("\n")


def original_aten(source: str, name: str) -> tuple[str, ...]:
    """``Original ATen: [aten.add, aten.relu]`` from the comment Inductor writes above a kernel, if any."""
    start = source.find(f"{name} = async_compile.")
    if start < 0:
        return ()
    preamble = source[max(0, start - 4000) : start]
    block = preamble.rsplit("\n\n\n", 1)[-1]
    match = re.search(r"Original ATen: \[(.*?)\]", block)
    if not match:
        return ()
    return tuple(op.strip().replace("aten.", "aten::", 1) for op in match.group(1).split(",") if op.strip())


class _RecordingKernel:
    """Stands in for a generated kernel: records the tensors by parameter role, then calls through."""

    def __init__(self, target: Any, name: str, source: str, records: list[KernelTraffic]) -> None:
        self._target = target
        self._name = name
        self._params = kernel_params(source, name)
        self._code = kernel_definition(source, name)
        self._aten_ops = original_aten(source, name)
        self._read_through = {
            param: loads_pointer(self._code, param) for param in self._params if param.startswith("in_out_ptr")
        }
        self._records = records

    def _record(self, args: tuple) -> None:
        read, written = [], []
        for param, value in zip(self._params, args):
            if not isinstance(value, torch.Tensor):
                continue
            role = POINTER_PARAM.match(param)
            if role is None:
                continue
            if role.group(1) == "in_ptr" or self._read_through.get(param, False):
                read.append(value)
            if role.group(1) in ("out_ptr", "in_out_ptr"):
                written.append(value)
        self._records.append(
            KernelTraffic(self._name, unique_bytes(read), unique_bytes(written), self._code, self._aten_ops)
        )

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self._record(args)
        return self._target(*args, **kwargs)

    def run(self, *args: Any, **kwargs: Any) -> Any:
        self._record(args)
        return self._target.run(*args, **kwargs)

    def __getattr__(self, item: str) -> Any:
        return getattr(self._target, item)


class _RecordingLibrary:
    """Stands in for ``extern_kernels`` or ``aten`` in a wrapper: each call is one library kernel."""

    def __init__(self, target: Any, records: list[KernelTraffic], path: tuple[str, ...] = ()) -> None:
        self._target = target
        self._records = records
        self._path = path

    def __getattr__(self, item: str) -> Any:
        return _RecordingLibrary(getattr(self._target, item), self._records, self._path + (item,))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        result = self._target(*args, **kwargs)
        out = kwargs.get("out")
        written = tensors_in(out) if out is not None else tensors_in(result)
        inputs = tensors_in(args) + tensors_in({k: v for k, v in kwargs.items() if k != "out"})
        op = f"aten::{self._path[0] if self._path else '?'}"
        self._records.append(KernelTraffic(op, unique_bytes(inputs), unique_bytes(written), None, (op,)))
        return result


@contextlib.contextmanager
def recording_kernels(records: list[KernelTraffic]) -> Iterator[None]:
    """Install recording stand-ins in every loaded wrapper module; restore the originals on exit."""
    patched: list[tuple[Any, str, Any]] = []
    try:
        for module in wrapper_modules():
            source = _source(module.__file__)
            namespace = vars(module)
            for name, value in list(namespace.items()):
                if KERNEL_GLOBAL.match(name) and (callable(value) or hasattr(value, "run")):
                    stand_in: Any = _RecordingKernel(value, name, source, records)
                elif name in ("extern_kernels", "aten") and value is not None:
                    stand_in = _RecordingLibrary(value, records)
                else:
                    continue
                patched.append((module, name, value))
                setattr(module, name, stand_in)
        yield
    finally:
        for module, name, value in reversed(patched):
            setattr(module, name, value)


def compiled_traffic(compiled_fn: Any, args: tuple) -> list[KernelTraffic]:
    """Call the (already compiled, warm) function once and return each kernel's traffic in call order."""
    records: list[KernelTraffic] = []
    with recording_kernels(records), torch.no_grad():
        compiled_fn(*args)
    return records
