"""A user's workflow on the command line (docs/plugins.md, "Scaffold, check, compare"):
``schedbench new`` writes a plug-in and its test that pass ``schedbench check`` as written;
``check`` says in plain words what fails in a broken plug-in; ``compare`` runs algorithms on a
family or an adversary without a config and refuses bad arguments naming them; ``opt`` solves
the problem the instance records.

The commands run in this process (fast); the registry and ``SCHEDBENCH_PLUGINS`` are restored
after each test, so the plug-ins loaded here never reach another test."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pandas as pd
import pytest

from schedbench.cli import main
from schedbench.scheduling import registry
from schedbench.scheduling.model import Instance


pytestmark = pytest.mark.usefixtures("isolated_registry")  # tests/conftest.py


def _cli(capsys, *argv) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


# ------------------------------------------------------------------------------------ new + check
@pytest.mark.parametrize(
    "kind, name, options",
    [
        ("algorithm", "wf-srpt", ["--problem", "maxflow", "--model", "speed"]),
        ("algorithm", "wf-lb", ["--model", "rejection"]),
        ("adversary", "wf-trap", ["--problem", "maxflow"]),
        ("family", "wf-family", []),
    ],
)
def test_new_writes_a_plugin_that_check_passes(tmp_path, capsys, kind, name, options):
    code, out, err = _cli(capsys, "new", kind, name, "--dir", str(tmp_path / "mine"), *options)
    assert code == 0, err
    stem = name.replace("-", "_")
    plugin, test = tmp_path / "mine" / f"{stem}.py", tmp_path / "mine" / f"test_{stem}.py"
    assert f"wrote {plugin}" in out and f"wrote {test}" in out
    assert '"""' in plugin.read_text() and "check_path" in test.read_text()
    code, out, err = _cli(capsys, "check", str(plugin))
    assert code == 0, out + err
    assert "FAIL" not in out and f"PASS  {kind} {name}: " in out and out.rstrip().endswith("all passed")
    if kind == "algorithm":
        for check in ("runs on small instances", "passes the validator", "deterministic for a seed"):
            assert f"PASS  algorithm {name}: {check}" in out
        # a rule that rejects (the rejection template does, within its budget) may leave no run to hold to OPT
        assert f"PASS  algorithm {name}: ALG ≥ OPT" in out or (
            "--model" in options
            and f"SKIP  algorithm {name}: ALG ≥ OPT where it must — no run without rejections" in out
        )
        assert f"SKIP  algorithm {name}: fast path = step path" in out  # no compiled path declared
        code, out, _ = _cli(capsys, "describe", name)
        assert code == 0 and "least" in out


@pytest.mark.parametrize("options", [[], ["--problem", "stretch", "--model", "speed"]])
def test_new_compiled_writes_a_plugin_whose_two_paths_check_compares(tmp_path, capsys, options):
    """``--compiled``: a rule on the machine core beside its step path; ``check`` runs both and
    passes as written, and fails once the compiled rule breaks its ties another way."""
    folder = tmp_path / "fast"
    code, _, err = _cli(capsys, "new", "algorithm", "wf-fast", "--compiled", "--dir", str(folder), *options)
    assert code == 0, err
    plugin = folder / "wf_fast.py"
    text = plugin.read_text()
    assert "@compiled" in text and "mc.run(wf_fast_rule" in text
    code, out, err = _cli(capsys, "check", str(plugin))
    assert code == 0, out + err
    assert "PASS  algorithm wf-fast: fast path = step path — " in out and "compiled runs equal" in out
    broken = tmp_path / "broken" / "wf_tied.py"  # the compiled rule alone breaks its ties to the last
    broken.parent.mkdir()
    tied = text.replace("if best < 0 or w < least or (last and w == least):", "if best < 0 or w <= least:")
    broken.write_text(tied.replace("wf-fast", "wf-tied").replace("wf_fast", "wf_tied"))
    code, out, _ = _cli(capsys, "check", str(broken))
    assert code == 1 and "FAIL  algorithm wf-tied: fast path = step path — on " in out, out


