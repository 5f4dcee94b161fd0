"""Which forward operators a training step's compiled backward runs again instead of keeping their results.

AOTAutograd traces forward and backward as one joint graph, tagging each node ``is_forward`` or ``is_backward``
(``partitioner_tag``); its partitioner (``min_cut_rematerialization_partition``, Inductor's) then chooses, for each
value backward needs, between saving it in forward and recomputing it in backward from what is saved anyway. A
forward node it recomputes is copied into the backward graph with its tag: those nodes are the answer, read
from the partitioner itself rather than guessed from kernel names.

The measured step is compiled by Inductor, whose caches may skip the partitioner altogether; so the step is
partitioned once more here by ``aot_function`` (no Dynamo: no cache entry, no recompile of the measured code),
on fake tensors of the inputs' shapes, with the partitioner and decompositions Inductor uses.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import torch
from torch._subclasses.fake_tensor import FakeTensorMode

from kernel_tui.engine.counting.flops import node_flops
from kernel_tui.engine.counting.op_kinds import moves_data, op_name


def recomputed_work(backward: torch.fx.GraphModule) -> tuple[tuple[str, int | None], ...]:
    """The FLOPs of the forward work a partitioned backward graph recomputes, per operator as Inductor names the
    kernels that do it (the node's ``original_aten``: ``aten::native_layer_norm`` for the decomposed mean and
    variance), each node counted by ``flops.node_flops`` on the shapes it was traced with; None where one is not."""
    work: dict[str, int | None] = {}
    for node in _recomputed_nodes(backward):
        original = node.meta.get("original_aten")
        name = op_name(original if isinstance(original, torch._ops.OpOverload) else node.target)
        flops = node_flops(node)
        previous = work.get(name, 0)
        work[name] = None if previous is None or flops is None else previous + flops
    return tuple(work.items())


def recomputed_in(backward: torch.fx.GraphModule) -> tuple[str, ...]:
    """The forward operators a partitioned backward graph recomputes (``aten::tanh``), in graph order, once each;
    views and aliases, which compute nothing, left out."""
    return tuple(dict.fromkeys(op_name(node.target) for node in _recomputed_nodes(backward)))


def _recomputed_nodes(backward: torch.fx.GraphModule) -> Iterator[torch.fx.Node]:
    """The nodes of a partitioned backward graph that compute forward values again: forward-tagged operators
    that move data (views and aliases compute nothing)."""
    for node in backward.graph.nodes:
        if node.op != "call_function" or node.meta.get("partitioner_tag") != "is_forward":
            continue
        if isinstance(node.target, torch._ops.OpOverload) and moves_data(op_name(node.target)):
            yield node


def partitioned_recompute(
    forward_and_loss: Callable[..., torch.Tensor], args: tuple[Any, ...]
) -> tuple[tuple[str, ...], tuple[tuple[str, int | None], ...]]:
    """What Inductor's partitioner recomputes in backward for a step whose forward (loss included) is
    ``forward_and_loss``: the operators (``recomputed_in``) and their work (``recomputed_work``); both () when the
    step cannot be traced as one graph (a graph break, data-dependent code): then the compiled step's own graphs
    are the only record, and they are not kept."""
    from functorch.compile import aot_function, make_boxed_func
    from torch._functorch.partitioners import min_cut_rematerialization_partition
    from torch._inductor.decomposition import select_decomp_table

    graphs: list[torch.fx.GraphModule] = []

    def keep_backward(gm: torch.fx.GraphModule, example_inputs: list[Any]) -> Any:
        graphs.append(gm)
        return make_boxed_func(gm)

    traced = aot_function(
        forward_and_loss,
        fw_compiler=lambda gm, example_inputs: make_boxed_func(gm),
        bw_compiler=keep_backward,
        partition_fn=min_cut_rematerialization_partition,
        decompositions=select_decomp_table(),
    )
    fake_mode = FakeTensorMode()
    fakes = tuple(_fake_like(arg, fake_mode) for arg in args)
    try:
        with fake_mode, torch.enable_grad():
            loss = traced(*fakes)
            loss.backward(torch.ones_like(loss))
    except Exception:  # noqa: BLE001 - not traceable as one graph: nothing to read, the measurement stands
        return (), ()
    return (recomputed_in(graphs[0]), recomputed_work(graphs[0])) if graphs else ((), ())


def _fake_like(value: Any, fake_mode: FakeTensorMode) -> Any:
    if not isinstance(value, torch.Tensor):
        return value
    fake = fake_mode.from_tensor(value.detach())  # outside the mode: a real tensor is its input
    return fake.requires_grad_(value.requires_grad) if value.is_floating_point() else fake
