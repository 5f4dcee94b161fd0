"""The engine-wide torch settings that must precede any compile, and what a run turns back on where a scenario (or
the environment) turned it off, with a note for each: without them the compiled column silently repeats eager's
kernels or shows none."""

from __future__ import annotations

import os
import warnings

import torch

KERNEL_PROFILE_OFF = (
    "the scenario turned torch._inductor.config.cpp.enable_kernel_profile off: without it the profiler sees no "
    "compiled C++ kernel, so the compiled side was measured with it on"
)
KERNEL_PROFILE_OFF_IN_FN = (
    "fn turns torch._inductor.config.cpp.enable_kernel_profile off as it runs, before its kernels are compiled: "
    "the profiler sees none of its compiled C++ kernels, so the compiled side shows none"
)
DYNAMO_DISABLED = (
    "torch.compile was turned off (torch._dynamo.config.disable, by the scenario or TORCH_COMPILE_DISABLE=1): it "
    "would have run fn eagerly, so the compiled side was measured with it on"
)
DYNAMO_DISABLED_BY_ENVIRONMENT = (
    "TORCHDYNAMO_DISABLE=1 was in the environment: torch.compile would have run fn eagerly, so the compiled side "
    "was measured without it"
)

RECOMPILE_LIMIT_LOWERED = (
    "the scenario lowered dynamo's recompile limit below its default: the engine compiles fn more than once "
    "(to read why kernels stayed apart, for each variant, for the sweep's sizes), and past the limit dynamo runs fn "
    "eagerly for good, so the compiled side was measured with the default"
)


def measurable_again() -> list[str]:
    """Turn back on what the engine needs to compile and see compiled kernels, where the scenario's code (or the
    environment) turned it off; a note for each. Without either, the compiled column silently repeats eager's
    kernels or shows none, with no error."""
    import torch._dynamo.config as dynamo_config

    notes = kernel_profile_on()
    if dynamo_config.disable:
        dynamo_config.disable = False
        notes.append(DYNAMO_DISABLED)
    # Hit once, the limit leaves fn's code eager for the rest of the run, raising it afterwards or not: the sweep's
    # compiled line was eager's at every size but the profiled one, and said 0 recompiles.
    from kernel_tui.engine.compiler.compile_watch import DYNAMO_RECOMPILE_LIMITS, raise_recompile_limits

    if raise_recompile_limits(DYNAMO_RECOMPILE_LIMITS):
        notes.append(RECOMPILE_LIMIT_LOWERED)
    # torch.compile reads this one from the environment each time it is called, not from its config.
    if os.environ.get("TORCHDYNAMO_DISABLE") == "1":
        del os.environ["TORCHDYNAMO_DISABLE"]
        notes.append(DYNAMO_DISABLED_BY_ENVIRONMENT)
    return notes


def kernel_profile_on() -> list[str]:
    """Compiled C++ kernels are invisible to the profiler without ``enable_kernel_profile``; it is part of the
    compile cache key, so it stays on for profiled and timed runs alike. A note when it was off."""
    import torch._inductor.config as inductor_config

    if inductor_config.cpp.enable_kernel_profile:
        return []
    inductor_config.cpp.enable_kernel_profile = True
    return [KERNEL_PROFILE_OFF]


def configure_torch(device: str) -> None:
    """Settings that are part of Inductor's cache key or change what the profiler can see: set them once."""
    import logging

    # A CUDA build of torch on a machine without CUDA warns on every C++ compile; it is not the user's news.
    logging.getLogger("torch.utils.cpp_extension").setLevel(logging.ERROR)
    # torch 2.10 to 2.12 warn at every profiler session's start that events are cleared "at the end of each
    # cycle": true of a profiler schedule's cycles, which the engine never uses. A fresh engine per lesson printed it
    # on the user's terminal once per lesson.
    warnings.filterwarnings("ignore", message="Warning: Profiler clears events", category=UserWarning)

    # Off by default, so no note; a dynamo disabled by the environment is left for each run to tell.
    kernel_profile_on()
    # Scenarios are inference; one grad mode everywhere also keeps dynamo's guards from recompiling
    # between the profiled, timed and swept calls.
    torch.set_grad_enabled(False)