def test_new_compiled_is_refused_where_it_does_not_apply(tmp_path, capsys):
    d = str(tmp_path)
    for argv, message in [
        (["new", "algorithm", "lb-fast", "--compiled", "--problem", "load"], "--compiled: the compiled template runs"),
        (["new", "family", "fam-fast", "--compiled"], "--compiled: applies to an algorithm only"),
    ]:
        code, _, err = _cli(capsys, *argv, "--dir", d)
        assert code == 2 and message in err, err
    assert list(tmp_path.iterdir()) == []


def test_the_generated_test_files_pass_under_pytest(tmp_path):
    """One fresh interpreter runs pytest on a folder of the three generated kinds."""
    folder = tmp_path / "baselines"
    from schedbench.scheduling.scaffold import new_plugin

    new_plugin("algorithm", "gen-alg", folder, problem="load", model="plain")
    new_plugin("adversary", "gen-adv", folder)
    new_plugin("family", "gen-fam", folder)
    env = {k: v for k, v in os.environ.items() if k != registry.PLUGIN_ENV}
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly", str(folder)],
        capture_output=True,
        text=True,
        cwd=folder,
        env=env,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert "3 passed" in out.stdout


def test_new_refuses_an_existing_file_a_bad_name_and_a_registered_name(tmp_path, capsys):
    d = str(tmp_path)
    assert _cli(capsys, "new", "algorithm", "twice", "--dir", d)[0] == 0
    code, _, err = _cli(capsys, "new", "family", "twice", "--dir", d)  # another kind, the same file
    assert code == 2 and f"{tmp_path / 'twice.py'}: already exists" in err
    for argv, message in [
        (["new", "algorithm", "9lives"], "NAME '9lives': a plug-in name starts with a letter"),
        (["new", "algorithm", "a--b"], "NAME 'a--b'"),
        (["new", "algorithm", "greedy"], "NAME 'greedy': already registered as an algorithm, by "),
        (["new", "adversary", "lb-a"], "adversaries/lb_a.py"),
        (["new", "family", "fam", "--problem", "load"], "--problem: does not apply to a family"),
        (["new", "adversary", "adv", "--model", "speed"], "--model: applies to an algorithm only"),
    ]:
        code, _, err = _cli(capsys, *argv, "--dir", d)
        assert code == 2 and err.startswith("schedbench: error: ") and message in err, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["test_twice.py", "twice.py"]  # nothing else written


