"""Runs you can compare (schedbench.hall.archive, .run_diff, .merge): archive a finished run, diff
two runs, merge the parts of one run. The runs are real results tables built by the pipeline's own
functions on tiny instances, each with its config file, in a temporary directory."""

from __future__ import annotations

import argparse
import json
import re
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from schedbench.hall.archive import ArchiveError, archive, list_archives
from schedbench.cli.archive import add_commands
from schedbench.hall.config import ConfigError, config_hash
from schedbench.hall.io import check_results, provenance, write_parquet
from schedbench.hall.merge import merge
from schedbench.hall.run_config import config_of_files
from schedbench.hall.run_diff import diff
from schedbench.scheduling.stage.experiment import make_instances, run_adversary, run_online_batch, solve_offline
from schedbench.scheduling.stage.results import assemble

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = ROOT / "workflow/schemas/results.schema.yaml"
FAMILY = {"family": "random-restricted", "params": {"m": 4, "n": 16, "d": 2, "sizes": "unit"}, "instances": 4}
ADVERSARY = {"adversary": "anr-tree", "params": {"m": 8}, "seeds": 1, "algorithms": {"greedy": None}}


def _config(alpha_rule: str, adversary: bool = True) -> dict:
    exps = {"ru": {**FAMILY, "algorithms": {"greedy": None, "lb-unit-reject": {"alpha_rule": alpha_rule}}}}
    if adversary:
        exps["adv"] = ADVERSARY
    return {"seed": 7, "eps": [0.5, 0.25], "experiments": exps}


@pytest.fixture(scope="module")
def parts(tmp_path_factory):
    """Every part the runs below are assembled from, computed once."""
    tmp = tmp_path_factory.mktemp("parts")
    cfg = _config("paper")
    paths = make_instances("ru", FAMILY, 7, range(4), tmp / "ru")
    opt = solve_offline(paths, "load", 10.0, 7)
    out = {"opt": [opt]}
    out["greedy"] = run_online_batch(paths, opt, {"greedy": None}, cfg["eps"], 7)
    for rule in ("paper", "safe"):
        out[rule] = run_online_batch(paths, opt, {"lb-unit-reject": {"alpha_rule": rule}}, cfg["eps"], 7)
    adv = run_adversary("adv", ADVERSARY, "greedy", None, cfg["eps"], 7, tmp / "adv")
    out["adv"] = adv
    out["adv_opt"] = solve_offline(sorted((tmp / "adv").glob("*.npz")), "load", 10.0, 7)
    return out


def _write_run(root: Path, parts, alpha_rule: str = "paper", adversary: bool = True) -> Path:
    """A finished run in ``root``: its config file and results/runs.parquet with provenance."""
    cfg = _config(alpha_rule, adversary)
    (root / "config").mkdir(parents=True)
    (root / "config" / "run.yaml").write_text(yaml.safe_dump(cfg, sort_keys=False))
    h = config_hash(config_of_files([root / "config" / "run.yaml"], root))
    runs = [parts["greedy"], parts[alpha_rule]] + ([parts["adv"]] if adversary else [])
    opts = parts["opt"] + ([parts["adv_opt"]] if adversary else [])
    table = assemble(runs, opts, provenance(h))
    check_results(table, SCHEMA)
    write_parquet(table, root / "results" / "runs.parquet")
    return root


@pytest.fixture(scope="module")
def run_a(parts, tmp_path_factory):
    return _write_run(tmp_path_factory.mktemp("a"), parts)


@pytest.fixture(scope="module")
def run_b(parts, tmp_path_factory):
    return _write_run(tmp_path_factory.mktemp("b"), parts, alpha_rule="safe")


def _copy(run: Path, dest: Path, edit=None) -> Path:
    shutil.copytree(run, dest)
    if edit is not None:
        path = dest / "results" / "runs.parquet"
        write_parquet(edit(pd.read_parquet(path)), path)
    return dest


def test_the_config_hash_of_a_file_is_the_pipelines(run_a):
    # the Snakefile's steps: read, base, schema defaults filled (here batch_size, opt, figures, plugins)
    cfg = config_of_files([run_a / "config/run.yaml"], run_a)
    assert cfg["batch_size"] == 10 and cfg["opt"]["time_limit"] == 600 and cfg["opt"]["work_limit"] == 60
    assert pd.read_parquet(run_a / "results/runs.parquet")["config_hash"].iloc[0] == config_hash(cfg)


