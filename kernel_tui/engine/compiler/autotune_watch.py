"""What a max-autotune compile tuned: each operation's candidates with their times, as Inductor's own benchmark
gave them, read from ``AlgorithmSelectorCache``'s feedback savers.

Inductor calls every function of ``feedback_saver_fns`` once per tuned operation, with the timings it chose by
(measured now, or read from its autotune cache: the same numbers either way), the operation's name and its input
nodes. The hook and its arguments are the same on torch 2.11 to 2.14 (``torch/_inductor/select_algorithm.py``).
A compile answered by the FX graph cache lowers nothing and so tunes nothing where anyone can see it: a watched
compile bypasses that cache (``watching``), so its tuning is seen on every run, not only a cold one.

On a CPU the candidates are ATen's library call and Inductor's C++ template (``max_autotune_gemm_backends``'
``CPP``), and only where a template applies: a float32 batched matmul (``bmm``), or a matmul whose weight is a
constant (``freezing``). A plain ``mm`` of two inputs has one candidate, so nothing is tuned. A GPU adds Triton
templates, tens of block-size configurations per operation.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterator
from typing import Any

from torch._inductor import config as inductor_config
from torch._inductor import select_algorithm

from kernel_tui.model.report.compile_variants import LIBRARY, TEMPLATE, TunedChoice, TunedOperation

TUNING_MODES = ("max-autotune", "max-autotune-no-cudagraphs")
TUNING_OPTIONS = ("max_autotune", "max_autotune_gemm")


def asks_for_tuning(options: dict[str, Any]) -> bool:
    """Whether ``torch.compile`` arguments turn on max-autotune for matmuls (its mode or its Inductor options)."""
    inductor = options.get("options") or {}
    return options.get("mode") in TUNING_MODES or any(bool(inductor.get(key)) for key in TUNING_OPTIONS)


def nothing_tuned(device: str) -> str:
    """A tuning variant's note where no operation had more than one candidate to time."""
    if device == "cuda":
        return "max-autotune tuned nothing: no operation here had more than one candidate kernel"
    return (
        "max-autotune tuned nothing here: no operation had two candidates to time (on a CPU, ATen's call and the "
        "CPP backend's C++ template, which only a float32 bmm or a matmul whose weight is a constant under "
        "freezing has); a GPU also times Triton templates"
    )


class AutotuneWatch:
    """The operations tuned while it watches (``watching``), in the order Inductor tuned them."""

    def __init__(self) -> None:
        self.tuned: list[TunedOperation] = []

    def _saw(
        self,
        timings: dict[Any, float],
        name: str,
        input_nodes: list[Any],
        choices: list[Any],
        profiled: Any,
        precompile_times: Any,
    ) -> None:
        del choices, profiled, precompile_times  # the timings hold every candidate that ran
        found = [_choice(choice, seconds) for choice, seconds in timings.items()]
        found.sort(key=lambda choice: math.inf if choice.time_ms is None else choice.time_ms)
        self.tuned.append(TunedOperation(name, tuple(_shape(node) for node in input_nodes), tuple(found)))


@contextlib.contextmanager
def watching(options: dict[str, Any]) -> Iterator[AutotuneWatch | None]:
    """An ``AutotuneWatch`` over the compile of a block, for ``options`` that ask for tuning; None for others."""
    if not asks_for_tuning(options):
        yield None
        return
    watch = AutotuneWatch()
    cache = select_algorithm.get_algorithm_selector_cache()
    cache.add_feedback_saver(watch._saw)
    try:
        with inductor_config.patch(fx_graph_cache=False):
            yield watch
    finally:
        # Only this watch's saver goes: ``clear_feedback_savers`` would take anyone else's too.
        cache.feedback_saver_fns = [saver for saver in cache.feedback_saver_fns if saver != watch._saw]


def _choice(choice: Any, time_ms: float) -> TunedChoice:
    kind = LIBRARY if isinstance(choice, select_algorithm.ExternKernelCaller) else TEMPLATE
    description = str(getattr(choice, "description", "") or "")
    return TunedChoice(str(choice.name), kind, time_ms if math.isfinite(time_ms) else None, description)


def _shape(node: Any) -> tuple[int, ...]:
    try:
        return tuple(int(size) for size in node.get_size())
    except (TypeError, ValueError, AttributeError):  # a symbolic size (dynamic=True) has no number
        return ()