BROKEN = {
    "non-deterministic": (
        '''
        """Any eligible machine, at random (unseeded: not reproducible)."""
        import random
        from schedbench.scheduling.algorithms.base import OnlineAlgorithm
        from schedbench.scheduling.registry import register_algorithm

        @register_algorithm
        class Coin(OnlineAlgorithm):
            name = "broken-coin"
            problem = "load"
            reference = "a planted bug"

            def on_arrival(self, job, view):
                return random.choice(job.eligible.tolist())
        ''',
        "FAIL  algorithm broken-coin: deterministic for a seed — two runs with seed 3 on ",
    ),
    "undeclared parameter": (
        '''
        """Lowest index, reading a parameter it never declares."""
        from schedbench.scheduling.algorithms.base import OnlineAlgorithm
        from schedbench.scheduling.registry import register_algorithm

        @register_algorithm
        class Undeclared(OnlineAlgorithm):
            name = "broken-undeclared"
            problem = "load"
            reference = "a planted bug"

            def on_arrival(self, job, view):
                return int(job.eligible[self.params["k"] % len(job.eligible)])
        ''',
        "KeyError: 'k' at ",
    ),
    "ineligible machine": (
        '''
        """Every job to machine 0, eligible or not."""
        from schedbench.scheduling.algorithms.base import OnlineAlgorithm
        from schedbench.scheduling.registry import register_algorithm

        @register_algorithm
        class Zero(OnlineAlgorithm):
            name = "broken-zero"
            problem = "maxflow"
            model = "speed"
            reference = "a planted bug"

            def on_arrival(self, job, view):
                return 0
        ''',
        "FAIL  algorithm broken-zero: runs on small instances — on ",
    ),
    "unchecked parameter": (
        '''
        """Lowest index, with a parameter nothing checks."""
        from schedbench.hall.params import Param
        from schedbench.scheduling.algorithms.base import OnlineAlgorithm
        from schedbench.scheduling.registry import register_algorithm

        @register_algorithm
        class Loose(OnlineAlgorithm):
            name = "broken-loose"
            problem = "load"
            reference = "a planted bug"
            parameters = {"factor": Param(1.0, doc="a factor nothing checks")}

            def on_arrival(self, job, view):
                return int(job.eligible.min())
        ''',
        "FAIL  algorithm broken-loose: parameters — parameter 'factor' accepts the bad value",
    ),
    "wrong claimed OPT": (
        '''
        """One unit job on machine 0; claims OPT 2 (it is 1)."""
        from schedbench.scheduling.adversaries.base import Adversary
        from schedbench.scheduling.model import JobSpec
        from schedbench.scheduling.registry import register_adversary

        @register_adversary
        class Liar(Adversary):
            name = "broken-liar"
            problem = "load"
            reference = "a planted bug"
            m = 1
            opt = 2.0

            def next_jobs(self, view):
                if view.time == 0 and not getattr(self, "done", False):
                    self.done = True
                    return [JobSpec(0, 1, [0])]
                return None
        ''',
        "claims OPT = 2, but the solver proves OPT = 1 on the realised instance",
    ),
    "does not import": (
        '''
        """A plug-in with a typo."""
        from schedbench.scheduling.algorithms.base import OnlineAlgorithmm
        ''',
        "FAIL  plug-in: loads — plug-in ",
    ),
}


@pytest.mark.parametrize("case", list(BROKEN))
def test_check_says_in_plain_words_what_fails(tmp_path, capsys, case):
    source, message = BROKEN[case]
    plugin = tmp_path / "broken.py"
    plugin.write_text(textwrap.dedent(source))
    code, out, err = _cli(capsys, "check", str(plugin))
    assert code == 1, out + err
    assert message in out, out
    if case == "undeclared parameter":
        assert f"{plugin.resolve()}:" in out and "does it read a parameter it does not declare" in out
    if case == "does not import":
        assert f"{plugin.resolve()}:3" in out and "ImportError" in out


def test_check_usage_errors_exit_2(tmp_path, capsys):
    code, _, err = _cli(capsys, "check", str(tmp_path / "nowhere"))
    assert code == 2 and "nowhere: no such file or folder" in err
    (tmp_path / "notes.txt").write_text("x")
    code, _, err = _cli(capsys, "check", str(tmp_path / "notes.txt"))
    assert code == 2 and "not a .py file" in err
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "helper.py").write_text("X = 1\n")
    code, out, _ = _cli(capsys, "check", str(tmp_path / "empty"))
    assert code == 1 and "registers no algorithm, adversary or family" in out