def test_diff_shows_one_parameter_change_with_its_values_and_nothing_else(run_a, run_b):
    """One parameter changed (alpha_rule paper → safe): the setting is paired, not listed as
    "disappeared" and "appeared", and each metric that moved is shown with both values (the
    groups' means, re-computed here from the tables) and whether it moved beyond the noise."""
    d = diff(str(run_a), str(run_b))
    ch = d.changes
    assert set(ch["algorithm"]) == {"lb-unit-reject"} and set(ch["experiment"]) == {"ru"}
    assert not ch["kind"].isin(["appeared", "disappeared"]).any()
    settings = ch[ch["kind"] == "setting"]
    assert set(settings["params"]) == {"alpha_rule: paper → safe"}  # only what differs
    assert sorted(settings["eps"]) == ["0.25", "0.5"]
    values = ch[(ch["level"] == "setting") & (ch["kind"] != "setting")]
    assert len(values) and values[["a", "b"]].notna().all().all()  # --json: never null
    ta, tb = pd.read_parquet(run_a / "results/runs.parquet"), pd.read_parquet(run_b / "results/runs.parquet")
    for r in values.itertuples():
        sel_a = (ta["algorithm"] == "lb-unit-reject") & (ta["eps"] == float(r.eps))
        sel_b = (tb["algorithm"] == "lb-unit-reject") & (tb["eps"] == float(r.eps))
        assert r.a == pytest.approx(ta.loc[sel_a, r.metric].mean()) and r.b == pytest.approx(
            tb.loc[sel_b, r.metric].mean()
        )
        assert r.kind == ("noise" if r.a_lo <= r.b_hi and r.b_lo <= r.a_hi else "changed")
    assert d.config["keys"] == [
        {"key": "experiments.ru.algorithms.lb-unit-reject.alpha_rule", "a": "paper", "b": "safe"}
    ]
    assert not d.config["same"] and d.packages["same"] and d.platform["same"] and d.code["a"] == d.code["b"]
    assert not d.unchanged and d.summary["results/runs.parquet"]["settings"] == 2
    text = d.report()
    assert "experiments.ru.algorithms.lb-unit-reject.alpha_rule: paper → safe" in text
    assert "setting      ru lb-unit-reject (alpha_rule: paper → safe) ε=0.5 (4 → 4 runs)\n" in text
    assert "ε=0.25 (4 → 4 runs): every value the same" in text
    first = values.iloc[0]
    assert f"{first.metric} {first.a:.6g}" in text
    assert "greedy" not in text  # nothing else
    assert "2 settings changed" in text.splitlines()[1]  # the summary comes first
    json.dumps(d.to_dict(), default=str)


def test_a_group_that_only_one_run_has_is_shown_with_its_values(run_a, tmp_path):
    def more(df):  # a second setting of the same algorithm in b: nothing to pair, so it appears
        extra = df[df["algorithm"] == "greedy"].assign(p_ties="random")
        return pd.concat([df, extra], ignore_index=True)

    d = diff(str(run_a), str(_copy(run_a, tmp_path / "more", more)))
    came = d.changes[d.changes["kind"] == "appeared"]
    assert len(came) == 2 and came["b"].notna().all() and came["a"].isna().all()
    assert "appeared     group ru greedy (ties=random) (4 rows): ratio " in d.report()  # a plain rule: no ε


def test_identical_runs_and_timing_only_differences_show_no_change(run_a, tmp_path):
    same = _copy(run_a, tmp_path / "same")
    d = diff(str(run_a), str(same))
    assert d.unchanged and d.report().splitlines()[1] == "summary:   no changes beyond the noise"
    assert d.summary["results/runs.parquet"]["same"] == d.summary["results/runs.parquet"]["groups"] > 0

    def slower(df):
        return df.assign(seconds=df["seconds"] * 7 + 1, opt_seconds=df["opt_seconds"] + 3)

    d = diff(str(run_a), str(_copy(run_a, tmp_path / "slow", slower)))
    assert d.unchanged and d.summary["results/runs.parquet"]["noise"] == 0


def test_changes_beyond_the_noise_and_within_it(run_a, tmp_path):
    def within(df):  # one of four instances a little worse: the CIs overlap
        i = df.index[(df["algorithm"] == "greedy") & (df["experiment"] == "ru")][0]
        df.loc[i, "ratio"] *= 1.05
        return df

    d = diff(str(run_a), str(_copy(run_a, tmp_path / "within", within)))
    assert d.unchanged and d.summary["results/runs.parquet"]["noise"] == 1

    def beyond(df):  # every instance twice as bad
        sel = (df["algorithm"] == "greedy") & (df["experiment"] == "ru")
        df.loc[sel, "ratio"] *= 2
        return df

    d = diff(str(run_a), str(_copy(run_a, tmp_path / "beyond", beyond)))
    assert list(zip(d.changes["kind"], d.changes["algorithm"], d.changes["metric"])) == [("changed", "greedy", "ratio")]
    assert d.changes["b"].iloc[0] == pytest.approx(2 * d.changes["a"].iloc[0])
    assert "changed      ru greedy" in d.report() and "1 change beyond the noise" in d.report()

    # a deterministic single-run group (one adversary game): exact up to 1e-9 relative
    def nudge(factor):
        def edit(df):
            df.loc[df["experiment"] == "adv", "objective"] *= factor
            return df

        return edit

    assert diff(str(run_a), str(_copy(run_a, tmp_path / "tiny", nudge(1 + 1e-12)))).unchanged
    d = diff(str(run_a), str(_copy(run_a, tmp_path / "small", nudge(1 + 1e-6))))
    assert set(zip(d.changes["experiment"], d.changes["metric"])) == {("adv", "objective")}


