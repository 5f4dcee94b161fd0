"""What identifies the machine a report was measured on (``engine/stages/machine_identity.py``), read on this
machine."""

from __future__ import annotations

import importlib.metadata
import platform
from pathlib import Path

import pytest
import torch

from kernel_tui.engine.stages import machine_identity as identity

PROPRIETARY = "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15  Tue Mar  5 22:23:56 UTC 2024\nGCC version:"
OPEN = "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.65.06  Release Build  (dvs-builder@U16)"


@pytest.mark.parametrize(("text", "version"), [(PROPRIETARY, "550.54.15"), (OPEN, "580.65.06"), ("garbage", None)])
def test_the_driver_version_is_read_from_the_kernel_modules_own_words(
    text: str, version: str | None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "version").write_text(text)
    monkeypatch.setattr(identity, "NVIDIA_DRIVER_FILE", str(tmp_path / "version"))
    identity._driver_version.cache_clear()
    try:
        assert identity._driver_version() == version
    finally:
        identity._driver_version.cache_clear()


def test_a_cpu_and_a_preview_say_what_they_are() -> None:
    cpu = identity.machine_identity("cpu")
    assert cpu.architecture == platform.machine() and cpu.driver_version is None
    assert cpu.cuda_version == torch.version.cuda and cpu.hostname
    preview = identity.machine_identity("cuda-preview", 100)
    assert preview.architecture == "sm_100" and preview.driver_version is None
    try:
        installed: str | None = importlib.metadata.version("triton")
    except importlib.metadata.PackageNotFoundError:
        installed = None  # a CPU-only build of torch comes without Triton
    assert preview.triton_version == installed