# ------------------------------------------------------------------------------------ compare
def test_compare_on_a_tiny_family_prints_the_table(tmp_path, capsys):
    plot, csv = tmp_path / "ratio.png", tmp_path / "runs.csv"
    code, out, err = _cli(
        capsys,
        *("compare", "-a", "ll-fifo", "-a", "mft-unit", "-a", "lb-unit-reject:alpha_rule=paper|safe"),
        *("-f", "random-restricted", "-p", "m=3", "-p", "n=12", "-p", "arrivals=poisson", "-p", "rate=2"),
        *("--eps", "0.25,0.5", "--instances", "2", "--problem", "maxflow"),
        *("--plot", str(plot), "--csv", str(csv)),
    )
    assert code == 2 and "-a lb-unit-reject: solves 'load', but the comparison's problem is 'maxflow'" in err
    code, out, err = _cli(
        capsys,
        *("compare", "-a", "ll-fifo", "-a", "mft-unit:cap_factor=1|2", "-f", "random-restricted"),
        *("-p", "m=3", "-p", "n=12", "-p", "arrivals=poisson", "-p", "rate=2", "--eps", "0.25,0.5"),
        *("--instances", "2", "--plot", str(plot), "--csv", str(csv)),
    )
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].startswith(
        "family random-restricted (arrivals=poisson, m=3, n=12, rate=2), problem maxflow, 2 instances"
    )
    header = next(line for line in lines if line.startswith("algorithm"))
    for title in ("eps", "valid", "ratio [95% CI]", "OPT opt/bnd/tmo", "rejected", "max prefix", "s/run"):
        assert title in header
    rows = [line.split() for line in lines if line.startswith(("ll-fifo", "mft-unit"))]
    labels = {
        (r[0] + (" " + r[1] if r[1].startswith("(") else ""), r[2] if r[1].startswith("(") else r[1]) for r in rows
    }
    assert labels == {
        ("ll-fifo", "0"),  # speed 1, the reference row
        ("ll-fifo", "0.25"),
        ("ll-fifo", "0.5"),
        *{(f"mft-unit (cap_factor={c})", e) for c in ("1", "2") for e in ("0.25", "0.5")},
    }
    assert all("2/2" in line and "2/0/0" in line for line in lines if line.startswith(("ll-fifo", "mft-unit")))
    assert plot.is_file() and plot.stat().st_size > 0 and f"figure: {plot}" in out
    runs = pd.read_csv(csv)
    assert len(runs) == 2 * (3 + 4) and set(runs["opt_status"]) == {"optimal"} and set(runs["problem"]) == {"maxflow"}


def test_compare_against_an_adversary(capsys):
    code, out, err = _cli(capsys, "compare", "-a", "greedy", "--adversary", "anr-tree", "-p", "m=8", "--eps", "0.25")
    assert code == 0, err
    assert "adversary anr-tree (m=8), problem load, 1 game(s) per combination" in out
    row = next(line for line in out.splitlines() if line.startswith("greedy"))
    assert "4.000 [4.000, 4.000]" in row and "1/0/0" in row  # ⌈log₂ 8⌉ + 1 against OPT = 1


@pytest.mark.parametrize(
    "argv, message",
    [
        (["-a", "no-such-alg", "-f", "anr-tree", "-p", "K=2"], "-a no-such-alg: unknown algorithm 'no-such-alg'"),
        (["-a", "greedy", "-f", "no-such-family"], "-f: unknown instance family 'no-such-family'"),
        (["-a", "greedy", "--adversary", "nope"], "--adversary: unknown adversary 'nope'"),
        (
            ["-a", "greedy", "-f", "random-restricted", "-p", "m=0", "-p", "n=3"],
            "-p: family 'random-restricted': parameter 'm'",
        ),
        (["-a", "greedy", "-f", "anr-tree", "-p", "K"], "-p expects NAME=VALUE, got 'K'"),
        (
            ["-a", "greedy", "-a", "ll-fifo", "-f", "anr-tree", "-p", "K=2"],
            "(greedy: load, ll-fifo: maxflow); give --problem",
        ),
        (
            ["-a", "greedy:ties=sideways", "-f", "anr-tree", "-p", "K=2"],
            "-a greedy: algorithm 'greedy': parameter 'ties'",
        ),
        (["-a", "greedy:ties", "-f", "anr-tree", "-p", "K=2"], "parameter 'ties' is not KEY=VALUE"),
        (["-a", "greedy", "-a", "greedy", "-f", "anr-tree", "-p", "K=2"], "-a greedy: given twice"),
        (["-a", "greedy", "-f", "anr-tree", "-p", "K=2", "--instances", "0"], "--instances: must be an integer >= 1"),
        (
            ["-a", "greedy", "-f", "anr-tree", "-p", "K=2", "--plot", "x.jpeg"],
            "--plot x.jpeg: the file name must end in",
        ),
        (
            ["-a", "mft-unit", "-f", "random-restricted", "-p", "m=2", "-p", "n=4", "-p", "sizes=pow2"],
            "-a mft-unit: 'mft-unit' is defined for unit sizes only",
        ),
        (
            ["-a", "greedy", "--adversary", "anr-tree", "-p", "m=4", "--problem", "maxflow"],
            "--problem: adversary 'anr-tree' builds 'load'",
        ),
    ],
)
def test_compare_refuses_bad_arguments_naming_them(capsys, argv, message):
    code, out, err = _cli(capsys, "compare", *argv)
    assert code == 2 and err.startswith("schedbench: error: ") and err.count("\n") == 1, err
    assert message in err, err
    assert out == ""


