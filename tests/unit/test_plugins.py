"""Out-of-tree plug-ins (docs/plugins.md): a user's folder (``--plugins``, ``SCHEDBENCH_PLUGINS``,
the config's ``plugins:``) and installed packages (entry points of ``schedbench.plugins``).
Each case runs in a fresh interpreter: the registry of this test session stays the package's."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCHEDBENCH = [sys.executable, "-m", "schedbench.cli"]

LEAST_INDEX = '''
"""A user's baseline: every job to the lowest-index eligible machine (LoadBalancing)."""
from schedbench.scheduling.algorithms.base import OnlineAlgorithm
from schedbench.scheduling.registry import register_algorithm


@register_algorithm
class LeastIndex(OnlineAlgorithm):
    name = "least-index"
    problem = "load"
    model = "plain"
    rule_label = "R"
    reference = "a user's plug-in (tests/unit/test_plugins.py)"

    def on_arrival(self, job, view):
        return int(job.eligible.min())
'''


def _env(**extra) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "SCHEDBENCH_PLUGINS"}
    env.update(extra)
    return env


def _cli(*args, env=None, cwd=ROOT):
    return subprocess.run([*SCHEDBENCH, *args], capture_output=True, text=True, env=env or _env(), cwd=cwd)


def _py(code: str, env=None):
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, env=env or _env()
    )


@pytest.fixture
def plugdir(tmp_path):
    d = tmp_path / "myplugins"
    d.mkdir()
    (d / "least_index.py").write_text(LEAST_INDEX)
    (d / "_helper.py").write_text("raise RuntimeError('files starting with _ are not plug-ins')\n")
    (d / "test_least_index.py").write_text("raise RuntimeError('a folder's tests are not plug-ins')\n")
    return d


def test_a_plugin_folder_runs_through_the_api_and_the_validator(plugdir):
    out = _py(
        f"""
        import json, schedbench
        schedbench.use_plugins([{str(plugdir)!r}])
        inst = schedbench.Instance.from_lists(2, [0, 0, 0], [1, 1, 1], [[0], [0, 1], [1]])
        res = schedbench.run("least-index", inst)
        from schedbench.scheduling.registry import origin, is_builtin
        print(json.dumps([res.objective, res.valid, origin("algorithm", "least-index"), is_builtin("algorithm", "least-index")]))
        """
    )
    assert out.returncode == 0, out.stderr
    objective, valid, where, builtin = json.loads(out.stdout.splitlines()[-1])
    # jobs 0 and 1 both go to machine 0 (lowest index), job 2 to machine 1: max load 2
    assert (objective, valid, builtin) == (2.0, True, False)
    assert where == str((plugdir / "least_index.py").resolve())


@pytest.mark.parametrize("how", ["global", "sub", "env"])
def test_the_cli_lists_and_describes_a_plugin_given_three_ways(plugdir, how):
    if how == "global":
        out = _cli("--plugins", str(plugdir), "describe", "least-index")
    elif how == "sub":
        out = _cli("describe", "least-index", "--plugins", str(plugdir))
    else:
        out = _cli("describe", "least-index", env=_env(SCHEDBENCH_PLUGINS=str(plugdir)))
    assert out.returncode == 0, out.stderr
    assert "least-index" in out.stdout and "a user's plug-in" in out.stdout
    assert _cli("describe", "least-index").returncode == 2  # not without the plug-in


def test_a_plugin_that_does_not_import_names_its_file_and_line(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("import math\n\nx = math.sqrt(4)\nraise ImportError('needs torch')\n")
    out = _cli("--plugins", str(bad), "list")
    assert out.returncode == 2
    assert f"{bad.resolve()}:4" in out.stderr and "ImportError: needs torch" in out.stderr
    assert "Traceback" not in out.stderr
    syntax = tmp_path / "syntax.py"
    syntax.write_text("def f(:\n    pass\n")
    out = _cli("--plugins", str(syntax), "list")
    assert out.returncode == 2 and f"{syntax.resolve()}:1" in out.stderr and "SyntaxError" in out.stderr


def test_a_name_clash_names_both_files(plugdir, tmp_path):
    other = tmp_path / "other"
    other.mkdir()
    (other / "again.py").write_text(LEAST_INDEX)
    out = _cli("--plugins", str(plugdir), "--plugins", str(other), "list")
    assert out.returncode == 2
    assert "'least-index' registered twice" in out.stderr
    assert (
        str((plugdir / "least_index.py").resolve()) in out.stderr and str((other / "again.py").resolve()) in out.stderr
    )
    clash = tmp_path / "clash.py"
    clash.write_text(LEAST_INDEX.replace('"least-index"', '"greedy"'))
    out = _cli("--plugins", str(clash), "list")
    assert out.returncode == 2 and "'greedy' registered twice" in out.stderr
    assert "algorithms/greedy.py" in out.stderr and str(clash.resolve()) in out.stderr


def test_a_missing_or_non_python_plugin_path_is_refused_by_name(tmp_path):
    out = _cli("--plugins", str(tmp_path / "nowhere"), "list")
    assert out.returncode == 2 and "no such file or folder" in out.stderr and "nowhere" in out.stderr
    (tmp_path / "notes.txt").write_text("x")
    out = _cli("--plugins", str(tmp_path / "notes.txt"), "list")
    assert out.returncode == 2 and "not a .py file" in out.stderr


def test_an_installed_package_plugs_in_through_its_entry_point(tmp_path):
    # a package on the path with an entry-point declaration (an installed dist's metadata)
    site = tmp_path / "site"
    (site / "userpkg").mkdir(parents=True)
    (site / "userpkg" / "__init__.py").write_text("")
    (site / "userpkg" / "algs.py").write_text(LEAST_INDEX.replace('"least-index"', '"least-index-ep"'))
    dist = site / "userpkg-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: userpkg\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[schedbench.plugins]\nuserpkg = userpkg.algs\n")
    env = _env(PYTHONPATH=str(site))
    out = _cli("describe", "least-index-ep", env=env)
    assert out.returncode == 0, out.stderr
    (site / "userpkg" / "algs.py").write_text("\n\nraise ValueError('broken')\n")
    out = _cli("list", env=env)
    assert out.returncode == 2 and "algs.py:3" in out.stderr and "entry point 'userpkg'" in out.stderr


def test_the_config_key_loads_plugins_and_their_files_are_job_sources(plugdir):
    out = _py(
        f"""
        import json
        from schedbench.checks import check_config
        from schedbench.hall.config import resolve_config
        from schedbench.hall.sources import script_sources
        from schedbench.scheduling.registry import get_algorithm
        cfg = {{"seed": 1, "eps": [0.25], "plugins": [{str(plugdir)!r}], "experiments": {{
            "mine": {{"family": "random-restricted", "params": {{"m": 4, "n": 20, "d": 2, "sizes": "unit"}},
                      "instances": 1, "algorithms": {{"least-index": None, "greedy": None}}}}}}}}
        check_config(resolve_config(cfg))
        mod = get_algorithm("least-index").__module__
        print(json.dumps(script_sources({str(ROOT / "workflow/scripts/run_online.py")!r}, mod)))
        """
    )
    assert out.returncode == 0, out.stderr
    sources = json.loads(out.stdout.splitlines()[-1])
    assert str((plugdir / "least_index.py").resolve()) in sources
    assert any(s.endswith("algorithms/base.py") for s in sources)  # what the plug-in imports


def test_a_config_whose_plugin_fails_is_refused_by_check_config(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("x = 1\ny = x / 0\n")
    cfg = tmp_path / "c.yaml"
    cfg.write_text(
        f"seed: 1\neps: [0.25]\nplugins: [{bad}]\nexperiments:\n  a:\n    family: anr-tree\n    params: {{K: 3}}\n"
        "    instances: 1\n    algorithms: {greedy: }\n"
    )
    out = _cli("check-config", str(cfg))
    assert out.returncode == 2
    assert "plugins:" in out.stderr and f"{bad.resolve()}:2" in out.stderr and "ZeroDivisionError" in out.stderr


def test_the_registry_is_read_by_kind_and_refuses_an_unknown_kind():
    from schedbench.scheduling import registry

    assert registry.KINDS == ("algorithm", "adversary", "family")
    by_kind = {
        "algorithm": (registry.algorithm_names, registry.get_algorithm),
        "adversary": (registry.adversary_names, registry.get_adversary),
        "family": (registry.family_names, registry.get_family),
    }
    for kind, (names_of, get_one) in by_kind.items():
        listed = registry.names(kind)
        assert listed == names_of() == sorted(listed) and listed
        assert all(registry.get(kind, name) is get_one(name) for name in listed)
    with pytest.raises(registry.UnknownNameError, match="unknown instance family 'greedy'"):
        registry.get("family", "greedy")  # an algorithm's name is not a family's
    for bad in ("algorithms", "", None, ["family"]):
        with pytest.raises(ValueError, match="kind: "):
            registry.names(bad)
        with pytest.raises(ValueError, match="kind: "):
            registry.get(bad, "greedy")