def test_appeared_and_disappeared_experiments_algorithms_and_groups(run_a, parts, tmp_path):
    fewer = _write_run(tmp_path / "fewer", parts, adversary=False)
    fewer_runs = pd.read_parquet(fewer / "results/runs.parquet")
    write_parquet(fewer_runs[fewer_runs["algorithm"] != "greedy"], fewer / "results/runs.parquet")
    d = diff(str(run_a), str(fewer))
    got = set(zip(d.changes["kind"], d.changes["level"], d.changes["experiment"], d.changes["algorithm"]))
    assert got == {("disappeared", "experiment", "adv", ""), ("disappeared", "algorithm", "ru", "greedy")}
    assert {k["key"] for k in d.config["keys"]} == {
        "experiments.adv.adversary",
        "experiments.adv.params.m",
        "experiments.adv.seeds",
        "experiments.adv.algorithms.greedy",
    }
    assert {k["b"] for k in d.config["keys"]} == {"(absent)"}
    back = diff(str(fewer), str(run_a))
    assert set(back.changes["kind"]) == {"appeared"}
    # one ε less: the groups disappear, the experiment and algorithms stay
    d = diff(str(run_a), str(_copy(run_a, tmp_path / "eps", lambda df: df[df["eps"] != 0.25])))
    assert set(d.changes["level"]) == {"group"} and set(d.changes["eps"]) == {"0.25"}
    assert set(d.changes["kind"]) == {"disappeared"}


def test_archive_stores_the_run_and_refuses_overwrite_and_missing_runs(run_a, tmp_path):
    work = _copy(run_a, tmp_path / "work")
    (work / "paper/figures").mkdir(parents=True)
    (work / "paper/figures/ratio_vs_eps_load.pdf").write_bytes(b"%PDF-1.4 fake")
    (work / "paper/figures/ratio_vs_eps_load.png").write_bytes(b"fake png")
    (work / "paper/tables").mkdir()
    (work / "paper/tables/ratios.tex").write_text("\\begin{tabular}{l}\\end{tabular}\n")
    path = archive(root=work)
    h = pd.read_parquet(work / "results/runs.parquet")["config_hash"].iloc[0]
    assert re.fullmatch(rf"\d{{4}}-\d\d-\d\d-[0-9a-f]{{7}}(-dirty)?-{h[:8]}", path.name)
    assert path.parent == work / "results/archive"
    m = json.loads((path / "manifest.json").read_text())
    stored = {f["path"] for f in m["files"]}
    assert {
        "results/runs.parquet",
        "paper/figures/ratio_vs_eps_load.pdf",
        "paper/figures/ratio_vs_eps_load.png",
        "paper/tables/ratios.tex",
        "config/run.yaml",
        "config.resolved.json",
    } <= stored
    import hashlib

    for f in m["files"]:
        assert hashlib.sha256((path / f["path"]).read_bytes()).hexdigest() == f["sha256"], f["path"]
    assert m["config"]["hash"] == h and m["config"]["verified"] and m["provenance"]["config_hash"] == h
    assert set(m["provenance"]) >= {"commit", "dirty", "packages", "platform", "schedbench_version"}
    assert list_archives(work)["name"].tolist() == [path.name]
    # the archive against the run it came from, by name
    assert diff(path.name, "current", root=work).unchanged
    with pytest.raises(ArchiveError, match=f"name: archive '{path.name}' exists already"):
        archive(root=work)
    assert sorted(p.name for p in (work / "results/archive").iterdir()) == [path.name]  # no half-written one
    with pytest.raises(ArchiveError, match="name: .* not a valid archive name"):
        archive("../x", root=work)
    from schedbench.hall.runlock import hold_run_lock

    lock = hold_run_lock(work / ".snakemake/schedbench-run.lock")  # a pipeline running there
    try:
        with pytest.raises(ArchiveError, match="root: a pipeline is running in"):
            archive("later", root=work)
    finally:
        lock.close()
    empty = tmp_path / "empty"
    (empty / "results").mkdir(parents=True)
    with pytest.raises(ArchiveError, match="root: no finished run .*results/runs.parquet is missing"):
        archive(root=empty)
    assert isinstance(ArchiveError("x"), ValueError) and issubclass(ArchiveError, ConfigError)


def test_archive_checks_a_given_config_against_the_hash(run_a, run_b, tmp_path):
    work = _copy(run_a, tmp_path / "work")
    with pytest.raises(ArchiveError, match="--configfile: .* gives config hash [0-9a-f]{16}, the run's tables have"):
        archive("x", root=work, configfiles=[str(run_b / "config/run.yaml")])
    (work / "config/run.yaml").unlink()  # no config to be found: archived without, and said so
    m = json.loads((archive("y", root=work) / "manifest.json").read_text())
    assert m["config"]["files"] == [] and "give --configfile" in m["config"]["note"]
    d = diff("y", str(run_b), root=work)
    assert d.config["keys"] is None and "give --configfile" in d.report()


