"""Short, scannable names for the kernels and operators that torch.profiler reports.

The profiler names CUDA kernels by their demangled C++ signature, which for ATen's templated
kernels runs to hundreds of characters. ``short_name`` keeps what tells a learner what ran: the
kernel's template (``vectorized_elementwise_kernel``), the operation inside it (``add``), the
GEMM library family (``sm90_xmma_gemm_…``, ``cutlass_80_tensorop_…``, ``nvjet_…``), the fused ops
of an Inductor kernel. The full name is kept next to it elsewhere, so nothing here has to be
reversible. No torch, safe in the UI process: string work, plus the C++ runtime's own demangler
(``demangle``) for the rare name the profiler leaves mangled (``_ZN…``).

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

from kernel_tui.model.names.cpp_brackets import closing, last_top_level_space, split_top_level, top_level
from kernel_tui.model.names.demangle import demangle

SHORT = 40
"""What the rules aim for: the width of the kernel column."""
LIMIT = 48
"""Hard cap for names no rule knows, and for an op that does not fit ``SHORT``."""
ELLIPSIS = "…"

_MEMCPY = re.compile(r"^\[?(?:CUDA )?memcpy\s+([A-Za-z]to[A-Za-z])\b", re.IGNORECASE)
_MEMSET = re.compile(r"^\[?(?:CUDA )?memset\b", re.IGNORECASE)
_OPERATOR = re.compile(r"^[A-Za-z_]\w*::[A-Za-z_]\w*(?:\.\w+)?$")
# Inductor names its kernels ``<backend>_[<kind>_]fused_<op>_<op>…_<n>``: ``cpp_fused_add_relu_0``, and for
# Triton with the kernel's kind, ``triton_poi_fused_add_relu_0`` (pointwise; ``red`` reduction, ``per``
# persistent reduction, ``tem`` template). The CPU profiler puts a graph counter in front: ``graph_12_…``.
_GRAPH_KERNEL = re.compile(r"^graph_\d+_(.+)$")
_GENERATED = re.compile(r"^(?:cpp|triton)_\w*")
_TRITON_KIND = re.compile(r"^triton_([a-z]+)_")
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
# What is left of a signature once its return type is gone: a qualified name, maybe with template arguments.
_QUALIFIED = re.compile(r"^(?:[A-Za-z_]\w*::)*[A-Za-z_]\w*(?:<.*>)?$", re.DOTALL)
_TYPE_NAME = re.compile(r"^(?:(?:const|volatile|struct|class|enum|typename)\s+)*(?:[A-Za-z_]\w*::)*([A-Za-z_]\w*)")

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
# Words followed by parentheses in a signature that are C++ syntax, not a function that names an op:
# fbgemm's kernels take ``decltype(nullptr)`` template arguments.
_KEYWORDS = {
    "decltype",
    "sizeof",
    "alignof",
    "noexcept",
    "typeof",
    "__typeof__",
    "static_cast",
    "reinterpret_cast",
    "const_cast",
    "dynamic_cast",
}
# Kernel names so generic that the enclosing namespace or template argument is the real name.
_GENERIC_BASES = {"kernel", "Kernel", "Kernel2", "device_kernel", "global_kernel", "globalKernel", "kentry"}
# Namespaces that say nothing about the kernel in them; a generic base is qualified by the one above.
_BLAND_NAMESPACES = {"impl", "detail", "internal", "native", "kernel", "kernels", "device", "dev", "at", "std"}
# Template arguments of a generic kernel that are data (types, parameter blocks), not the kernel itself.
_DATA_ARGUMENT = re.compile(
    r"^(?:void|bool|char|short|int|long|signed|unsigned|float|double|half|true|false|nullptr_t|size_t"
    r"|u?int\d+_t|float\d+|BFloat16|Half|bfloat16_t|half_t|tfloat32_t|__\w+)$"
    r"|Param|Arg|Trait|Polic|Config|Metadata",
)
# Ops that are only the wrapper's own name once its prefix and suffix are gone.
_MEANINGLESS_OPS = {"", "functor", "kernel", "impl", "op", "ops", "type", "lambda", "operator", "decltype"}
# Wrapping prefixes of an op's name. ``Compare`` is kept when nothing follows it: ``CompareFunctor`` takes the
# comparison (eq, lt, …) at run time, so "compare" is all its name says.
_OP_PREFIX = re.compile(r"^(?:CUDAFunctor(?:On[A-Z][a-z]+)?_|launch_|Compare(?=[A-Z]))")
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
    except Exception:  # noqa: BLE001 - a display helper must never take the table down with it
        text = str(full_name)
        return _clip(text.strip() or text, LIMIT)


def _shorten(name: str) -> str:
    if match := _MEMCPY.match(name):
        return f"memcpy {match.group(1)}"
    if _MEMSET.match(name):
        return "memset"
    if _OPERATOR.match(name):
        return _clip(name, LIMIT)
    # The graph counter is process-wide: the same kernel gets another one in every run.
    name = without_graph_counter(name)
    if match := _FUSED.match(name):
        return _fused(*match.groups())
    if name.startswith("_Z"):
        # ROCm traces, and names the profiler's own demangler gave up on, arrive mangled.
        name = demangle(name)
    if _IDENT.match(name):
        return _library_kernel(name)
    return _cpp_kernel(name)


def without_graph_counter(name: str) -> str:
    """``graph_12_cpp_fused_add_relu_0`` -> ``cpp_fused_add_relu_0``; any other name as it is."""
    match = _GRAPH_KERNEL.match(name)
    return match.group(1) if match else name


def is_generated_kernel(name: str) -> bool:
    """Whether a profiler name is a kernel Inductor generated (``graph_0_cpp_fused_add_0``,
    ``triton_poi_fused_add_0``, or a C++ wrapper's lone ``kernel``) rather than an operator or a library's."""
    bare = without_graph_counter(name)
    return bare == "kernel" or _GENERATED.match(bare) is not None


def is_wrapper_kernel(name: str) -> bool:
    """Whether a global of an Inductor wrapper module is one of its generated kernels (no graph counter there)."""
    return _GENERATED.match(name) is not None and name.isidentifier()


def kernel_backend(name: str) -> str | None:
    """``triton`` or ``cpp`` for a kernel Inductor generated, by its name; None for any other kernel."""
    bare = without_graph_counter(name)
    if _GENERATED.match(bare) is None:
        return None
    return bare.split("_", 1)[0]


def triton_kind(name: str) -> str | None:
    """The kind Inductor gave a Triton kernel (``poi``, ``red``, ``per``, ``tem``); None for any other kernel."""
    match = _TRITON_KIND.match(without_graph_counter(name))
    return match.group(1) if match else None


def is_elementwise(name: str) -> bool:
    """A kernel that applies one operation element by element: Inductor's pointwise Triton kernels and ATen's
    ``elementwise_kernel`` templates (``vectorized_elementwise_kernel``, ``unrolled_elementwise_kernel``)."""
    return triton_kind(name) == "poi" or "elementwise_kernel" in name


def fused_ops(name: str) -> str:
    """The operators in a fused Inductor kernel's name, as written there (``add_relu`` for
    ``cpp_fused_add_relu_0``: op names hold underscores too, so they cannot be split apart); "" for others."""
    match = _FUSED.match(without_graph_counter(name))
    return match.group(2) if match else ""


def names_no_operator(name: str) -> bool:
    """Whether a fused Inductor kernel's name holds no operator (``cpp_fused_0``): Inductor names a kernel by its
    nodes' operators, and one it added of its own accord (a layout conversion) has none."""
    return fused_ops(name).isdigit()


