"""Executing a scenario file and calling its ``inputs`` and ``fn``, with errors that name file, line and stage."""

from __future__ import annotations

import ast
import contextlib
import hashlib
import linecache
import re
import sys
import traceback
import types
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import torch

from kernel_tui.engine.stages.scenario_weights import Placement, on_device, place_weights, run_dtype, used_weights
from kernel_tui.engine.stages.signature import describe_value, output_tensors
from kernel_tui.model.report.report import ScenarioError
from kernel_tui.model.scenario.scenario_file import ScenarioFileError, ScenarioInfo, parse_scenario, read_source
from kernel_tui.model.scenario.snippet import snippet_module

SCENARIO_SHAPE = (
    "A scenario defines fn(*args), the code under study, and inputs(size, device), which returns the tuple of\n"
    "tensors (and nn.Modules) fn takes; modules fn uses may also live at module level. A file holding only an\n"
    "expression such as (a + b).relu() works too. See scenarios/README.md."
)


class StageError(Exception):
    """A failure in one stage of measuring a scenario, already turned into a ScenarioError.

    Every error carries details for the one key away: the traceback, or else the lines of the file around
    the one it names."""

    def __init__(self, error: ScenarioError) -> None:
        if not error.details:
            error = replace(error, details=_source_context(error) or SCENARIO_SHAPE)
        super().__init__(error.one_line())
        self.error = error


def _source_context(error: ScenarioError, around: int = 2) -> str:
    if error.file is None or error.line is None:
        return ""
    # The text that ran (load_scenario keeps it in linecache), else the file's.
    ran = linecache.cache.get(error.file)
    try:
        lines = (
            [line.rstrip("\n") for line in ran[2]] if ran and len(ran) == 4 else read_source(error.file).splitlines()
        )
    except ScenarioFileError:
        return ""
    first, last = max(error.line - around, 1), min(error.line + around, len(lines))
    shown = [f"{'>' if n == error.line else ' '} {n:4} | {lines[n - 1]}" for n in range(first, last + 1)]
    return f"{error.message}\n\n" + "\n".join(shown)


USER_ERRORS = (Exception, SystemExit, KeyboardInterrupt)
"""What a scenario may raise and have reported as its error: ``sys.exit()`` in ``fn`` included. Anything
else (GeneratorExit and the like) is no scenario's to raise."""


def stage_error(stage: str, path: Path, exc: BaseException) -> StageError:
    """Wrap ``exc`` raised while running the scenario at ``path``; the line is the scenario's own."""
    line = getattr(exc, "line", None)
    if not isinstance(line, int):
        line = None
    if isinstance(exc, SyntaxError) and exc.filename == str(path):
        line = exc.lineno
    for frame in traceback.extract_tb(exc.__traceback__):
        if frame.filename == str(path):
            line = frame.lineno  # the innermost frame in the scenario
    if type(exc).__module__.startswith("torch._dynamo"):
        # Dynamo traces fn without running it, so the traceback's frames stop at the call; the line it
        # could not trace is in its message ("from user code: File ..., line N").
        named = _lines_named_in(str(exc), path)
        if named:
            line = named[-1]
    text = str(exc) if not isinstance(exc, SystemExit) else f"sys.exit({exc.code!r})"
    message = f"{type(exc).__name__}: {text}".strip().splitlines()[0] if text else type(exc).__name__
    if NOT_FAKE in text:
        message = NOT_FAKE_ADVICE
    details = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    return StageError(ScenarioError(stage, message[:500], line, str(path), details))


NOT_FAKE = "Please convert all Tensors to FakeTensors first"
"""FakeTensorMode's words for a real tensor met in a CUDA preview, where every tensor must be a fake."""
NOT_FAKE_ADVICE = (
    "fn uses a real tensor the preview could not make a fake CUDA one: keep each module or tensor fn uses under a "
    "module-level name of its own (a list or dict of modules works too), or return it from inputs()"
)


def _lines_named_in(text: str, path: Path) -> list[int]:
    pattern = re.compile(r'File "' + re.escape(str(path)) + r'", line (\d+)')
    return [int(match.group(1)) for match in pattern.finditer(text)]


def with_grad(args: tuple[Any, ...]) -> tuple[Any, ...]:
    """Fresh leaves that require grad for the floating-point inputs: their ``.grad`` is what backward makes (a
    training step's, ``training``)."""
    return tuple(
        arg.detach().requires_grad_() if isinstance(arg, torch.Tensor) and arg.is_floating_point() else arg
        for arg in args
    )


