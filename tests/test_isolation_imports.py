"""Between scenarios the engine forgets the scenario's own imports, never an installed package's.

A scenario's folder may also hold the interpreter and its packages (a project's ``.venv/`` beside the user's
scenario files, a home folder): torch imports modules lazily, and a module imported twice registers twice
("Artifact of type=autotune already registered"). These tests lay out such folders and run scenarios in
orders, in-process against the restore step and end to end in an engine.
"""

from __future__ import annotations

import importlib
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
import torch
from conftest import REPO, measure

from kernel_tui.engine.isolation import Snapshot
from kernel_tui.engine.loader import load_scenario
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
    """What a test imports from its own folders is gone after it, whatever the restore under test did. What it
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


def _package(site: Path, name: str) -> None:
    (site / name).mkdir(parents=True)
    (site / name / "__init__.py").write_text("REGISTERED = []\n")
    (site / name / "registry.py").write_text(f"from {name} import REGISTERED\nREGISTERED.append(__name__)\n")


def test_a_packages_module_first_imported_by_a_scenario_stays_imported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, forget_new_modules: None
) -> None:
    project = tmp_path / "project"
    site = project / ".venv" / "lib" / "python3.11" / "site-packages"
    _package(site, "kt_fake_package")
    (project / "kt_own_helper.py").write_text("WHO = 'project'\n")
    monkeypatch.syspath_prepend(str(site))  # on the engine's path before any scenario, as a venv's is
    clean = Snapshot.take()
    monkeypatch.syspath_prepend(str(project))  # as the loader puts the scenario's folder there
    registry = importlib.import_module("kt_fake_package.registry")
    importlib.import_module("kt_own_helper")

    clean._restore_imports((str(project),))

    assert sys.modules.get("kt_fake_package.registry") is registry, "an installed package's import is kept"
    assert "kt_own_helper" not in sys.modules, "the scenario's helper is forgotten: the next scenario imports its own"
    importlib.import_module("kt_fake_package.registry")
    assert registry.REGISTERED == ["kt_fake_package.registry"], "imported once, registered once"


def test_torch_modules_imported_lazily_stay_imported_when_torch_lies_in_the_scenarios_folder(
    forget_new_modules: None,
) -> None:
    lazy = next(name for name in LAZY_TORCH_MODULES if name not in sys.modules)
    # A folder above site-packages, as a project folder holds its .venv.
    installed_in = str(Path(torch.__file__).resolve().parent.parent.parent)
    clean = Snapshot.take()
    module = importlib.import_module(lazy)

    clean._restore_imports((installed_in,))

    assert sys.modules.get(lazy) is module


def test_a_helper_in_a_scenario_folder_that_is_on_the_engines_path_is_forgotten(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, forget_new_modules: None
) -> None:
    # The engine runs as `python -m`, so the folder it starts in is on its path: often the scenarios' own.
    (tmp_path / "kt_cwd_helper.py").write_text("WHO = 'first'\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    clean = Snapshot.take()
    importlib.import_module("kt_cwd_helper")

    clean._restore_imports((str(tmp_path),))

    assert "kt_cwd_helper" not in sys.modules


def test_the_scenarios_own_module_is_registered_while_it_runs_and_forgotten_after(
    tmp_path: Path, forget_new_modules: None
) -> None:
    path = tmp_path / "scenario.py"
    path.write_text(
        "import torch\ndef fn(a):\n    return a + 1\ndef inputs(size, device):\n    return (torch.ones(4),)\n"
    )
    clean = Snapshot.take()
    scenario = load_scenario(path)
    # Dynamo before torch 2.14 imports the module of each function it inlines.
    assert sys.modules[scenario.module.__name__] is scenario.module
    assert scenario.module.fn.__module__ == scenario.module.__name__

    clean._restore_imports((str(tmp_path),))

    assert scenario.module.__name__ not in sys.modules


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
        with EngineClient("cpu", env=env, fresh_per_run=False) as client:
            first_pid = client.start().pid
            reports = [measure(client, path) for path in (forward, training, forward, training)]
            assert client.hello is not None and client.hello.pid == first_pid, "restored, not restarted"
    finally:
        shutil.rmtree(project, ignore_errors=True)
    for report in reports:
        assert report.error is None, report.error
        assert not any("fresh engine" in note for note in report.notes), report.notes
    assert reports[1].compiled is not None and reports[1].compiled.kernel_count > 0
    assert reports[1].torch_version.startswith(torch.__version__.split("+")[0])