def kernel_identity(name: str) -> str:
    """What stays the same when an edit elsewhere renumbers Inductor's kernels: ``cpp_fused_add_relu`` for
    ``graph_0_cpp_fused_add_relu_1``; any other kernel is its own identity (without the graph counter)."""
    bare = without_graph_counter(name)
    match = _FUSED.match(bare)
    return match.group(1) + match.group(2) if match else bare


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
    open_at = top_level(qualified, "<")
    if open_at < 0:
        scope, targs = qualified, ""
    else:
        scope, targs = qualified[:open_at], qualified[open_at + 1 : closing(qualified, open_at)]
    parts = [part.strip() for part in scope.split("::") if part.strip()]
    if not parts:
        return ""
    base = parts[-1]
    if base in _GENERIC_BASES:
        # cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_…>, ck_tile::kentry<2, FmhaFwdKernel<…>>: the template
        # argument is the kernel; with none, gemvx::kernel says more than kernel.
        if inner := _kernel_argument(targs):
            return _library_kernel(inner)
        return _clip(_qualified_generic(parts), LIMIT)
    if "gemm" in base.lower() or "gemv" in base.lower():
        return _clip(base, SHORT)  # template arguments of a BLAS kernel are tile sizes, not ops
    op = _op(targs)
    if not op:
        return _library_kernel(base) if not targs else _clip(base, LIMIT)
    room = LIMIT - len(base) - 2
    if room < 4:
        return _clip(base, LIMIT)
    return f"{base}<{_clip(op, room)}>"