@pytest.mark.parametrize("eps", ["0", "1.5", "abc", "0.2,,0.3"])
def test_compare_refuses_a_bad_eps(capsys, eps):
    with pytest.raises(SystemExit) as info:
        main(["compare", "-a", "greedy", "-f", "anr-tree", "-p", "K=2", "--eps", eps])
    assert info.value.code == 2 and "argument --eps:" in capsys.readouterr().err


# ------------------------------------------------------------------------------------ opt
def test_opt_solves_the_problem_the_instance_records(tmp_path, capsys):
    # one machine, unit jobs released 0,0,0,2,2: max flow 3 (the first three), makespan 5
    inst = Instance.from_lists(1, [0, 0, 0, 2, 2], [1] * 5, [[0]] * 5, meta={"problem": "maxflow"})
    path = tmp_path / "flow.npz"
    inst.save(path)
    code, out, _ = _cli(capsys, "opt", str(path))
    res = json.loads(out)
    assert code == 0 and (res["value"], res["problem"]) == (3.0, "maxflow")
    assert res["problem_from"] == "the instance's meta (problem)"
    res = json.loads(_cli(capsys, "opt", str(path), "--problem", "load")[1])  # --problem overrides
    assert (res["value"], res["problem"], res["problem_from"]) == (5.0, "load", "--problem")
    # `generate --problem` records it
    gen = tmp_path / "gen.npz"
    assert _cli(capsys, "generate", "anr-tree", str(gen), "--param", "K=2", "--problem", "stretch")[0] == 0
    assert json.loads(_cli(capsys, "opt", str(gen))[1])["problem"] == "stretch"
    # nothing recorded: the makespan, and the output says why
    Instance.from_lists(1, [0, 0, 0, 2, 2], [1] * 5, [[0]] * 5).save(path)
    res = json.loads(_cli(capsys, "opt", str(path))[1])
    assert res["value"] == 5.0 and res["problem"] == "load" and "records no problem" in res["problem_from"]


def test_opt_reads_an_adversary_s_or_an_experiment_s_problem(tmp_path, capsys):
    import schedbench

    played = schedbench.run_adversary("anr-flow", "ll-fifo", eps=0.25, adversary_params={"m": 4}, solve=False)
    path = tmp_path / "realised.npz"
    played.instance.save(path)
    res = json.loads(_cli(capsys, "opt", str(path))[1])
    assert res["problem"] == "maxflow" and res["problem_from"] == "the instance's meta (adversary anr-flow)"
    assert res["value"] == played.claimed_opt
    # a pipeline instance: its experiment's run tables say the problem
    exp = tmp_path / "results" / "flow_exp"
    inst = Instance.from_lists(1, [0, 0, 0, 2, 2], [1] * 5, [[0]] * 5, meta={"experiment": "flow_exp"})
    (exp / "instances" / "batch-0").mkdir(parents=True)
    (exp / "online").mkdir()
    inst.save(exp / "instances" / "batch-0" / "0000.npz")
    pd.DataFrame({"experiment": ["flow_exp"], "problem": ["maxflow"]}).to_parquet(exp / "online" / "batch-0.parquet")
    res = json.loads(_cli(capsys, "opt", str(exp / "instances" / "batch-0" / "0000.npz"))[1])
    assert (res["value"], res["problem"]) == (3.0, "maxflow")
    assert res["problem_from"] == "the run tables of its experiment flow_exp"


