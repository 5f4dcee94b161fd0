"""A scenario's own module: registered in ``sys.modules`` while it runs, as an import would be (Dynamo before torch
2.14 imports the module of every function it inlines), and never left behind by a scenario that failed to load.

A scenario's folder may also hold the interpreter and its packages (a project's ``.venv/`` beside the user's
scenario files, a home folder): the end-to-end test lays out such a folder and runs a forward scenario and a
training step reading module-level names there, each in a fresh engine as users run them.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
import torch
from conftest import measure
from support.locations import REPO

from kernel_tui.engine.stages.loader import load_scenario
from kernel_tui.transport.client import EngineClient

# Modules of torch that nothing imports until asked: one of them stands for what torch imports lazily.
LAZY_TORCH_MODULES = (
    "torch.utils.benchmark.utils.fuzzer",
    "torch.utils.show_pickle",
    "torch.utils.jit.log_extract",
    "torch.utils.bundled_inputs",
)


@pytest.fixture
def forget_new_modules(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """What a test imports from its own folders is gone after it. What it
    imported from installed packages stays: torch imports sympy's modules lazily, and forgetting one made the next
    import load a second copy whose classes the first copy's objects are not instances of (Inductor's codegen then
    failed to import in this worker: "Can only compare inequalities with Expr")."""
    before = set(sys.modules)
    yield
    own = str(tmp_path_factory.getbasetemp())
    for name in set(sys.modules) - before:
        file = getattr(sys.modules[name], "__file__", None) or ""
        if file.startswith(own) or name.startswith("kernel_tui_scenario_"):
            del sys.modules[name]


def test_the_scenarios_own_module_is_registered_while_it_runs(tmp_path: Path, forget_new_modules: None) -> None:
    path = tmp_path / "scenario.py"
    path.write_text(
        "import torch\ndef fn(a):\n    return a + 1\ndef inputs(size, device):\n    return (torch.ones(4),)\n"
    )
    scenario = load_scenario(path)
    # Dynamo before torch 2.14 imports the module of each function it inlines.
    assert sys.modules[scenario.module.__name__] is scenario.module
    assert scenario.module.fn.__module__ == scenario.module.__name__


def test_a_scenario_that_fails_to_load_leaves_no_module_behind(tmp_path: Path) -> None:
    path = tmp_path / "broken.py"
    path.write_text(
        "import torch\nraise ValueError('no')\ndef fn(a):\n    return a\ndef inputs(size, device):\n    return ()\n"
    )
    before = set(sys.modules)
    with pytest.raises(Exception, match="ValueError"):
        load_scenario(path)
    assert not {name for name in set(sys.modules) - before if name.startswith("kernel_tui_scenario_")}


FORWARD_WITH_HELPER = """\
import torch
from kt_layout_helper import double
SIZE = 1024
def fn(x):
    return double(x).relu()
def inputs(size, device):
    return (torch.randn(size, device=device),)
"""

TRAINING_STEP_READING_MODULE_NAMES = """\
import torch
import torch.nn.functional as F
TRAIN = True
SIZE = 4096
SCALE = 3.0
def fn(x, weight, bias):
    return F.layer_norm(x * SCALE, (x.shape[-1],), weight, bias)
def inputs(size, device):
    width = 64
    return (torch.randn(size // width, width, device=device), torch.randn(width, device=device),
            torch.randn(width, device=device))
"""


@pytest.mark.engine
@pytest.mark.slow
def test_a_training_step_after_a_forward_scenario_in_a_folder_that_holds_torch() -> None:
    """The issue's layout: torch's files under the scenarios' folder (hard links: the same files, no copies),
    a forward scenario calling a helper there, then a training step whose fn reads module-level names."""
    (REPO / ".cache").mkdir(exist_ok=True)
    project = Path(tempfile.mkdtemp(prefix="venv-beside-scenarios-", dir=REPO / ".cache"))
    try:
        site = project / "site-packages"
        site.mkdir()
        try:
            shutil.copytree(Path(torch.__file__).resolve().parent, site / "torch", copy_function=os.link)
        except OSError as error:
            pytest.fail(f"torch must be hard-linked into {site} (same file system as the checkout): {error}")
        (project / "kt_layout_helper.py").write_text("def double(x):\n    return x * 2\n")
        forward = project / "forward.py"
        forward.write_text(FORWARD_WITH_HELPER)
        training = project / "training.py"
        training.write_text(TRAINING_STEP_READING_MODULE_NAMES)
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, (str(site), os.environ.get("PYTHONPATH"))))}
        with EngineClient("cpu", env=env) as client:
            reports = [measure(client, path) for path in (forward, training, forward, training)]
    finally:
        shutil.rmtree(project, ignore_errors=True)
    for report in reports:
        assert report.error is None, report.error
    assert reports[1].compiled is not None and reports[1].compiled.kernel_count > 0
    assert reports[1].torch_version.startswith(torch.__version__.split("+")[0])
