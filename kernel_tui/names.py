"""Short, scannable names for the kernels and operators that torch.profiler reports.

The profiler names CUDA kernels by their demangled C++ signature, which for ATen's templated
kernels runs to hundreds of characters. ``short_name`` keeps what tells a learner what ran: the
kernel's template (``vectorized_elementwise_kernel``), the operation inside it (``add``), the
GEMM library family (``sm90_xmma_gemm_…``, ``cutlass_80_tensorop_…``, ``nvjet_…``), the fused ops
of an Inductor kernel. The full name is kept next to it elsewhere, so nothing here has to be
reversible. Pure string work: no torch, safe in the UI process.

Examples::

    void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, ...>(...)
        -> vectorized_elementwise_kernel<add>
    void at::native::reduce_kernel<512, 1, ...sum_functor<float, float, float>...>(...)
        -> reduce_kernel<sum>
    graph_12_cpp_fused_add_relu_0       -> cpp_fused_add_relu_0
    Memcpy HtoD (Pageable -> Device)    -> memcpy HtoD
    aten::add                           -> aten::add
"""

from __future__ import annotations

import re

SHORT = 40
"""What the rules aim for: the width of the kernel column."""
LIMIT = 48
"""Hard cap for names no rule knows, and for an op that does not fit ``SHORT``."""
ELLIPSIS = "…"

_MEMCPY = re.compile(r"^\[?(?:CUDA )?memcpy\s+([A-Za-z]to[A-Za-z])\b", re.IGNORECASE)
_MEMSET = re.compile(r"^\[?(?:CUDA )?memset\b", re.IGNORECASE)
_OPERATOR = re.compile(r"^[A-Za-z_]\w*::[A-Za-z_]\w*(?:\.\w+)?$")
_GRAPH_KERNEL = re.compile(r"^graph_\d+_(.+)$")
_FUSED = re.compile(r"^((?:triton_[a-z]+_|cpp_)fused_)(.+?)(_\d+)?$")
_XMMA = re.compile(r"^(sm\d+_xmma_\w+?)_(?:tilesize|stage|warpsize|cgasize)")
_NVJET = re.compile(r"^nvjet_")
_IDENT = re.compile(r"^[A-Za-z_][\w.$]*$")

# Namespaces with a space or angle brackets in them would break the template/argument parsing.
_ANON_NS = re.compile(r"\(anonymous namespace\)::|<unnamed>::|\(anonymous namespace\)|<unnamed>")
_CLONE = re.compile(r"\s*\[clone [^\]]*\]\s*$")
# A function name: an identifier followed, maybe after template arguments, by its parameter list.
# The lookahead keeps matches from swallowing the functions nested in those template arguments.
_FUNCTION = re.compile(r"\b([A-Za-z_]\w*)(?=(?:<[^<>]*(?:<[^<>]*>[^<>]*)*>)?\()")
_FUNCTOR = re.compile(r"\b([A-Za-z_]\w*(?:Functor\w*|_functor|Ops))\b")

# Wrappers that carry the real op inside them; naming them would tell the learner nothing.
_PLUMBING = {
    "lambda",
    "operator",
    "func_wrapper_t",
    "ReduceOp",
    "gpu_kernel",
    "gpu_kernel_impl",
    "gpu_kernel_impl_nocast",
    "gpu_kernel_with_scalars",
    "opmath_gpu_kernel_with_scalars",
    "opmath_symmetric_gpu_kernel_with_scalars",
    "gpu_index_kernel",
    "launch_kernel",
    "launch_vectorized_kernel",
    "launch_unrolled_kernel",
    "launch_legacy_kernel",
    "AUnaryFunctor",
    "BUnaryFunctor",
    "BinaryFunctor",
    "UnaryFunctor",
    "TernaryFunctor",
}
# Kernel names so generic that the enclosing namespace or template argument is the real name.
_GENERIC_BASES = {"kernel", "Kernel", "Kernel2", "device_kernel", "global_kernel"}
_OP_PREFIXES = ("CUDAFunctorOnSelf_", "CUDAFunctor_", "launch_", "Compare")
_OP_SUFFIXES = (
    "_kernel_cuda_impl",
    "_kernel_cuda",
    "_kernel_impl",
    "_cuda_impl",
    "_cuda_out",
    "_kernel",
    "_impl",
    "_cuda",
    "_functor",
    "CUDAKernelImpl",
    "KernelImpl",
    "Functor",
    "Ops",
)


def short_name(full_name: str) -> str:
    """A readable name of at most ``LIMIT`` characters (most fit ``SHORT``) for a profiler name."""
    try:
        name = full_name.strip()
        if not name:
            return full_name
        return _shorten(name) or _clip(name, LIMIT)
    except Exception:  # a display helper must never take the table down with it
        text = str(full_name)
        return _clip(text.strip() or text, LIMIT)


def _shorten(name: str) -> str:
    if match := _MEMCPY.match(name):
        return f"memcpy {match.group(1)}"
    if _MEMSET.match(name):
        return "memset"
    if _OPERATOR.match(name):
        return _clip(name, LIMIT)
    if match := _GRAPH_KERNEL.match(name):
        # <id> is a process-wide counter: the same kernel gets another id in every run.
        name = match.group(1)
    if match := _FUSED.match(name):
        return _fused(*match.groups())
    if _IDENT.match(name):
        return _library_kernel(name)
    return _cpp_kernel(name)


def _fused(prefix: str, ops: str, suffix: str | None) -> str:
    """Inductor's ``<prefix><op>_<op>…_<n>``: keep the prefix and ``_<n>``, cut the op list."""
    suffix = suffix or ""
    whole = prefix + ops + suffix
    room = SHORT - len(prefix) - len(suffix) - len(ELLIPSIS)
    if len(whole) <= SHORT or room < 4:
        return _clip(whole, LIMIT)
    return prefix + _cut(ops, room) + ELLIPSIS + suffix


