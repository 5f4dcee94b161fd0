"""Which lines of the scenario file each dispatched operator came from, forward and backward, and why not
when none did.

Forward, the lines are read from the Python stack: every frame of the scenario file inside the measured call,
innermost first, so that an operator a helper runs carries the helper's line and the line of ``fn`` that
called the helper. Backward runs inside autograd's engine, far from any line of the file: each operator there
belongs to the autograd node that runs it, and the node keeps the stack of the forward operator that made it
(autograd's anomaly mode records it, without its NaN checks). So ``threshold_backward`` carries the line of the
``relu`` it differentiates. A leaf's ``AccumulateGrad`` (the copy into ``b.grad``) carries the lines that read
that input forward: the gradients it stores are theirs.

Where no line can be named, the record says why; it never guesses.
"""

from __future__ import annotations

import os
import re
import sys
import sysconfig
from collections.abc import Iterable
from types import FrameType
from typing import Any

import torch

import kernel_tui

DEFAULT_LOSS = (
    "the default loss (output.float().sum()), which the training step adds after fn: no line of the file runs it"
)
DEFAULT_LOSS_GRADIENT = "the gradient of the default loss (output.float().sum()): no line of the file runs it"
OUTSIDE = "torch ran it outside every line of the file (no frame of the scenario on the stack)"
NO_FORWARD_STACK = "autograd kept no forward stack for {node}, the backward step that ran it"
NOT_DISPATCHED = "the profiler's launch matched no operator the dispatcher saw, so no line is known"
NO_OPERATORS = "the generated code names no ATen operator for this kernel, so no line is known"
NOT_FROM_A_LINE = "its operators ({ops}) were not run by a line of the file"

_NOT_USERS = tuple(os.path.dirname(module.__file__ or "") + os.sep for module in (torch, kernel_tui)) + (
    sysconfig.get_paths()["stdlib"] + os.sep,
)
"""Where frames are not the user's: torch's package, kernel-tui's and Python's standard library."""
_DEFAULT_LOSS_FRAME = "default_loss"
_TRAINING_FILE = "training.py"
_ACCUMULATE = "AccumulateGrad"