def _qualified_generic(parts: list[str]) -> str:
    """``internal::gemvx::kernel`` -> ``gemvx::kernel``: the nearest namespace that says something."""
    for namespace in reversed(parts[:-1]):
        if namespace not in _BLAND_NAMESPACES:
            return f"{namespace}::{parts[-1]}"
    return "::".join(parts[-2:])


def _kernel_argument(targs: str) -> str:
    """The first template argument that names a kernel class rather than a type, a number or parameters."""
    for argument in split_top_level(targs):
        match = _TYPE_NAME.match(argument.strip())
        if not match:
            continue
        name = match.group(1)
        if _DATA_ARGUMENT.search(name) or name in _GENERIC_BASES or name in _PLUMBING:
            continue
        return name
    return ""


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
    """``std::enable_if<…>::type vllm::fused_add_rms_norm_kernel<…>``: the name is the last top-level word.

    Only when that word is a C++ name: "Torch-Compiled Region: 0/0" is a label, not a signature.
    """
    cut = last_top_level_space(text)
    if cut <= 0:
        return text
    tail = text[cut + 1 :]
    return tail if _QUALIFIED.match(tail) else text


def _op(targs: str) -> str:
    """The op inside a kernel's template arguments: its functor, or the function of its lambda."""
    if not targs:
        return ""
    candidates = [(m.start(), m.group(1)) for m in _FUNCTION.finditer(targs)]
    candidates += [(m.start(), m.group(1)) for m in _FUNCTOR.finditer(targs)]
    for _, candidate in sorted(candidates):
        if candidate not in _PLUMBING and candidate not in _KEYWORDS:
            op = _clean_op(candidate)
            if op not in _MEANINGLESS_OPS:
                return op
    return ""


def _clean_op(name: str) -> str:
    """The op's own name: ``CUDAFunctor_add`` -> ``add``, ``direct_copy_kernel_cuda`` -> ``direct_copy``.

    Wrapping prefixes and suffixes come in any order, so strip until none is left; suffixes first, so that
    a name that is only prefix and suffix (``CompareFunctor``) keeps its prefix rather than its suffix.
    """
    changed = True
    while changed:
        changed = False
        for suffix in _OP_SUFFIXES:
            if name.endswith(suffix) and len(name) > len(suffix):
                name, changed = name[: -len(suffix)], True
        if (match := _OP_PREFIX.match(name)) and match.end() < len(name):
            name, changed = name[match.end() :], True
    snake = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", name)
    return snake.strip("_").lower()


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