def test_check_on_a_file_of_the_package_checks_it_in_place(capsys):
    """An in-tree plug-in (a fork's) is checked without being loaded a second time (no clash)."""
    greedy = Path(registry.__file__).parent / "algorithms" / "greedy.py"
    code, out, err = _cli(capsys, "check", str(greedy))
    assert code == 0, out + err
    assert "PASS  algorithm greedy: fast path = step path — " in out and "compiled runs equal" in out


BAD_RULES = '''
"""bad-machine: every job to machine 99 (no instance has it)."""
import numpy as np
from schedbench.scheduling.algorithms.base import OnlineAlgorithm
from schedbench.scheduling.compiled import CompiledRun
from schedbench.scheduling.registry import register_algorithm

@register_algorithm
class BadMachine(OnlineAlgorithm):
    name = "bad-machine"
    problem = "maxflow"
    model = "plain"
    rule_label = "R"
    reference = "a broken plug-in"
    def on_arrival(self, job, view):
        return 99

@register_algorithm
class OneShort(OnlineAlgorithm):
    """one-short: a compiled path that forgets the last job."""
    name = "one-short"
    problem = "maxflow"
    model = "plain"
    rule_label = "R"
    reference = "a broken plug-in"
    def on_arrival(self, job, view):
        return int(job.eligible[0])
    def compiled_run(self, inst, order):
        n = inst.n - 1
        return CompiledRun(np.zeros(n, np.int64), np.zeros(n), np.zeros((0, 2), np.int64), np.zeros((0, 3)))
'''


def test_a_broken_plugin_is_one_line_naming_it_and_the_job_not_a_traceback(tmp_path, capsys):
    folder = tmp_path / "broken"
    folder.mkdir()
    (folder / "bad_rules.py").write_text(BAD_RULES)
    inst = tmp_path / "inst.npz"
    code, _, err = _cli(capsys, "generate", "random-restricted", str(inst), "--param", "m=4", "--param", "n=12")
    assert code == 0, err
    for name, message in [
        ("bad-machine", "'bad-machine': job 0 sent to machine 99, not in its eligible set"),
        ("one-short", "'one-short': its compiled path returned 11 machines"),
    ]:
        code, out, err = _cli(capsys, "--plugins", str(folder), "run", name, str(inst), "--problem", "maxflow")
        assert code == 2 and err.count("\n") == 1 and "Traceback" not in err, err
        assert err.startswith("schedbench: algorithm error: ") and message in err, err
    code, out, err = _cli(
        capsys,
        "--plugins",
        str(folder),
        "compare",
        "-a",
        "bad-machine",
        "--family",
        "random-restricted",
        "-p",
        "m=4",
        "-p",
        "n=12",
        "--instances",
        "2",
    )
    assert code == 0, err
    assert "bad-machine: not counted: 2 error (first: AlgorithmError: 'bad-machine': job 0 sent to machine 99" in out


def test_unwritable_outputs_and_overlong_names_are_one_error_before_any_work(tmp_path, capsys):
    blocked = tmp_path / "blocked"
    blocked.write_text("a file where a folder would go")
    small = ["compare", "-a", "ll-fifo", "--family", "random-restricted", "-p", "m=4", "-p", "n=8", "--instances", "2"]
    for argv, message in [
        (["new", "algorithm", "a" + "b" * 300, "--dir", str(tmp_path)], "301 characters, more than a plug-in name"),
        (["new", "algorithm", "okname", "--dir", str(blocked / "sub")], f"--dir {blocked / 'sub'}: cannot write there"),
        ([*small, "--plot", str(blocked / "x.png")], f"--plot {blocked / 'x.png'}: cannot make its folder"),
        ([*small, "--csv", str(blocked / "runs.csv")], f"--csv {blocked / 'runs.csv'}: cannot make its folder"),
    ]:
        code, out, err = _cli(capsys, *argv)
        assert code == 2 and err.startswith("schedbench: error: ") and message in err and "Traceback" not in err, err
        assert out == ""  # refused before any run
    assert sorted(p.name for p in tmp_path.iterdir()) == ["blocked"]