@dataclass
class LoadedScenario:
    info: ScenarioInfo
    module: types.ModuleType
    compiled_fn: Any = None
    """``torch.compile(fn)`` once the compile stage made it; the sweep goes on with the same one."""
    source: str | None = None
    """The text that was run: the file may be edited while it runs, and the report quotes this."""

    @property
    def path(self) -> Path:
        return self.info.path

    weights: tuple[torch.Tensor, ...] = ()
    """The parameters, buffers and module-level tensors ``fn`` uses, as placed for the last inputs made."""

    def make_inputs(self, size: int, device: str, placement: Placement | None = None) -> tuple[Any, ...]:
        """``inputs(size, device)``, checked, then every weight ``fn`` uses placed by ``placement`` (moved to
        ``device`` by default). Only after ``inputs()``: a preview's fake parameter cannot be moved by its module's
        own ``.to()`` (torch swaps a fake parameter, and the fake mode's weak reference to it forbids the swap),
        while a real one the scenario moved itself is left as it is."""
        placement = placement or on_device(device)
        try:
            args = self.module.inputs(size, device)
        except USER_ERRORS as exc:  # any failure of user code is reported, not raised
            raise stage_error("inputs", self.path, exc) from exc
        if isinstance(args, torch.Tensor):
            args = (args,)
        if not isinstance(args, (tuple, list)) or not args:
            raise self._contract("inputs", f"inputs() must return a tuple of tensors, not {type(args).__name__}", args)
        for position, value in enumerate(args):
            # A snippet's set-up may hand its last line a number or a module: its inputs() are ours, not the
            # learner's, and fn() takes what the set-up made.
            if not isinstance(value, (torch.Tensor, torch.nn.Module)) and not self.info.is_snippet:
                raise self._contract(
                    "inputs",
                    f"inputs() returned a {type(value).__name__} at position {position}, not a tensor or nn.Module",
                    args,
                )
            if isinstance(value, torch.Tensor) and value.device.type == "meta":
                # A meta tensor has a shape and no data: fn would "run" without computing anything, and the
                # report would time nothing and call it a speed-up.
                raise self._contract(
                    "inputs",
                    f"inputs() returned a tensor on the meta device at position {position}: it holds "
                    f"no data, so nothing would be computed; make it on the device asked for ({device!r})",
                    args,
                )
        args = with_grad(tuple(args)) if self.info.train else tuple(args)
        self.place(args, placement)
        return args

    def place(self, args: tuple[Any, ...], placement: Placement) -> None:
        """Place the weights ``fn`` uses with ``args`` (``scenario_weights``), in the inputs' dtype."""
        used = used_weights(self.module.fn, self.module.__dict__, args)
        place_weights(used, self.module.__dict__, placement, run_dtype(args))
        self.weights = used.tensors(self.module.__dict__)

    def call(self, fn: Any, args: tuple[Any, ...], stage: str) -> Any:
        try:
            with torch.no_grad():
                out = fn(*args)
        except USER_ERRORS as exc:
            raise stage_error(stage, self.path, exc) from exc
        if not output_tensors(out):
            raise self._contract(
                stage,
                "fn() must return a tensor, or a tuple, list, dict or dataclass holding one, not "
                f"{describe_value(out) if isinstance(out, (tuple, list, dict)) else type(out).__name__}",
                out,
            )
        return out

    def _contract(self, stage: str, message: str, returned: Any = None) -> StageError:
        name = "inputs" if stage == "inputs" else "fn"
        line = getattr(getattr(getattr(self.module, name, None), "__code__", None), "co_firstlineno", None)
        details = f"{message}\n\nIt returned: {returned!r:.500}\n\n{SCENARIO_SHAPE}"
        return StageError(ScenarioError(stage, message, line, str(self.path), details))


@contextlib.contextmanager
def _own_folder_on_path(path: Path) -> Iterator[None]:
    """A scenario may import modules next to it; only while it loads, and after the standard library and
    installed packages, so that its folder's random.py or copy.py never stands in for theirs."""
    folder = str(path.resolve().parent)
    added = folder not in sys.path
    if added:
        sys.path.append(folder)
    try:
        yield
    finally:
        if added and folder in sys.path:
            sys.path.remove(folder)


SCENARIO_MODULE_PREFIX = "kernel_tui_scenario_"


def scenario_module_name(path: Path) -> str:
    """The name a scenario's module is registered under: one per file, the same for each run of it and in every
    process (not ``hash()``, salted per process): a training step's compiled graph reaches the file's globals by
    it (``G['__import_kernel_tui_scenario_…']``), and the watched compile's cache (``boundary_cache``) is keyed on
    that graph's code."""
    return f"{SCENARIO_MODULE_PREFIX}{hashlib.sha256(str(path).encode()).hexdigest()[:16]}"


def load_scenario(path: Path) -> LoadedScenario:
    """Read, check and execute a scenario file; raises StageError at stage ``load``."""
    try:
        source = read_source(path)
        info = parse_scenario(source, path)
    except ScenarioFileError as exc:
        raise StageError(ScenarioError("load", str(exc), exc.line, str(path))) from exc
    module = types.ModuleType(scenario_module_name(path))
    module.__file__ = str(path)
    # Registered as an import would be: Dynamo before torch 2.14 imports the module of every function it
    # inlines (a training step's fn reading F or a constant), and pickle and inspect look there too. The
    # engine ends after this one scenario, and the module with it.
    sys.modules[module.__name__] = module
    # Tracebacks quote the text that runs, not the file as it is when they are formatted (no mtime: kept).
    linecache.cache[str(path)] = (len(source), None, source.splitlines(keepends=True), str(path))
    try:
        tree = ast.parse(source, str(path))
        code = compile(snippet_module(tree) if info.is_snippet else tree, str(path), "exec")
        with _own_folder_on_path(path):
            exec(code, module.__dict__)  # running the user's scenario is the point
    except USER_ERRORS as exc:
        _unregister(module)
        raise stage_error("load", path, exc) from exc
    for name in ("fn", "inputs"):
        if not callable(getattr(module, name, None)):
            _unregister(module)
            raise StageError(ScenarioError("load", f"the scenario defines no function {name}()", None, str(path)))
    return LoadedScenario(info, module, source=source)


def _unregister(module: types.ModuleType) -> None:
    """As a failed import leaves nothing behind."""
    if sys.modules.get(module.__name__) is module:
        del sys.modules[module.__name__]