def test_merge_of_two_halves_is_the_whole(run_a, parts, tmp_path):
    whole = pd.read_parquet(run_a / "results/runs.parquet")
    h1, h2 = tmp_path / "h1.parquet", tmp_path / "h2.parquet"
    first = whole["instance_index"] < 2
    write_parquet(whole[first], h1)
    write_parquet(whole[~first], h2)
    merged = merge([h2, h1], tmp_path / "m.parquet")
    pd.testing.assert_frame_equal(merged, whole)
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "m.parquet"), whole)
    # split by algorithm (each part assembled on its own: instance_tied recomputed on the whole)
    h = whole["config_hash"].iloc[0]
    write_parquet(assemble([parts["greedy"], parts["adv"]], [*parts["opt"], parts["adv_opt"]], provenance(h)), h1)
    write_parquet(assemble([parts["paper"]], parts["opt"], provenance(h)), h2)
    merged = merge([h1, h2], tmp_path / "m2.parquet")
    pd.testing.assert_frame_equal(merged, whole)
    # overlapping parts: identical duplicates are kept once
    pd.testing.assert_frame_equal(merge([run_a, h2], tmp_path / "m3.parquet"), whole)
    with pytest.raises(ArchiveError, match="out: .* exists already"):
        merge([h1, h2], tmp_path / "m2.parquet")


def test_merge_refuses_other_configs_and_conflicting_duplicates(run_a, run_b, tmp_path):
    ha = pd.read_parquet(run_a / "results/runs.parquet")["config_hash"].iloc[0]
    hb = pd.read_parquet(run_b / "results/runs.parquet")["config_hash"].iloc[0]
    with pytest.raises(ArchiveError, match=f"parts: config hash differs: .* has {ha}, .* has {hb}"):
        merge([run_a, run_b], tmp_path / "m.parquet")
    assert not (tmp_path / "m.parquet").exists()
    whole = pd.read_parquet(run_a / "results/runs.parquet")
    bad = whole.copy()
    bad.loc[0, "objective"] += 1
    write_parquet(bad, tmp_path / "bad.parquet")
    r = whole.iloc[0]
    with pytest.raises(
        ArchiveError, match=f"parts: conflicting duplicate instance={r['instance']}; algorithm="
    ) as info:
        merge([run_a, tmp_path / "bad.parquet"], tmp_path / "m.parquet")
    assert "differ in objective" in str(info.value)
    # different timing only: not a conflict
    write_parquet(whole.assign(seconds=whole["seconds"] + 1), tmp_path / "slow.parquet")
    assert len(merge([run_a, tmp_path / "slow.parquet"], tmp_path / "m.parquet")) == len(whole)


def test_points_of_ci_tables_compare_by_their_cis():
    from schedbench.hall.run_diff import _diff_points

    base = pd.DataFrame(
        {
            "experiment": ["A1", "A1", "A2"],
            "n": [10, 100, 10],
            "blocking": [0.10, 0.01, 0.5],
            "blocking_ci_lo": [0.09, 0.008, 0.45],
            "blocking_ci_hi": [0.11, 0.012, 0.55],
            "exact_blocking": [0.1, np.nan, np.nan],
            "events": [1000, 2000, 3000],
            "seconds": [1.0, 2.0, 3.0],
        }
    )
    other = base.copy()
    other.loc[0, ["blocking", "blocking_ci_lo", "blocking_ci_hi"]] = [0.105, 0.095, 0.115]  # within the noise
    other.loc[1, ["blocking", "blocking_ci_lo", "blocking_ci_hi"]] = [0.03, 0.025, 0.035]  # beyond it
    other["events"] += 7  # a random outcome, not compared
    other["seconds"] *= 2
    rows, counts = _diff_points("results/loss.parquet", base, other.drop(index=2))
    assert [(r["kind"], r["level"], r["metric"] or r["experiment"]) for r in rows] == [
        ("disappeared", "experiment", "A2"),
        ("changed", "point", "blocking"),
    ]
    assert counts["noise"] == 1 and counts["changed"] == 1 and "n=100" in rows[1]["key"]


def test_the_commands(run_a, run_b, tmp_path, capsys):
    parser = argparse.ArgumentParser(prog="schedbench")
    add_commands(parser.add_subparsers(dest="command", required=True))

    def run(*argv):
        args = parser.parse_args(list(argv))
        return args.func(args)

    assert run("diff", str(run_a), str(run_b), "--exit-code") == 1
    assert "alpha_rule: paper → safe" in capsys.readouterr().out
    assert run("diff", str(run_a), str(run_a), "--json") == 0
    assert json.loads(capsys.readouterr().out)["unchanged"] is True
    with pytest.raises(ArchiveError, match="^a: 'nope' is neither 'current'"):
        run("diff", "nope", "--root", str(run_a))
    work = _copy(run_a, tmp_path / "work")
    assert run("archive", "first", "--root", str(work)) == 0
    assert "archived" in capsys.readouterr().out
    assert run("archive", "--list", "--root", str(work)) == 0
    assert "first" in capsys.readouterr().out
    with pytest.raises(ArchiveError, match="^name: archive 'first' exists already"):
        run("archive", "first", "--root", str(work))
    assert run("merge", str(run_a), str(work / "results/archive/first"), "-o", str(tmp_path / "m.parquet")) == 0
    assert "merged 2 parts" in capsys.readouterr().out