def test_a_comparison_beyond_the_cost_gate_is_refused_before_any_work(capsys):
    """100,000 instances of 10⁶ jobs: the run planner's estimate (the pipeline's gate) refuses
    it at once, naming what to reduce; nothing is generated."""
    import time

    t0 = time.perf_counter()
    code, out, err = _cli(
        capsys,
        "compare",
        "-a",
        "ll-fifo",
        "--family",
        "random-restricted",
        "-p",
        "m=100",
        "-p",
        "n=1000000",
        "--instances",
        "100000",
    )
    assert time.perf_counter() - t0 < 60  # a refusal, not a run (generous: the machine may be busy)
    assert code == 2 and out == "" and "h of CPU on this machine (more than 24 h)" in err, err
    assert "--instances" in err and "--accept-cost" in err


def test_a_mistyped_name_or_parameter_gets_a_suggestion(capsys):
    for argv, message in [
        (
            ["describe", "greedi"],
            "unknown name 'greedi': no registered algorithm or adversary or family has it; did you mean 'greedy'?",
        ),
        (
            ["compare", "-a", "ll-fifoo", "-f", "random-restricted", "-p", "m=4", "-p", "n=8"],
            "unknown algorithm 'll-fifoo'; did you mean 'll-fifo'? Registered: ",
        ),
        (
            ["compare", "-a", "ll-fifo:dispatc=work", "-f", "random-restricted", "-p", "m=4", "-p", "n=8"],
            "has no parameter 'dispatc'; did you mean 'dispatch'?",
        ),
        (
            ["compare", "-a", "ll-fifo", "-f", "random-restricted", "-p", "m=4", "-p", "nn=5"],
            "has no parameter 'nn'; did you mean 'n'?",
        ),
        (["describe", "zzzzzz"], "has it; see schedbench list"),  # nothing close: no suggestion
    ]:
        code, _, err = _cli(capsys, *argv)
        assert code == 2 and message in err, err


@pytest.mark.parametrize("problem", ["load", "maxflow", "genwtd"])
def test_the_rejection_template_rejects_within_its_budget(tmp_path, capsys, problem):
    """`new --model rejection` writes a rule that uses its budget (Budget.take with the problem's
    weights): on a loaded family it rejects some jobs, every run valid, no prefix over ε."""
    from schedbench.scheduling.stage.compare import compare, plan

    folder = tmp_path / "rej"
    code, _, err = _cli(
        capsys,
        "new",
        "algorithm",
        f"wf-rej-{problem}",
        "--model",
        "rejection",
        "--problem",
        problem,
        "--dir",
        str(folder),
    )
    assert code == 0, err
    text = (folder / f"wf_rej_{problem}.py").read_text()
    assert "self.budget.take(" in text and "Param(1.5, None" in text and "min=0" in text  # the keywords shown
    registry.use_plugins([str(folder)])
    params = {"m": 4, "n": 120, "arrivals": "poisson", "load": 1.2}
    if problem == "genwtd":
        params.update(weights="classes", reject_weights="independent")
    table = compare(
        plan({f"wf-rej-{problem}": {}}, [0.25], family="random-restricted", params=params, instances=3, problem=problem)
    )
    assert (table["status"] == "ok").all(), table[["status", "errors"]]
    assert table["rejected_frac"].max() > 0  # it uses its budget
    assert (table["rejected_frac_max_prefix"] <= 0.25 + 1e-9).all()
