"""A boundary between two compiled kernels: one writes a buffer the other reads, so the value passes through
memory, and the reason they stayed apart, in the learner's words and in Inductor's own.

Plain data, no torch: the engine fills it (``engine.compiler.boundaries``), the report carries it (``ModeResult.
boundaries``), the tables, the gutter, ``--by-line`` and the lab report show it.
"""

from __future__ import annotations

from dataclasses import dataclass

KINDS = {
    "library": "a library call (a BLAS, mkldnn, cuBLAS) takes no code of Inductor's before or after it",
    "template": "a matmul template Inductor wrote did not take this epilogue",
    "reduction": "a reduction's result is needed whole before the next loop, which has another size",
    "sizes": "the two loops run over different numbers of elements",
    "mutation": "one of them writes in place into a buffer the other reads",
    "graph_break": "the two are in different compiled graphs, with eager code between them",
    "order": "other work must run between them",
    "too_many": "the fused kernel would hold too many operations",
    "device": "they run on different devices",
    "declined": "Inductor's scheduler declined for a reason of its own (its text says which)",
}
"""Each kind of reason, in a sentence; a boundary's ``kind`` is one of these keys."""


@dataclass(frozen=True)
class Boundary:
    """Two compiled kernels of one run of ``fn`` that pass a value through memory, and why they are two."""

    producer: str
    """The kernel that writes the buffer (a generated kernel's name, or a library call's ``aten::mm``)."""
    consumer: str
    """The kernel that reads it."""
    buffer: str
    """Inductor's name of the buffer (``buf0``); for a graph break, the value handed from graph to graph."""
    buffer_bytes: int | None
    """Bytes of that buffer: what goes to memory and back because the two kernels are apart."""
    kind: str
    """One of ``KINDS``."""
    reason: str
    """Why, in the learner's words."""
    inductor: str
    """Inductor's own text (its scheduler's ``WhyNoFuse``, or Dynamo's graph break reason)."""
    lines: tuple[int, ...] = ()
    """Lines of the scenario file whose work is the consumer's: the line that stayed apart."""
    experiment: str | None = None
    """A compile variant that could change this boundary (``max_autotune``), or None where none would."""


EXPERIMENTS: dict[str, dict[str, object]] = {
    "max_autotune": {"options": {"max_autotune": True}},
    "epilogue_fusion": {"options": {"max_autotune": True, "epilogue_fusion": True}},
    "bigger_fusions": {"options": {"max_fusion_size": 256}},
    "fullgraph": {"fullgraph": True},
    "dynamic": {"dynamic": True},
}
"""The ``torch.compile`` arguments of each experiment a boundary or a verdict may name: a compile variant to run
with one key (``kernel-tui run --variant NAME=...``, or the explorer's ``x``), to see whether the kernels change."""


def experiment_flag(name: str) -> str:
    """The ``--variant`` flag that runs the experiment ``name``: ``dynamic=dynamic:True``."""
    arguments = ",".join(f"{key}:{value!r}" for key, value in EXPERIMENTS[name].items())
    return f"{name}={arguments}"