def _numpy_mean_ci(x: np.ndarray, n_boot: int = 2000) -> tuple[float, float, float]:
    """The mean and percentile-bootstrap 95 % interval of ``x``, written out with numpy (seed 0;
    a point interval for one value or equal values)."""
    x = x[np.isfinite(x)]
    if x.size < 2 or np.all(x == x[0]):
        return (x.mean(),) * 3
    means = x[np.random.default_rng(0).integers(0, x.size, size=(n_boot, x.size))].mean(axis=1)
    lo, hi = np.quantile(means, [0.025, 0.975])
    return x.mean(), lo, hi


def test_the_paired_difference_on_shared_instances_is_a_numpy_recomputation(run_a, tmp_path):
    """b: the ru greedy group's objective scaled per instance and its rejected fraction moved,
    its rows shuffled and one instance dropped; the paired statistics pair by instance (not by
    row) on the 3 shared instances and equal numpy's geometric mean of b/a, mean of b − a and
    their bootstrap intervals. Text and JSON carry the same numbers."""
    factor = {"ru/0000": 1.5, "ru/0001": 2.0, "ru/0002": 1.0, "ru/0003": 1.25}
    added = {"ru/0000": 0.25, "ru/0001": 0.0, "ru/0002": 0.5, "ru/0003": 0.125}

    def edit(df):
        sel = (df["algorithm"] == "greedy") & (df["experiment"] == "ru")
        df.loc[sel, "objective"] *= df.loc[sel, "instance"].map(factor)
        df.loc[sel, "rejected_frac"] += df.loc[sel, "instance"].map(added)
        df = df[~(sel & (df["instance"] == "ru/0002"))]
        return df.sample(frac=1.0, random_state=3).reset_index(drop=True)

    b = _copy(run_a, tmp_path / "b", edit)
    d = diff(str(run_a), str(b))
    got = d.paired[(d.paired["experiment"] == "ru") & (d.paired["algorithm"] == "greedy")].iloc[0]
    shared = ["ru/0000", "ru/0001", "ru/0003"]
    assert got["n_pairs"] == 3 and got["level"] == "group" and got["verdict"] == "changed"
    g, glo, ghi = _numpy_mean_ci(np.log([factor[i] for i in shared]))
    assert (got["objective_ratio"], got["objective_ratio_lo"], got["objective_ratio_hi"]) == pytest.approx(
        (np.exp(g), np.exp(glo), np.exp(ghi)), rel=1e-12
    )
    r, rlo, rhi = _numpy_mean_ci(np.array([added[i] for i in shared]))
    assert (got["rejected_diff"], got["rejected_diff_lo"], got["rejected_diff_hi"]) == pytest.approx(
        (r, rlo, rhi), rel=1e-12
    )
    others = d.paired[~((d.paired["experiment"] == "ru") & (d.paired["algorithm"] == "greedy"))]
    assert (others["verdict"] == "same").all() and (others["objective_ratio"] == 1).all()
    assert not d.unchanged
    text = d.report()
    assert text.splitlines()[1].startswith("summary:   ")
    assert f"paired on 3 shared instances: objective b/a {np.exp(g):.6g} [{np.exp(glo):.6g}, {np.exp(ghi):.6g}]" in text
    as_json = json.loads(json.dumps(d.to_dict(), default=str))["paired"]
    mine = next(p for p in as_json if p["experiment"] == "ru" and p["algorithm"] == "greedy")
    assert mine["objective_ratio"] == pytest.approx(np.exp(g)) and mine["rejected_diff_hi"] == pytest.approx(rhi)


def test_a_paired_shift_within_the_unpaired_noise_is_a_change(run_a, tmp_path):
    """Every instance 2 % worse: the groups' intervals overlap, the paired ratio's does not
    include 1."""

    def edit(df):
        df.loc[(df["algorithm"] == "greedy") & (df["experiment"] == "ru"), "objective"] *= 1.02
        return df

    d = diff(str(run_a), str(_copy(run_a, tmp_path / "b", edit)))
    ch = d.changes
    assert list(ch["kind"]) == ["noise"] and list(ch["metric"]) == ["objective"]
    got = d.paired[(d.paired["algorithm"] == "greedy") & (d.paired["experiment"] == "ru")].iloc[0]
    assert got["objective_ratio"] == got["objective_ratio_lo"] == got["objective_ratio_hi"] == pytest.approx(1.02)
    assert got["verdict"] == "changed" and not d.unchanged
    assert d.summary["results/runs.parquet"]["changed"] == 1
    assert "summary:   1 change beyond the noise" in d.report()


