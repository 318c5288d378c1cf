"""Regression tests for the debts paid with the scheduling core (issue: one scheduling core)."""

import copy
import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from schedbench.checks import check_config
from schedbench.hall.config import ConfigError, load_config
from schedbench.hall.sources import script_sources
from schedbench.scheduling.algorithms.base import OnlineAlgorithm, SlotPlan
from schedbench.scheduling.model import Instance
from schedbench.scheduling.play import execute
from schedbench.scheduling.stage.metrics import eps_axis_label

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = sorted((ROOT / "workflow" / "scripts").glob("*.py"))
SMOKE = yaml.safe_load((ROOT / "config/smoke.yaml").read_text())
#: The smoke config as the pipeline loads it (schema defaults filled): what the checks read.
SMOKE_LOADED = load_config([ROOT / "config/smoke.yaml"])

_PROBE = """
import ast, json, sys, importlib
tree = ast.parse(open(sys.argv[1]).read())
for node in ast.walk(tree):
    if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("schedbench"):
        importlib.import_module(node.module)
    elif isinstance(node, ast.Import):
        for a in node.names:
            if a.name.startswith("schedbench"):
                importlib.import_module(a.name)
print(json.dumps(sorted(m.__file__ for n, m in sys.modules.items()
                        if n.startswith("schedbench") and getattr(m, "__file__", None))))
"""


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_every_module_a_job_imports_is_a_declared_input(script):
    """What Python really loads for a script (a fresh interpreter, sys.modules) must be among
    the derived inputs. (Plug-ins a job looks up by name are added by the rule with their own
    closure; see test_run_online_declares_the_fast_path_seeds_and_api.)"""
    loaded = json.loads(
        subprocess.run(
            [sys.executable, "-c", _PROBE, str(script)], capture_output=True, text=True, check=True, cwd=ROOT
        ).stdout
    )
    plugin_dirs = ("/algorithms/", "/instances/", "/adversaries/")
    declared = set(script_sources(script))
    missing = [f for f in loaded if f not in declared and not any(d in f for d in plugin_dirs)]
    assert not missing, f"{script.name} imports undeclared sources: {missing}"


def test_a_name_a_package_loads_on_first_use_declares_its_module(tmp_path):
    # schedbench, schedbench.loss and schedbench.bipartite load their public names on first use
    # (``_EXPORTS``): importing such a name runs its module, which must then be a declared input
    script = tmp_path / "job.py"
    script.write_text(
        "from schedbench import run\nfrom schedbench.loss import simulate_loss\n"
        "from schedbench.bipartite import simulate_bipartite\n"
    )
    declared = "\n".join(script_sources(script))
    for name in ("schedbench/api.py", "loss/simulate.py", "bipartite/simulate.py"):
        assert name in declared
    assert "loss/exact.py" not in declared  # names not imported stay out
    # and importing the package alone loads none of them (a job on one room of a wing)
    probe = "import sys, schedbench.loss, schedbench.bipartite; print(sorted(sys.modules))"
    loaded = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert "schedbench.loss.simulate" not in loaded and "schedbench.bipartite.simulate" not in loaded


def test_run_online_declares_the_fast_path_seeds_budget_and_record():
    declared = "\n".join(
        script_sources(ROOT / "workflow/scripts/run_online.py", "schedbench.scheduling.algorithms.greedy")
    )
    for name in (
        "algorithms/greedy.py",
        "hall/jit.py",
        "hall/seeds.py",
        "budget.py",
        "record.py",
        "offline/result.py",
        "algorithms/base.py",
        "engine.py",
        "validate.py",
    ):
        assert name in declared
    made = "\n".join(
        script_sources(ROOT / "workflow/scripts/make_instances.py", "schedbench.scheduling.instances.random_restricted")
    )
    assert "instances/base.py" in made and "seeds.py" in made


def test_no_generated_file_is_tracked():
    tracked = subprocess.run(
        ["git", "ls-files", "paper", "results"], capture_output=True, text=True, cwd=ROOT, check=True
    ).stdout.split()
    generated = [
        f
        for f in tracked
        if f.endswith((".pdf", ".parquet", ".png"))
        or "/macros" in f
        or f.startswith("paper/macros")
        or f.startswith("paper/tables/")
        and f.endswith(".tex")
    ]
    assert generated == []


def test_d_larger_than_m_stops_before_any_job():
    cfg = copy.deepcopy(SMOKE_LOADED)
    cfg["experiments"]["random_unit"]["params"].update(m=3, d=5)
    with pytest.raises(ConfigError, match=r"experiments\.random_unit\.params: .*'d' = 5 exceeds 'm' = 3"):
        check_config(cfg)


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda e: e.update(family="random-restricted"), "give exactly one of 'family'"),
        (lambda e: e["params"].update(m=12), "'m' must be a power of two"),
        (lambda e: e.update(instances=3), "anr_adaptive.instances: does not apply"),
        (lambda e: e["algorithms"].update({"greedy": {"ties": "coin"}}), "must be one of"),
    ],
)
def test_adversary_experiment_errors_name_the_key(mutate, message):
    cfg = copy.deepcopy(SMOKE_LOADED)
    mutate(cfg["experiments"]["anr_adaptive"])
    with pytest.raises(ConfigError, match=message):
        check_config(cfg)


def test_eps_axis_label_follows_the_models_drawn():
    assert eps_axis_label(["rejection", "plain"]) == "ε (rejected fraction)"
    assert eps_axis_label(["speed"]) == "ε (machines at speed 1+ε)"
    assert "speed 1+ε for speed-model rows" in eps_axis_label(["speed", "rejection"])


def test_wasted_work_counts_work_on_jobs_rejected_later():
    class TimeoutAfterTwo(OnlineAlgorithm):
        """One machine, FIFO; a job of size >= 3 still unfinished 2 slots after release is rejected."""

        name, problem, model, late_reject = "test-timeout", "maxflow", "rejection", True

        def on_arrival(self, job, view):
            return 0

        def on_slot(self, view):
            late = [j for j in view.queue(0) if view.time - view.job(j).release >= 2 and view.job(j).size >= 3]
            return SlotPlan(reject=late, wake_at=view.time + 1 if view.queue(0) else None)

    inst = Instance.from_lists(1, [0, 0, 0, 0], [5, 1, 1, 1], [[0]] * 4)
    p = execute(TimeoutAfterTwo, inst, eps=0.25)
    # job 0 (size 5) gets slots 0 and 1, then is rejected at slot 2: 2 units wasted
    assert p.validation.status == "ok" and p.validation.wasted_work == 2.0
    assert p.outcome.reject_time[0] == 2 and p.outcome.completion[1] == 3


@pytest.mark.parametrize(
    "prefix, foreign",
    [
        ("loss_", ("/scheduling/", "/bipartite/")),
        ("bipartite_", ("/scheduling/", "/loss/")),
        ("figure_", ("/loss/", "/bipartite/")),
        ("run_online", ("/loss/", "/bipartite/")),
        ("run_adversary", ("/loss/", "/bipartite/")),
        ("make_instances", ("/loss/", "/bipartite/")),
        ("solve_offline", ("/loss/",)),
    ],
)
def test_the_wings_do_not_depend_on_each_other(prefix, foreign):
    """A job of one wing must not rerun when another wing's code changes."""
    for script in (s for s in SCRIPTS if s.name.startswith(prefix)):
        bad = [f for f in script_sources(script) if any(w in f for w in foreign)]
        assert not bad, f"{script.name} depends on {bad}"