def _library_kernel(name: str) -> str:
    """A plain identifier: Triton, cuBLAS/cuDNN/CUTLASS GEMMs, NCCL, attention kernels…"""
    if match := _XMMA.match(name):
        # The tile and warp-group sizes are tuning detail; arch, dtypes and layout say what it is.
        return _clip(match.group(1) + ELLIPSIS, SHORT)
    if _NVJET.match(name):
        # cuBLAS's nvjet GEMMs are the only family whose name does not say "gemm".
        tag = " (gemm)"
        return _clip(name, SHORT - len(tag)) + tag
    return _clip(name, SHORT if "gemm" in name.lower() else LIMIT)


def _cpp_kernel(name: str) -> str:
    """A demangled C++ signature: base name, plus the op when the template carries one."""
    text = _CLONE.sub("", _ANON_NS.sub("", name))
    if text.startswith("void "):
        text = text[len("void ") :]
    text = _drop_return_type(_drop_arguments(text))
    qualified = text.strip()
    open_at = _top_level(qualified, "<")
    if open_at < 0:
        base, targs = qualified, ""
    else:
        base, targs = qualified[:open_at], qualified[open_at + 1 : _closing(qualified, open_at)]
    base = _base_name(base)
    if not base:
        return ""
    if base in _GENERIC_BASES and (inner := re.match(r"\s*([A-Za-z_]\w*)\s*$", targs)):
        # cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_…>: the argument is the kernel's real name.
        return _library_kernel(inner.group(1))
    if "gemm" in base.lower() or "gemv" in base.lower():
        return _clip(base, SHORT)  # template arguments of a BLAS kernel are tile sizes, not ops
    op = _op(targs)
    if not op:
        return _library_kernel(base) if not targs else _clip(base, LIMIT)
    room = LIMIT - len(base) - 2
    if room < 4:
        return _clip(base, LIMIT)
    return f"{base}<{_clip(op, room)}>"


def _drop_arguments(text: str) -> str:
    """Drop a trailing ``(...)`` parameter list, matched from the end so nested parens are fine."""
    if not text.endswith(")"):
        return text
    depth = 0
    for index in range(len(text) - 1, -1, -1):
        char = text[index]
        if char == ")":
            depth += 1
        elif char == "(":
            depth -= 1
            if depth == 0:
                # "name (note)" is a profiler annotation; a C++ parameter list follows the name directly.
                head = text[:index]
                return head if head and not head[-1].isspace() else text
    return text


def _drop_return_type(text: str) -> str:
    """cuBLAS's gemv kernels return ``std::enable_if<…>::type``; keep what follows it."""
    if match := re.match(r"^std::enable_if<", text):
        close = _closing(text, match.end() - 1)
        rest = text[close + 1 :]
        if rest.startswith("::type "):
            return rest[len("::type ") :]
    return text


def _base_name(qualified: str) -> str:
    parts = [part for part in qualified.strip().split("::") if part]
    if not parts:
        return ""
    if parts[-1] in _GENERIC_BASES and len(parts) > 1 and parts[-2] not in {"cutlass", "cute"}:
        return f"{parts[-2]}::{parts[-1]}"
    return parts[-1].strip()


def _op(targs: str) -> str:
    """The op inside a kernel's template arguments: its functor, or the function of its lambda."""
    if not targs:
        return ""
    candidates = [(m.start(), m.group(1)) for m in _FUNCTION.finditer(targs)]
    candidates += [(m.start(), m.group(1)) for m in _FUNCTOR.finditer(targs)]
    for _, candidate in sorted(candidates):
        if candidate not in _PLUMBING:
            op = _clean_op(candidate)
            if op:
                return op
    return ""


def _clean_op(name: str) -> str:
    """The op's own name: ``CUDAFunctor_add`` -> ``add``, ``direct_copy_kernel_cuda`` -> ``direct_copy``.

    Wrapping prefixes and suffixes come in any order, so strip until none is left.
    """
    changed = True
    while changed:
        changed = False
        for prefix in _OP_PREFIXES:
            if name.startswith(prefix) and len(name) > len(prefix):
                name, changed = name[len(prefix) :], True
        for suffix in _OP_SUFFIXES:
            if name.endswith(suffix) and len(name) > len(suffix):
                name, changed = name[: -len(suffix)], True
    snake = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", name)
    return snake.strip("_").lower()


def _top_level(text: str, wanted: str) -> int:
    """Index of the first ``wanted`` outside any parentheses, or -1."""
    depth = 0
    for index, char in enumerate(text):
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif char == wanted and depth == 0:
            return index
    return -1


def _closing(text: str, open_at: int) -> int:
    """Index of the ``>`` closing the ``<`` at ``open_at``; the end of the text if it never closes."""
    depth = 0
    for index in range(open_at, len(text)):
        char = text[index]
        if char == "<":
            depth += 1
        elif char == ">" and text[index - 1] != "-":
            depth -= 1
            if depth == 0:
                return index
    return len(text)


def _cut(text: str, width: int) -> str:
    """``text`` cut to ``width``, back to a separator when one is near, so no word is split."""
    if len(text) <= width:
        return text
    head = text[:width]
    if text[width] not in "_ ,":
        boundary = max(head.rfind(sep) for sep in "_ ,")
        if boundary >= width // 2:
            head = head[:boundary]
    return head.rstrip("_ ,") or text[:width]


def _clip(text: str, width: int) -> str:
    """``text`` if it fits in ``width``, else cut with an ellipsis so the result does."""
    if len(text) <= width:
        return text
    return _cut(text, width - len(ELLIPSIS)) + ELLIPSIS