def test_match_pairs_groups_on_the_keys_given(run_a, tmp_path):
    """A renamed experiment is "disappeared"/"appeared" on the whole identity; matched on the
    other keys, each of its groups is paired a → b with its values and paired differences."""

    def renamed(df):
        sel = df["experiment"] == "ru"
        df.loc[sel, "experiment"] = "ru2"
        df.loc[sel & (df["algorithm"] == "greedy"), "objective"] *= 2
        return df

    b = _copy(run_a, tmp_path / "b", renamed)
    plain = diff(str(run_a), str(b))
    assert set(zip(plain.changes["kind"], plain.changes["level"])) == {
        ("disappeared", "experiment"),
        ("appeared", "experiment"),
    }
    d = diff(str(run_a), str(b), match="algorithm,eps,adversary.m")
    settings = d.changes[d.changes["kind"] == "setting"]
    assert set(settings["experiment"]) == {"ru → ru2"} and len(settings) == 3
    assert not d.changes["kind"].isin(["appeared", "disappeared"]).any()
    greedy = d.paired[d.paired["algorithm"] == "greedy"].set_index("experiment")
    assert greedy.loc["ru → ru2", "objective_ratio"] == pytest.approx(2.0) and greedy.loc["adv", "level"] == "group"
    assert "setting      ru → ru2 greedy (4 → 4 runs)" in d.report()
    assert diff(str(run_a), str(b), match=["algorithm", "eps", "adversary.m"]).paired.equals(d.paired)


@pytest.mark.parametrize(
    "match, message",
    [
        ("alpha_rul", r"match: unknown key 'alpha_rul'; did you mean 'alpha_rule'\? keys: experiment, algorithm, eps"),
        ("experiment,", r"match: unknown key ''"),
        ("experiment,algorithm", r"match: experiment=ru, algorithm=lb-unit-reject matches 2 groups of a .*ε=0.25"),
    ],
)
def test_a_bad_match_is_one_error_naming_it(run_a, match, message):
    with pytest.raises(ArchiveError, match=message):
        diff(str(run_a), str(run_a), match=match)


def test_the_command_line_matches_and_lists_in_full(run_a, run_b, capsys):
    parser = argparse.ArgumentParser(prog="schedbench")
    add_commands(parser.add_subparsers(dest="command", required=True))

    def run(*argv):
        args = parser.parse_args(list(argv))
        return args.func(args)

    assert run("diff", str(run_a), str(run_b), "--match", "experiment,algorithm,eps", "--json") == 0
    out = json.loads(capsys.readouterr().out)
    assert {p["params"] for p in out["paired"] if p["level"] == "setting"} == {"alpha_rule: paper → safe"}
    assert run("diff", str(run_a), str(run_b), "--full") == 0
    text = capsys.readouterr().out
    assert (
        "same         ru greedy (ties=index): paired on 4 shared instances: objective b/a 1, rejected_frac b−a 0"
        in text
    )


def _archived(run_a, tmp_path) -> Path:
    """An archive of run_a (its own copy of the run, so the test may damage it)."""
    work = _copy(run_a, tmp_path / "work")
    return archive(root=work)


def test_a_manifest_cannot_point_outside_its_archive(run_a, tmp_path):
    path = _archived(run_a, tmp_path)
    secret = tmp_path / "secret.json"
    secret.write_text(json.dumps({"seed": 666}))
    m = json.loads((path / "manifest.json").read_text())
    for field, value in (("resolved", "../../../secret.json"), ("resolved", str(secret))):
        bad = {**m, "config": {**m["config"], field: value}}
        (path / "manifest.json").write_text(json.dumps(bad))
        with pytest.raises(ArchiveError, match="config.resolved: .* points outside"):
            diff(str(path), str(path), root=tmp_path / "work")
    bad = {**m, "files": [*m["files"], {"path": "../../../../etc/passwd", "sha256": "0" * 64}]}
    (path / "manifest.json").write_text(json.dumps(bad))
    with pytest.raises(ArchiveError, match=r"files\[\d+\]\.path: .* points outside"):
        diff(str(path), "current", root=tmp_path / "work")
    for text, needle in (("{", "not readable JSON"), ("[]", "a list 'files'")):
        (path / "manifest.json").write_text(text)
        with pytest.raises(ArchiveError, match=needle):
            diff(str(path), "current", root=tmp_path / "work")


def test_a_results_table_that_is_a_symlink_out_of_the_run_is_refused(run_a, tmp_path):
    work = _copy(run_a, tmp_path / "work")
    outside = tmp_path / "elsewhere.parquet"
    shutil.move(work / "results/runs.parquet", outside)
    (work / "results/runs.parquet").symlink_to(outside)
    with pytest.raises(ArchiveError, match="results/runs.parquet.*points outside"):
        diff("current", "current", root=work)


def test_diff_reads_only_the_known_tables_and_checks_their_columns(run_a, tmp_path):
    work = _copy(run_a, tmp_path / "work")
    # a parquet diff does not know: never opened (a crafted one of 10^8 zeros would take gigabytes)
    (work / "results/unknown.parquet").write_bytes(b"not a parquet file at all")
    assert diff("current", "current", root=work).unchanged
    no_ratio = _copy(run_a, tmp_path / "no_ratio", edit=lambda df: df.drop(columns=["ratio"]))
    with pytest.raises(ArchiveError, match="has no column 'ratio'"):
        diff(str(no_ratio), "current", root=work)
    (work / "results/runs.parquet").write_text("experiment,algorithm\nx,y\n")  # text for parquet
    with pytest.raises(ArchiveError, match="results/runs.parquet: .* is not a readable parquet table"):
        diff("current", str(run_a), root=work)


