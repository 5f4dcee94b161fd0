"""A training step: ``fn``, its loss and ``backward()``, measured eager and compiled like any ``fn``.

A scenario with ``TRAIN = True`` is measured as one step: its floating-point inputs require grad, ``fn``
runs, ``loss(output)`` (``output.float().sum()`` by default) turns its result into a scalar, and
``backward()`` fills each input's ``.grad``. Compiled, ``fn`` and the loss are compiled together, so
AOTAutograd splits them into a forward graph and a backward graph, each compiled by Inductor; ``backward()``
itself stays outside the compiled code, as in a training loop.

Every kernel of a step belongs to its ``forward`` (the loss included) or its ``backward``: the one whose
launching operator runs inside the ``BACKWARD_RANGE`` annotation around ``backward()``, or inside a node of
the autograd engine (on CUDA the engine runs those on a thread of its own, outside every annotation).

What forward saves for backward is read from ``saved_tensors_hooks``, which sees both eager autograd's saved
tensors and those AOTAutograd's compiled function saves through ``ctx.save_for_backward``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, cast

import torch
from torch.profiler import record_function

from kernel_tui.engine.counting import cuda_graphs
from kernel_tui.engine.counting import events as ev
from kernel_tui.engine.counting.op_kinds import FUSED_LAYERS
from kernel_tui.engine.counting.profiling import Profile, kernel_rows
from kernel_tui.engine.stages.signature import describe_value, output_tensors
from kernel_tui.model.report.report_keys import SECTIONS

if TYPE_CHECKING:
    from kernel_tui.engine.counting.traffic import Traffic
    from kernel_tui.engine.stages.loader import LoadedScenario
    from kernel_tui.model.report.kernel import Kernel
    from kernel_tui.model.report.mode_result import ModeResult

NO_GRADIENT = (
    "TRAIN = True, but the loss depends on no floating-point input of fn, so backward has nothing to compute: "
    "inputs() must return a floating-point tensor that fn's result is computed from"
)


def own_loss(output: Any) -> torch.Tensor | None:
    """The loss the model computed itself: a tensor under the key or field ``loss`` of what it returned (a
    Hugging Face ``ModelOutput``'s, a dict's, a dataclass's, a named tuple's); None without one. An unnamed
    scalar in a tuple (nanoGPT's ``(logits, loss)``) is not taken for one: nothing says it is the loss."""
    part = output.get("loss") if isinstance(output, Mapping) else getattr(output, "loss", None)
    return part if isinstance(part, torch.Tensor) and part.is_floating_point() else None


def differentiated(output: Any) -> str:
    """What a training step's default loss differentiates, in words, for the report's notes."""
    if own_loss(output) is not None:
        return "the training step differentiates the model's own loss (the loss it returned)"
    described = describe_value(output)
    return (
        f"the training step differentiates the sum of fn's floating-point outputs ({described}), as output."
        "float().sum(): fn returned no loss (a loss key or field); define loss(output) to choose one"
    )


def default_loss(output: Any) -> torch.Tensor:
    """The model's own loss (``own_loss``) where it returned one, else a scalar that depends on every element
    of every floating-point output, in float32 whatever their dtype."""
    own = own_loss(output)
    if own is not None:
        return own if own.dim() == 0 else own.float().sum()
    leaves = output_tensors(output)
    # An integer output (an argmax's indices) has no gradient; with nothing else, its sum says so (NO_GRADIENT).
    leaves = [leaf for leaf in leaves if leaf.is_floating_point() or leaf.is_complex()] or leaves
    total: torch.Tensor = leaves[0].float().sum()
    for leaf in leaves[1:]:  # not sum(): its start, 0, would add one more kernel
        total = total + leaf.float().sum()
    return total


class TrainingStep:
    """One training step as a function of the inputs: forward and loss, then backward.

    Returns the loss and the gradients, so the step's result (and its ideal bytes) includes what backward
    writes. Each step starts by dropping the previous step's gradients, so every step allocates and writes
    them alike instead of accumulating into them. ``weights`` gives the parameters ``fn`` uses besides its
    arguments (``LoadedScenario.weights``): a model's step differentiates them too."""

    def __init__(
        self, forward_and_loss: Callable[..., torch.Tensor], weights: Callable[[], Sequence[torch.Tensor]] = tuple
    ) -> None:
        self.forward_and_loss = forward_and_loss
        self.weights = weights
        self.__wrapped__ = forward_and_loss  # inspect.signature reads fn's parameters through it
        self._seed: torch.Tensor | None = None

    def leaves(self, args: tuple[Any, ...]) -> list[torch.Tensor]:
        """What backward fills a ``.grad`` of: the arguments and the weights that require grad, each once."""
        tensors = [arg for arg in args if isinstance(arg, torch.Tensor)] + list(self.weights())
        return list({id(t): t for t in tensors if t.requires_grad}.values())

    def __call__(self, *args: Any) -> tuple[torch.Tensor, ...]:
        leaves = self.leaves(args)
        for leaf in leaves:
            leaf.grad = None
        with torch.enable_grad():
            loss = self.forward_and_loss(*args)
            if not loss.requires_grad:
                raise ValueError(NO_GRADIENT)
            with record_function(ev.BACKWARD_RANGE):
                # The seed gradient made once: ``loss.backward()`` would fill a new one every step.
                torch.autograd.backward(loss, self._seed_like(loss))
        return (loss.detach(), *(leaf.grad for leaf in leaves if leaf.grad is not None))

    def _seed_like(self, loss: torch.Tensor) -> torch.Tensor:
        if self._seed is None or self._seed.shape != loss.shape or self._seed.device != loss.device:
            self._seed = torch.ones_like(loss, requires_grad=False)
        return self._seed


def loss_note(scenario: LoadedScenario, args: tuple[Any, ...]) -> tuple[str, ...]:
    """What a training step differentiates (``differentiated``) when the file defines no ``loss`` of its own;
    read from one more call of ``fn``, outside every measurement."""
    if not scenario.info.train or scenario.info.has_loss:
        return ()
    return (differentiated(scenario.call(scenario.module.fn, args, "eager")),)


def forward_and_loss(scenario: LoadedScenario) -> Callable[..., torch.Tensor]:
    fn = scenario.module.fn
    loss = getattr(scenario.module, "loss", None) if scenario.info.has_loss else None
    loss = loss or default_loss

    @functools.wraps(fn)  # the step's arguments are fn's: its shapes line names them so
    def forward(*args: Any) -> torch.Tensor:
        return loss(fn(*args))

    return forward


def _as_is(fn: Any) -> Any:
    return fn


def measured_fn(scenario: LoadedScenario) -> Callable[..., Any]:
    """What is measured eagerly: ``fn``, or the training step around it."""
    if not scenario.info.train:
        return cast("Callable[..., Any]", scenario.module.fn)  # the loader refuses a module whose fn is not callable
    return TrainingStep(forward_and_loss(scenario), lambda: scenario.weights)


def compiled_fn(
    scenario: LoadedScenario,
    eager: Callable[..., Any],
    options: dict[str, Any] | None = None,
    compile_target: Callable[[Any], Any] = _as_is,
) -> Callable[..., Any]:
    """What is measured compiled: ``torch.compile(fn)``, or a step whose forward and loss are compiled; with
    the scenario's ``COMPILE`` options unless ``options`` are given (another way of compiling the same code).
    ``compile_target`` turns what is compiled into what torch.compile sees (a variant's fresh copy)."""
    options = scenario.info.compile_options if options is None else options
    if not isinstance(eager, TrainingStep):
        return torch.compile(compile_target(eager), **options)
    return TrainingStep(torch.compile(compile_target(eager.forward_and_loss), **options), eager.weights)


def traffic_twin(
    scenario: LoadedScenario,
    measured: Callable[..., Any],
    device: str,
    args: tuple[Any, ...],
    options: dict[str, Any] | None = None,
    compile_target: Callable[[Any], Any] = _as_is,
) -> Any:
    """What the compiled kernels' bytes are read from under CUDA graphs (``cuda_graphs``), compiled as
    ``compiled_fn`` compiles: for a step, a step around the twin of its forward and loss, warmed as a step so
    that its backward graph exists too. ``options`` and ``compile_target`` as for ``compiled_fn``."""
    options = scenario.info.compile_options if options is None else options
    return cuda_graphs.traffic_twin(
        lambda twin_options: compiled_fn(scenario, measured, twin_options, compile_target), options, device, args
    )


def section_of(launch: ev.Launch) -> str:
    """``backward`` when the operator that launched it ran inside ``backward()`` or an autograd node."""
    node = launch.op_event
    while node is not None:
        if node.name == ev.BACKWARD_RANGE or node.name.startswith(ev.AUTOGRAD_NODE):
            return "backward"
        if node.name == ev.RUN_RANGE:
            return "forward"
        node = node.cpu_parent
    return "forward"


def sectioned_rows(profiled: Profile, joined: Sequence[Traffic | None]) -> list[Kernel]:
    """Kernel rows per section, forward first: a kernel that runs in both (a copy) is a row in each."""
    reference = profiled.reference
    rows: list[Kernel] = []
    for section in SECTIONS:
        per_run = [[launch for launch in run if section_of(launch) == section] for run in profiled.agreeing]
        mine = [(launch, record) for launch, record in zip(reference, joined) if section_of(launch) == section]
        section_rows = kernel_rows(per_run, [record for _, record in mine], [launch for launch, _ in mine])
        rows.extend(replace(row, section=section) for row in section_rows)
    return rows


def with_section_totals(mode: ModeResult) -> ModeResult:
    """Launches and bytes per section, from the rows. A composite's later pass with no bytes of its own does not
    make the total unknown: the dispatcher saw the composite whole, and its bytes are on its first pass."""
    totals: dict[str, Any] = {}
    for section in SECTIONS:
        kernels = mode.section(section)
        known = [kernel.bytes_total for kernel in kernels if not _on_its_first_pass(kernel)]
        totals[f"{section}_launches"] = sum(kernel.calls for kernel in kernels)
        totals[f"{section}_bytes"] = None if None in known else sum(b for b in known if b is not None)
    return replace(mode, **totals)


def _on_its_first_pass(kernel: Kernel) -> bool:
    """A later pass of a composite the dispatcher saw whole, with no bytes of its own: they are on the first
    pass. (A fused layer's passes each have a record: one without bytes is unknown.)"""
    return kernel.bytes_total is None and kernel.composite is not None and kernel.composite not in FUSED_LAYERS


def saved_bytes(step: Callable[..., Any], args: tuple[Any, ...]) -> int | None:
    """Bytes of the distinct storages forward saves for backward, the inputs' and weights' own excluded; None
    for a forward-only ``fn``. Runs one step (untimed, unprofiled)."""
    if not isinstance(step, TrainingStep):
        return None
    tensors = [arg for arg in args if isinstance(arg, torch.Tensor)] + list(step.weights())
    inputs = {_storage_key(tensor) for tensor in tensors}
    saved: dict[Any, int] = {}

    def pack(tensor: torch.Tensor) -> torch.Tensor:
        key = _storage_key(tensor)
        if key not in inputs:
            saved.setdefault(key, tensor.untyped_storage().nbytes())
        return tensor

    with torch.autograd.graph.saved_tensors_hooks(pack, _unpack):
        step(*args)
    return sum(saved.values())


def _unpack(tensor: torch.Tensor) -> torch.Tensor:
    return tensor


def _storage_key(tensor: torch.Tensor) -> Any:
    # The storage itself, not its address: a fake tensor (the CUDA preview) has none, every one reads 0.
    return (tensor.device, tensor.untyped_storage()._cdata)
