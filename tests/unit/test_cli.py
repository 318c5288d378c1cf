import json
import math

import pytest

from schedbench.cli import main
from schedbench.scheduling.model import Instance


def test_list_shows_every_algorithm_with_model_and_rule(capsys):
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    assert "greedy             load     plain      Q" in out
    assert "lb-unit-reject     load     rejection  Q     yes  alpha_rule=paper" in out


def test_generate_opt_run_round_trip(tmp_path, capsys):
    path = str(tmp_path / "i.npz")
    assert (
        main(
            [
                "generate",
                "random-restricted",
                path,
                "--seed",
                "3",
                "--param",
                "m=3",
                "--param",
                "n=9",
                "--param",
                "sizes=pow2",
            ]
        )
        == 0
    )
    capsys.readouterr()
    assert main(["opt", path]) == 0
    opt = json.loads(capsys.readouterr().out)  # stdout is pure JSON (no solver banner)
    assert opt["status"] == "optimal"
    assert main(["run", "greedy", path]) == 0
    res = json.loads(capsys.readouterr().out)
    assert res["valid"] and res["objective"] >= opt["value"]


def test_errors_are_one_line_and_exit_2(tmp_path, capsys):
    assert main(["run", "greedy", str(tmp_path / "missing.npz")]) == 2
    assert "not a readable instance file" in capsys.readouterr().err
    assert main(["generate", "random-restricted", str(tmp_path / "x.npz"), "--param", "m=2"]) == 2
    assert "parameter 'n' is required" in capsys.readouterr().err


def _instance_file(tmp_path) -> str:
    path = str(tmp_path / "i.npz")
    # Sizes 3,3,2,2,2 on two machines: OPT = 6, lowest-index greedy gets 7.
    Instance.from_lists(2, [0] * 5, [3, 3, 2, 2, 2], [[0, 1]] * 5).save(path)
    return path