def test_a_table_that_decompresses_past_the_limit_is_refused_before_reading(run_a, tmp_path, monkeypatch):
    import schedbench.hall.archive_checks as checks

    work = _copy(run_a, tmp_path / "work")
    monkeypatch.setattr(checks, "MAX_TABLE_BYTES", 1)  # the real limit is 4 GiB
    called = []
    monkeypatch.setattr(checks.pd, "read_parquet", lambda *a, **k: called.append(a))
    with pytest.raises(ArchiveError, match="uncompressed .* refused before reading"):
        diff("current", "current", root=work)
    assert not called
    with pytest.raises(ArchiveError, match="uncompressed .* refused before reading"):
        merge([work], tmp_path / "m.parquet")


@pytest.mark.parametrize("n_boot", [10**9, 99, 2.5, True])
def test_a_bootstrap_too_large_or_malformed_is_refused_before_any_draw(run_a, n_boot):
    with pytest.raises(ArchiveError, match="n_boot: an integer from 100 to 100,000"):
        diff(str(run_a), str(run_a), n_boot=n_boot)


def test_merge_reads_only_a_known_table_inside_each_part(run_a, tmp_path):
    for table in ("../../etc/passwd", "unknown.parquet"):
        with pytest.raises(ArchiveError, match="table: .* is not a results table merge knows"):
            merge([run_a], tmp_path / "m.parquet", table=table)


def test_a_config_file_named_by_the_runs_macros_must_lie_inside_the_run(run_a, tmp_path):
    work = _copy(run_a, tmp_path / "work")
    (work / "config/run.yaml").rename(tmp_path / "outside.yaml")  # only the crafted name could find it
    (work / "paper").mkdir()
    h = pd.read_parquet(work / "results/runs.parquet")["config_hash"].iloc[0]
    (work / "paper/macros_config.tex").write_text(
        "\\newcommand{\\ConfigFile}{\\texttt{../outside.yaml}}\n\\newcommand{\\ConfigHash}{\\texttt{%s}}\n" % h
    )
    d = diff("current", "current", root=work)  # the tables still compare; the config is not read
    assert d.config["keys"] is None and "ConfigFile: '../outside.yaml' points outside" in d.config["note"]


def _with_packages(**recorded):
    """An edit of a runs table: these entries put into (or, given None, taken out of) the
    ``packages`` provenance of every row."""

    def edit(df):
        pk = {**json.loads(df["packages"].iloc[0]), **recorded}
        return df.assign(packages=json.dumps({k: v for k, v in pk.items() if v is not None}, sort_keys=True))

    return edit


def test_an_edited_plugin_shows_in_the_provenance_and_in_diff(run_a, tmp_path):
    """The SHA-256 of each loaded plug-in file is recorded with the packages (``provenance``);
    two runs at one commit whose plug-in differs name the file in ``diff``, with both hashes."""
    import hashlib

    plugin = tmp_path / "my_rule.py"
    plugin.write_text("# version 1\n")
    digest = hashlib.sha256(b"# version 1\n").hexdigest()
    assert json.loads(provenance("h", [str(plugin)])["packages"])["plug-in my_rule.py"] == digest
    plugin.write_text("# version 2\n")
    second = json.loads(provenance("h", [str(plugin)])["packages"])["plug-in my_rule.py"]
    assert second == hashlib.sha256(b"# version 2\n").hexdigest() != digest

    ra = _copy(run_a, tmp_path / "pa", _with_packages(**{"plug-in my_rule.py": digest}))
    rb = _copy(run_a, tmp_path / "pb", _with_packages(**{"plug-in my_rule.py": second}))
    d = diff(str(ra), str(rb))
    assert d.code["a"] == d.code["b"] and d.packages["same"]  # a plug-in is not a package
    assert d.plugins["files"] == [{"file": "my_rule.py", "change": "changed", "a": digest, "b": second}]
    text = d.report()
    assert f"\nplug-in my_rule.py: changed (sha256 {digest} → {second})\n" in text
    assert d.to_dict()["plugins"]["files"][0]["b"] == second
    # the same file: one line saying so; an older table's 12-digit hash is the same file
    same = diff(str(ra), str(_copy(run_a, tmp_path / "pc", _with_packages(**{"plug-in my_rule.py": digest[:12]}))))
    assert same.plugins["same"] and "plug-ins:  same (my_rule.py)" in same.report()
    # a plug-in only one run loaded
    gone = diff(str(ra), str(run_a)).plugins["files"]
    assert gone == [{"file": "my_rule.py", "change": "only in a", "a": digest, "b": None}]