class LineFinder:
    """Lines of ``source_file`` for each operator dispatched while it is active (``with``)."""

    def __init__(self, source_file: str | None) -> None:
        self.source_file = source_file
        self._outer: list[FrameType] = []
        self._outer_ids: set[int] = set()
        self._read_by: dict[Any, list[int]] = {}
        self._anomaly: Any = None

    def __enter__(self) -> LineFinder:
        # Frames already on the stack belong to whoever measures, not to the code measured. Held, not just their
        # ids: a frame that ends frees its id for the next one, which could be fn's.
        frame: FrameType | None = sys._getframe(1)
        while frame is not None:
            self._outer.append(frame)
            frame = frame.f_back
        self._outer_ids = {id(outer) for outer in self._outer}
        if self.source_file is not None:
            self._anomaly = torch.autograd.set_detect_anomaly(True, check_nan=False)
        return self

    def __exit__(self, *exc: object) -> None:
        self._outer.clear()
        self._outer_ids.clear()
        if self._anomaly is not None:
            self._anomaly.__exit__(None, None, None)
            self._anomaly = None

    def lines(self, read: Iterable[torch.Tensor], key: Any) -> tuple[tuple[int, ...], str | None]:
        """The lines that ran the operator being dispatched, which reads ``read`` (``key`` tells tensors
        apart); with no line, why."""
        if self.source_file is None:
            return (), None
        node = _current_node()
        if node is None:
            lines, reason = self._forward_lines()
            for tensor in read:
                if tensor.requires_grad and tensor.is_leaf:
                    self._read_by.setdefault(key(tensor), []).extend(lines)
            return lines, reason
        if _ACCUMULATE in node.name():
            variable = getattr(node, "variable", None)
            lines = tuple(dict.fromkeys(self._read_by.get(key(variable), ()))) if variable is not None else ()
            return lines, None if lines else OUTSIDE
        return self._backward_lines(node)

    def stack(self) -> tuple[str, ...]:
        """Where the user's code ran the operator being dispatched: every frame inside the measured call outside
        torch's, kernel-tui's and Python's own files, as ``file:line``, nearest first (a model imported from another
        file is there, with the scenario's line that called it). Backward, those of the forward operator the
        running node differentiates; none for a leaf's ``AccumulateGrad``, which differentiates none."""
        if self.source_file is None:
            return ()
        if (node := _current_node()) is not None:
            return self._backward_stack(node)
        frames = []
        frame: FrameType | None = sys._getframe(1)
        while frame is not None and id(frame) not in self._outer_ids:
            path = frame.f_code.co_filename
            if users_frame(path):
                frames.append(f"{path}:{frame.f_lineno}")
            frame = frame.f_back
        return tuple(dict.fromkeys(frames))

    def _backward_stack(self, node: Any) -> tuple[str, ...]:
        # Anomaly mode formats the stack one frame an entry, outermost first: it starts with the frames outside the
        # measured call (whoever measures, held since ``__enter__``), each then on another line but in the same
        # function of the same file.
        frames = _forward_frames(node)
        outside = [(frame.f_code.co_filename, frame.f_code.co_name) for frame in reversed(self._outer)]
        inside = 0
        while inside < min(len(frames), len(outside)) and frames[inside][::2] == outside[inside]:
            inside += 1
        users = [f"{path}:{line}" for path, line, _ in frames[inside:] if users_frame(path)]
        return tuple(dict.fromkeys(reversed(users)))

    def _forward_lines(self) -> tuple[tuple[int, ...], str | None]:
        lines: list[int] = []
        in_default_loss = False
        frame: FrameType | None = sys._getframe(2)
        while frame is not None and id(frame) not in self._outer_ids:
            code = frame.f_code
            if code.co_filename == self.source_file:
                lines.append(frame.f_lineno)
            elif code.co_name == _DEFAULT_LOSS_FRAME and code.co_filename.endswith(_TRAINING_FILE):
                in_default_loss = True
            frame = frame.f_back
        if lines:
            return tuple(dict.fromkeys(lines)), None
        return (), DEFAULT_LOSS if in_default_loss else OUTSIDE

    def _backward_lines(self, node: Any) -> tuple[tuple[int, ...], str | None]:
        frames = _forward_frames(node)
        if not frames:
            return (), NO_FORWARD_STACK.format(node=node.name())
        # Python formats a stack outermost first: the operator's own line is the last one of the file.
        lines = [int(line) for path, line, _ in reversed(frames) if path == str(self.source_file)]
        if lines:
            return tuple(dict.fromkeys(lines)), None
        if any(name == _DEFAULT_LOSS_FRAME and path.endswith(_TRAINING_FILE) for path, _, name in frames):
            return (), DEFAULT_LOSS_GRADIENT
        return (), OUTSIDE


_FRAME = re.compile(r'File "([^"]+)", line (\d+), in (\S+)')
"""A frame of a stack as Python's ``traceback`` formats it."""


def _forward_frames(node: Any) -> list[tuple[str, str, str]]:
    """The stack autograd's anomaly mode kept of the forward operator ``node`` differentiates, one entry a frame,
    as (file, line, function), outermost first; empty where it kept none."""
    entries = getattr(node, "metadata", {}).get("traceback_") or ()
    return [found for entry in entries for found in _FRAME.findall(entry)[:1]]


def users_frame(path: str) -> bool:
    """Whether a frame in file ``path`` is the user's code."""
    return not path.startswith(_NOT_USERS) and not path.startswith("<")


def _current_node() -> Any:
    """The autograd node running now (backward), or None (forward)."""
    current = getattr(torch._C, "_current_autograd_node", None)
    return current() if current is not None else None
