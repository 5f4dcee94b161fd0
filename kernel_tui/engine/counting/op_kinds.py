"""Which operators move data: views and allocations launch nothing, everything else does some work.

Decided from the operator's schema (a view returns an alias of an input and writes nothing), so new
view ops are recognised without a list; the few exceptions are named in ``events.ALLOCATION_OPS``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import torch

from kernel_tui.engine.counting.events import ALLOCATION_OPS
from kernel_tui.model.names.names import is_generated_kernel

FUSED_LAYERS = frozenset({"aten::_transformer_encoder_layer_fwd", "aten::_native_multi_head_attention"})
"""PyTorch's fast path for an eval-mode transformer layer under no_grad: one operator to the dispatcher and to
Inductor (which leaves it as it is), whose CPU and CUDA code calls ATen operators for its projections,
attention, norms and feed-forward, each a pass over memory of its own (and a launch each on a GPU)."""


@functools.cache
def op_name(func: torch._ops.OpOverload) -> str:
    """The profiler's name of a dispatched operator, ``aten::add`` for ``torch.ops.aten.add.Tensor``: what byte
    records, FLOP counts and kernel rows are keyed by."""
    return f"{func.namespace}::{func._schema.name.split('::', 1)[-1]}"


def inductor_op_name(spelled: str) -> str:
    """An operator as Inductor spells a kernel's origins (``aten.add``, ``prims.iota``: its ``Original ATen``
    comment, the operator's overload packet), as compiled kernel rows name it: ATen's in the profiler's spelling
    (``aten::add``), the others as Inductor spells them."""
    return spelled.replace("aten.", "aten::", 1)


@functools.lru_cache(maxsize=4096)
def moves_data(name: str) -> bool:
    """True for an operator (``aten::add``) or Inductor kernel that reads or writes tensor memory."""
    if is_generated_kernel(name):
        return True
    if name in ALLOCATION_OPS or name.startswith("aten::empty"):
        return False
    if name.startswith("aten::unsafe_"):
        # unsafe_split is split with its outputs' aliasing left out of the schema: the same views.
        return moves_data(name.replace("unsafe_", "", 1))
    try:
        schemas = torch._C._jit_get_schemas_for_operator(name)
    except RuntimeError:
        schemas = []
    if schemas and not any(_may_touch_tensors(schema) for schema in schemas):
        return False  # a profiler range's enter and exit
    # Overloads on strings or scalars (aten::slice.str) say nothing about tensor memory.
    schemas = [s for s in schemas if any("Tensor" in str(ret.type) for ret in s.returns)]
    if not schemas:
        return True
    return not all(_is_view_schema(schema) for schema in schemas)


def _may_touch_tensors(schema: torch._C.FunctionSchema) -> bool:
    """Whether an overload may read or write tensor memory: not when it takes and returns no tensor, nor when it
    returns nothing and writes none of its arguments (``profiler::_record_function_exit(Tensor handle) -> ()``)."""
    if not schema.returns and not any(
        arg.alias_info is not None and arg.alias_info.is_write for arg in schema.arguments
    ):
        return False
    return any("Tensor" in str(item.type) for item in (*schema.arguments, *schema.returns))


def _is_view_schema(schema: torch._C.FunctionSchema) -> bool:
    if any(arg.alias_info is not None and arg.alias_info.is_write for arg in schema.arguments):
        # In-place ops write their input; only the in-place *view* ops (t_, squeeze_) are metadata.
        return schema.name.endswith("_") and _is_inplace_view(schema)
    return bool(schema.returns) and all(ret.alias_info is not None for ret in schema.returns)


def _is_inplace_view(schema: torch._C.FunctionSchema) -> bool:
    namespace, _, op_name = schema.name.partition("::")
    packet = getattr(getattr(torch.ops, namespace, None), op_name, None)
    if packet is None:
        return False
    overload = getattr(packet, schema.overload_name or "default", None)
    return overload is not None and torch.Tag.inplace_view in overload.tags


@functools.lru_cache(maxsize=4096)
def has_cpu_kernel(name: str) -> bool:
    """Whether some overload of the operator has a CPU kernel of its own: then it is one pass over memory,
    whatever helpers it calls; without one (``aten::logsumexp``) it is the operators it runs, and so is a fused
    layer, whose kernel does no work of its own but call them."""
    if name in FUSED_LAYERS:
        return False
    kernels = _per_overload(name, lambda overload: _has_kernel(overload, "CPU"))
    return kernels is None or any(kernels)


@functools.lru_cache(maxsize=4096)
def is_composition(name: str) -> bool:
    """Whether every overload of the operator is only a composition of other operators (``dropout``): its work
    is theirs, and with none it did none."""
    compositions = _per_overload(name, only_composition) or []
    return bool(compositions) and all(compositions)


@functools.lru_cache(maxsize=4096)
def seen_through(name: str) -> bool:
    """Whether a dispatch mode sees the operators this one runs rather than the operator itself: the dispatcher
    decomposes it before the mode (an overload that is only a composition, as ``linear``'s is), or the engine's
    modes look inside it (a fused layer)."""
    return name in FUSED_LAYERS or any(_per_overload(name, only_composition) or ())


_OWN_KERNELS = ("CPU", "CUDA", "CompositeExplicitAutograd")
"""Where an operator's kernel of its own is registered: for a CPU or a GPU, or for every device."""


@functools.lru_cache(maxsize=8192)
def only_composition(overload: str) -> bool | None:
    """Whether one dispatcher overload (``aten::linear``, ``aten::add.Tensor``) runs only its composition of
    others: a ``CompositeImplicitAutograd`` kernel and no kernel of its own (``silu_backward`` has both, and runs
    its own); None for one the dispatcher does not hold (``prim::device``)."""
    composition = _has_kernel(overload, "CompositeImplicitAutograd")
    if not composition:
        return composition
    return not any(_has_kernel(overload, key) for key in _OWN_KERNELS)


def _has_kernel(overload: str, key: str) -> bool | None:
    try:
        return bool(torch._C._dispatch_has_kernel_for_dispatch_key(overload, key))
    except RuntimeError:  # a TorchScript-only overload (aten::sum.int) or no dispatcher operator at all
        return None


def _per_overload(name: str, answer: Callable[[str], bool | None]) -> list[bool] | None:
    """``answer`` for each dispatcher overload of the operator; None for a name the JIT does not know."""
    try:
        schemas = torch._C._jit_get_schemas_for_operator(name)
    except RuntimeError:
        return None
    answers = []
    for schema in schemas:
        result = answer(f"{name}.{schema.overload_name}" if schema.overload_name else name)
        if result is not None:
            answers.append(result)
    return answers