def test_the_package_sources_hash_tells_uncommitted_edits_apart(run_a, tmp_path):
    """``schedbench sources`` is the SHA-256 over each source file's path and SHA-256 (recomputed
    here); two runs of one commit whose sources differ say so on the code line."""
    import hashlib

    from schedbench.hall.io import sources_digest

    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "a.py").write_text("x = 1\n")
    (pkg / "sub" / "b.py").write_text("y = 2\n")
    (pkg / "notes.txt").write_text("not a source")
    lines = "".join(
        f"{rel}\0{hashlib.sha256(text).hexdigest()}\n" for rel, text in (("a.py", b"x = 1\n"), ("sub/b.py", b"y = 2\n"))
    )
    assert sources_digest(pkg) == hashlib.sha256(lines.encode()).hexdigest()
    before = sources_digest(pkg)
    (pkg / "sub" / "b.py").write_text("y = 3\n")
    assert sources_digest(pkg) != before
    assert json.loads(provenance("h")["packages"])["schedbench sources"] == sources_digest()

    ra = _copy(run_a, tmp_path / "sa", _with_packages(**{"schedbench sources": "1" * 64}))
    rb = _copy(run_a, tmp_path / "sb", _with_packages(**{"schedbench sources": "2" * 64}))
    d = diff(str(ra), str(rb))
    assert not d.code["same"] and d.code["sources_same"] is False and d.packages["same"]
    assert f"package sources differ: sha256 {'1' * 64} → {'2' * 64}" in d.report().splitlines()[2]
    assert diff(str(ra), str(ra)).code["same"]


def test_the_manifest_records_and_keeps_every_plugin_file_of_the_run(run_a, tmp_path, monkeypatch):
    """The archive lists each plug-in file the run recorded with its SHA-256 and stores a copy
    of the file when the one the run loaded (named by the plug-in variable or the config) still
    has that hash; an edited one is listed, not stored. The package sources' hash is kept too."""
    import hashlib

    from schedbench.hall.archive import PLUGIN_ENV
    from schedbench.scheduling import registry

    assert PLUGIN_ENV == registry.PLUGIN_ENV
    plug = tmp_path / "plugins"
    plug.mkdir()
    (plug / "kept.py").write_text("# kept\n")
    (plug / "edited.py").write_text("# edited since the run\n")
    (plug / "test_kept.py").write_text("# a plug-in's test, not a plug-in\n")
    recorded = {
        "plug-in kept.py": hashlib.sha256(b"# kept\n").hexdigest(),
        "plug-in edited.py": hashlib.sha256(b"# as the run loaded it\n").hexdigest(),
        "schedbench sources": "3" * 64,
    }
    work = _copy(run_a, tmp_path / "work", _with_packages(**recorded))
    monkeypatch.setenv(PLUGIN_ENV, str(plug))
    path = archive("with-plugins", root=work)
    m = json.loads((path / "manifest.json").read_text())
    assert m["plugins"] == [
        {"file": "edited.py", "sha256": recorded["plug-in edited.py"], "stored": None},
        {"file": "kept.py", "sha256": recorded["plug-in kept.py"], "stored": "plugins/kept.py"},
    ]
    assert (path / "plugins/kept.py").read_text() == "# kept\n" and not (path / "plugins/edited.py").exists()
    assert {f["path"]: f["sha256"] for f in m["files"]}["plugins/kept.py"] == recorded["plug-in kept.py"]
    assert m["provenance"]["sources"] == "3" * 64 and "plugins" not in m["provenance"]
    assert not any(k.startswith("plug-in") for k in m["provenance"]["packages"])


def test_the_command_line_names_the_archive_folder_the_work_module_uses():
    """``--dest``'s help text names archive.DEFAULT_DEST without importing the work module (the
    parser is built at every start of the command line)."""
    from schedbench.hall.archive import DEFAULT_DEST
    from schedbench.cli.archive import DEST_HELP

    assert DEST_HELP.endswith(f"(default {DEFAULT_DEST})")


def test_archive_copies_nothing_from_outside_the_run_and_writes_nothing_there(run_a, tmp_path):
    """A symlink out of the run (a figure, the results folder) is refused by name: archive would
    copy a file from elsewhere into the archive, or write the archive outside the run."""
    secret = tmp_path / "secret.png"
    secret.write_bytes(b"not the run's")
    work = _copy(run_a, tmp_path / "work")
    (work / "paper/figures").mkdir(parents=True)
    (work / "paper/figures/ratio.png").symlink_to(secret)
    with pytest.raises(ArchiveError, match=r"root: paper/figures/ratio.png: .* points outside"):
        archive("x", root=work)
    assert not (work / "results/archive").exists()
    elsewhere = tmp_path / "elsewhere"
    moved = _copy(run_a, tmp_path / "moved")
    shutil.move(moved / "results", elsewhere)
    (moved / "results").symlink_to(elsewhere)
    with pytest.raises(ArchiveError, match="(dest|root): .*(leads|points) outside"):
        archive("y", root=moved)
    assert sorted(p.name for p in elsewhere.iterdir()) == ["runs.parquet"]  # nothing written there