def test_run_with_opt_gives_a_ratio(tmp_path, capsys):
    path = _instance_file(tmp_path)
    assert main(["run", "greedy", path]) == 0
    assert json.loads(capsys.readouterr().out)["ratio"] is None  # no OPT asked for: null, strict JSON
    assert main(["run", "greedy", path, "--opt", "--time-limit", "10"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert res["opt"]["status"] == "optimal" and res["opt"]["value"] == 6.0
    assert res["ratio"] == res["objective"] / 6.0 and math.isfinite(res["ratio"])


@pytest.mark.parametrize("value", ["0", "-1", "nan", "inf", "-inf", "abc"])
def test_time_limit_must_be_finite_and_positive(tmp_path, capsys, value):
    path = _instance_file(tmp_path)
    for command in (["opt", path], ["run", "greedy", path, "--opt"]):
        with pytest.raises(SystemExit) as info:
            main([*command, f"--time-limit={value}"])
        assert info.value.code == 2
        err = capsys.readouterr().err
        assert "argument --time-limit:" in err and repr(value) in err


@pytest.mark.parametrize(
    "argv, message",
    [
        (["run", "greedy", "{path}", "--param", "ties"], "--param expects NAME=VALUE, got 'ties'"),
        (["run", "greedy", "{path}", "--param", "nope=1"], "algorithm 'greedy' has no parameter 'nope'"),
        (["run", "no-such-algorithm", "{path}"], "unknown algorithm 'no-such-algorithm'"),
        (["run", "lb-unit-reject", "{path}", "--eps", "0.25"], "defined for unit sizes only"),
        (["generate", "no-such-family", "{path}"], "no-such-family"),
        (["generate", "random-restricted", "{path}", "--param", "m=2"], "parameter 'n' is required"),
    ],
)
def test_user_errors_are_one_line_and_exit_2(tmp_path, capsys, argv, message):
    path = _instance_file(tmp_path)
    code = main([a.format(path=path) for a in argv])
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith("schedbench: error: ") and err.count("\n") == 1 and message in err


def test_unwritable_output_is_one_line(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("")
    assert main(["generate", "random-restricted", str(blocker / "x.npz"), "--param", "m=2", "--param", "n=2"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"schedbench: error: {blocker / 'x.npz'}: cannot write the instance") and err.count("\n") == 1


def test_a_bug_keeps_its_traceback(tmp_path, monkeypatch):
    # Only user-facing error classes become one line; a plain ValueError/KeyError is a bug.
    import schedbench.scheduling.offline as offline  # the opt command imports it when it runs

    path = _instance_file(tmp_path)
    for exc in (ValueError("bug"), KeyError("bug"), RuntimeError("bug")):

        def boom(*args, _exc=exc, **kwargs):
            raise _exc

        monkeypatch.setattr(offline, "solve_opt", boom)
        with pytest.raises(type(exc)):
            main(["opt", path])


def test_opt_for_max_flow(tmp_path, capsys):
    path = str(tmp_path / "f.npz")
    Instance.from_lists(1, [0, 0, 0], [1, 1, 1], [[0], [0], [0]]).save(path)
    assert main(["opt", path, "--problem", "maxflow"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert (res["value"], res["status"]) == (3.0, "optimal")  # three unit jobs, one machine
    assert main(["opt", path]) == 0 and json.loads(capsys.readouterr().out)["value"] == 3.0  # makespan


def test_check_config_names_file_line_and_key(tmp_path, capsys):
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    assert main(["check-config", str(root / "config/smoke.yaml")]) == 0
    bad = tmp_path / "bad.yaml"
    bad.write_text("seed: 7\neps: [0.5\nbatch_size: 3\n")
    assert main(["check-config", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{bad}: line 3, column" in err
    bad.write_text("seed: 7\nseed: 8\n")
    assert main(["check-config", str(bad)]) == 2 and "'seed' given twice" in capsys.readouterr().err
    bad.write_text("seed: 7\neps: [0.5]\nexperiments: {}\nbogus: 1\n")
    assert main(["check-config", str(bad)]) == 2 and "'bogus' was unexpected" in capsys.readouterr().err


# ---------------------------------------------------------------- list, describe, docs-tables


def test_list_shows_adversary_and_family_parameters(capsys):
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    assert "lb-b               load        R✓    K=4, g=8, n1=1, final_job=True" in out
    assert "anr-flow           maxflow     R✓    m, T=1, streams=False" in out  # m is required
    assert "random-restricted  m, n, d=2, sizes=unit" in out


def test_describe_an_algorithm(capsys):
    assert main(["describe", "lb-unit-reject"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("lb-unit-reject (algorithm)\n")
    assert "least-loaded machine" in out  # the rule, in one line
    assert "  problems:  load\n" in out
    assert "  docs:      docs/models/rejection-model.md §2.1\n" in out
    assert "SODA 2015 §5" in out  # the paper's section
    assert "    alpha_rule: string, one of paper, safe, default paper — " in out


@pytest.mark.parametrize("kind", ["algorithm", "adversary", "family"])
def test_describe_every_registered_name(kind, capsys):
    from pathlib import Path

    from schedbench.cli import _declared_params, _names
    from schedbench.scheduling.registry import get_adversary, get_algorithm, get_family

    root = Path(__file__).resolve().parents[2]
    get = {"algorithm": get_algorithm, "adversary": get_adversary, "family": get_family}[kind]
    for name in _names(kind):
        assert main(["describe", name, "--kind", kind, "--json"]) == 0
        d = json.loads(capsys.readouterr().out)
        assert d["name"] == name and d["kind"] == kind and d["rule"] and d["problems"]
        assert [p["name"] for p in d["parameters"]] == list(_declared_params(get(name)))
        assert all(p["type"] and p["default"] and p["range"] for p in d["parameters"])
        page, _, section = d["docs"].partition(" §")
        assert (root / page).is_file() and section, d["docs"]


def test_describe_a_name_of_two_kinds_shows_both(capsys):
    assert main(["describe", "anr-tree", "--json"]) == 0
    assert [d["kind"] for d in json.loads(capsys.readouterr().out)] == ["adversary", "family"]


def test_describe_an_unknown_name_is_one_line(capsys):
    assert main(["describe", "no-such-thing"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no-such-thing" in err


def test_config_readme_tables_are_the_registry(capsys):
    """config/README.md's algorithm, adversary and family tables are generated: regenerate them
    with `schedbench docs-tables` after adding or changing a plug-in."""
    assert main(["docs-tables", "--check"]) == 0, capsys.readouterr().err


def test_docs_tables_rewrites_stale_tables_and_wants_a_block_per_plugin(tmp_path, capsys):
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[2] / "config" / "README.md").read_text(encoding="utf-8")
    stale = tmp_path / "README.md"
    stale.write_text(readme.replace("| `K` | int | 4 |", "| `K` | int | 5 |", 1), encoding="utf-8")
    assert main(["docs-tables", str(stale), "--check"]) == 1
    assert main(["docs-tables", str(stale)]) == 0
    assert stale.read_text(encoding="utf-8") == readme
    start, end = (
        readme.index("<!-- BEGIN GENERATED: adversary lb-b -->"),
        readme.index("<!-- END GENERATED: adversary lb-b -->"),
    )
    stale.write_text(readme[:start] + readme[end + len("<!-- END GENERATED: adversary lb-b -->") :], encoding="utf-8")
    capsys.readouterr()
    assert main(["docs-tables", str(stale), "--check"]) == 2
    assert "adversary lb-b" in capsys.readouterr().err
