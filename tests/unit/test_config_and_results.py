"""Config checks, the results-table schema, provenance, tables and the figure's legend order."""

import copy
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from schedbench.hall.config import (
    ConfigError,
    algorithm_grid,
    apply_base,
    batches,
    config_hash,
    load_config,
    load_config_file,
)
from schedbench.checks import check_config
from schedbench.scheduling.stage.experiment import (
    make_instances,
    run_adversary,
    run_online_batch,
    solve_offline,
)
from schedbench.hall.io import ResultsSchemaError, check_results, provenance, write_parquet
from schedbench.scheduling.stage.figures import ratio_vs_eps_figures
from schedbench.scheduling.stage.results import assemble, tied_instances
from schedbench.scheduling.stage.tables import macros_tex, ratio_table_tex

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = ROOT / "workflow/schemas/results.schema.yaml"
SMOKE = yaml.safe_load((ROOT / "config/smoke.yaml").read_text())
#: The smoke config as the pipeline loads it (schema defaults filled): what the checks read.
SMOKE_LOADED = load_config([ROOT / "config/smoke.yaml"])


def test_shipped_configs_pass_the_schema_and_the_checks():
    import jsonschema

    schema = yaml.safe_load((ROOT / "workflow/schemas/config.schema.yaml").read_text())
    for name in ("config.yaml", "smoke.yaml", "search.yaml", "large.yaml"):
        cfg = load_config([ROOT / "config" / name])
        jsonschema.Draft202012Validator(schema).validate(cfg)
        check_config(cfg)


def test_large_config_is_the_paper_config_at_another_scale():
    base, large = load_config_file(str(ROOT / "config/config.yaml")), load_config_file(str(ROOT / "config/large.yaml"))
    assert "base" not in large
    assert set(large["experiments"]) == set(base["experiments"])  # same experiments, same algorithms
    for name, exp in base["experiments"].items():
        assert large["experiments"][name]["algorithms"] == exp["algorithms"], name
    assert large["experiments"]["random_unit"]["params"]["n"] > base["experiments"]["random_unit"]["params"]["n"]
    assert large["experiments"]["random_unit"]["params"]["d"] == base["experiments"]["random_unit"]["params"]["d"]
    assert len(large["eps"]) > len(base["eps"])
    assert large["search"] == base["search"]


def test_base_merge_rules_and_errors(tmp_path):
    (tmp_path / "b.yaml").write_text("seed: 1\neps: [0.5]\nexperiments: {e: {params: {m: 4, n: 8}, instances: 2}}\n")
    (tmp_path / "o.yaml").write_text("base: b.yaml\neps: [0.25]\nexperiments: {e: {params: {n: 16}}}\n")
    cfg = load_config_file(str(tmp_path / "o.yaml"))
    # mappings merge key by key; lists and numbers replace
    assert cfg == {"seed": 1, "eps": [0.25], "experiments": {"e": {"params": {"m": 4, "n": 16}, "instances": 2}}}
    # --config overrides (already in Snakemake's config) win over the base
    assert apply_base({"base": "b.yaml", "seed": 9}, [str(tmp_path / "o.yaml")])["seed"] == 9
    (tmp_path / "c1.yaml").write_text("base: c2.yaml\n")
    (tmp_path / "c2.yaml").write_text("base: c1.yaml\n")
    with pytest.raises(ConfigError, match="cycle"):
        load_config_file(str(tmp_path / "c1.yaml"))
    (tmp_path / "m.yaml").write_text("base: missing.yaml\n")
    with pytest.raises(ConfigError, match="base: .*missing.yaml is not a file"):
        load_config_file(str(tmp_path / "m.yaml"))
    (tmp_path / "n.yaml").write_text("base: 3\n")
    with pytest.raises(ConfigError, match="base: must be the path"):
        load_config_file(str(tmp_path / "n.yaml"))
    with pytest.raises(ConfigError, match="at most one config file"):
        apply_base({}, [str(tmp_path / "o.yaml"), str(tmp_path / "o.yaml")])


def test_a_config_path_that_is_no_regular_file_or_too_large_is_refused_before_any_read(tmp_path):
    """A FIFO would block the read forever, a device or a huge file fill memory: each is one error
    naming the path, raised before the file is opened (the FIFO has no writer: an open would hang)."""
    import os
    import signal

    from schedbench.hall.config import MAX_CONFIG_BYTES, load_config_strict

    fifo = tmp_path / "fifo.yaml"
    os.mkfifo(fifo)
    big = tmp_path / "big.yaml"
    with open(big, "wb") as f:
        f.truncate(MAX_CONFIG_BYTES + 1)  # sparse: no disk used
    cases = [
        (fifo, "not a regular file"),
        ("/dev/zero", "not a regular file"),
        (tmp_path, "a folder"),
        (big, "bytes, more than"),
    ]
    old = signal.signal(signal.SIGALRM, lambda *_: (_ for _ in ()).throw(TimeoutError("the read blocked")))
    signal.alarm(10)
    try:
        for path, message in cases:
            with pytest.raises(ConfigError) as info:
                load_config_strict(str(path))
            assert str(path) in str(info.value) and message in str(info.value)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


@pytest.mark.parametrize(
    "mutate, message",
    [
        (
            lambda c: c["experiments"]["random_unit"].update(family="nope"),
            "experiments.random_unit.family: unknown instance family 'nope'",
        ),
        (
            lambda c: c["experiments"]["random_unit"]["params"].update(dd=3),
            "experiments.random_unit.params: family 'random-restricted' has no parameter 'dd'",
        ),
        (
            lambda c: c["experiments"]["random_unit"]["algorithms"].update({"lb-unit-reject": {"alpha_rul": "safe"}}),
            "experiments.random_unit.algorithms.lb-unit-reject: algorithm 'lb-unit-reject' has no parameter 'alpha_rul'",
        ),
        (
            lambda c: c["experiments"]["random_unit"]["algorithms"].update(
                {"lb-unit-reject": {"alpha_rule": ["paper", "bold"]}}
            ),
            "must be one of",
        ),
        (
            lambda c: c["experiments"]["random_pow2"]["algorithms"].update({"lb-unit-reject": None}),
            "experiments.random_pow2.algorithms.lb-unit-reject: 'lb-unit-reject' is defined for unit sizes only",
        ),
        (
            lambda c: c["experiments"]["random_unit"]["algorithms"].update({"greedyy": None}),
            "experiments.random_unit.algorithms.greedyy: unknown algorithm 'greedyy'",
        ),
        (
            lambda c: c["experiments"]["idisp_tree"]["algorithms"].update({"global-edf": None}),
            "experiments.idisp_tree.algorithms.global-edf: 'global-edf' is migratory",
        ),
        (
            lambda c: c["experiments"]["flow_unit"]["algorithms"].update({"greedy": None}),
            "experiments.flow_unit.algorithms: one experiment, one problem",
        ),
        (
            lambda c: c.update(figures={"rounds_parameter": ["K", "rounds"]}),
            "figures.rounds_parameter: 'rounds' is not a parameter of any adversary",
        ),
        (
            lambda c: c["figures"].update(sweep_parameters=["cc"]),
            "figures.sweep_parameters: 'cc' is not a parameter of any algorithm",
        ),
        (
            lambda c: c["experiments"]["idisp_tree"]["algorithms"].update({"greedy": None}),
            "solves 'load', but adversary 'anr-flow' builds 'maxflow'",
        ),
    ],
)
def test_config_errors_name_the_key(mutate, message):
    cfg = copy.deepcopy(SMOKE_LOADED)
    mutate(cfg)
    with pytest.raises(ConfigError) as info:
        check_config(cfg)
    assert message in str(info.value)


def test_grid_batches_and_hash():
    assert algorithm_grid({"b": [1, 2], "a": "x"}) == [{"a": "x", "b": 1}, {"a": "x", "b": 2}]
    assert algorithm_grid(None) == [{}]
    assert batches(7, 3) == [[0, 1, 2], [3, 4, 5], [6]]
    assert config_hash({"a": 1, "b": 2}) == config_hash({"b": 2, "a": 1})


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """A small results table built through the same functions the pipeline calls."""
    tmp = tmp_path_factory.mktemp("runs")
    parts, opts = [], []
    for exp in ("anr_tree", "random_unit", "random_pow2"):
        cfg = SMOKE["experiments"][exp]
        paths = make_instances(exp, cfg, 7, range(cfg["instances"]), tmp / exp)
        opt = solve_offline(paths, "load", 10.0, 7)
        opts.append(opt)
        for alg, grid in cfg["algorithms"].items():
            parts.append(run_online_batch(paths, opt, {alg: grid}, SMOKE["eps"], 7))
    cfg = SMOKE["experiments"]["anr_adaptive"]
    for alg, grid in cfg["algorithms"].items():
        parts.append(run_adversary("anr_adaptive", cfg, alg, grid, SMOKE["eps"], 7, tmp / "anr_adaptive" / alg))
        opts.append(solve_offline(sorted((tmp / "anr_adaptive" / alg).glob("*.npz")), "load", 10.0, 7))
    return assemble(parts, opts, provenance(config_hash(SMOKE)))


def test_results_table_passes_schema_and_is_well_formed(runs):
    check_results(runs, SCHEMA)
    assert (runs["status"] == "ok").all()
    assert runs["git_commit"].str.len().min() > 0
    plain = runs[runs["model"] == "plain"]
    assert plain["eps"].isna().all() and plain["p_alpha_rule"].isna().all()


def test_results_are_independent_of_batching(runs, tmp_path):
    cfg = SMOKE["experiments"]["random_unit"]
    one_by_one = []
    for idx in range(cfg["instances"]):
        paths = make_instances("random_unit", cfg, 7, [idx], tmp_path / str(idx))
        opt = solve_offline(paths, "load", 10.0, 7)
        one_by_one.append(assemble([run_online_batch(paths, opt, {"greedy": None}, SMOKE["eps"], 7)], [opt], {}))
    alone = pd.concat(one_by_one)
    batched = runs[(runs["experiment"] == "random_unit") & (runs["algorithm"] == "greedy")]
    cols = ["instance", "seed", "objective", "opt", "ratio"]
    pd.testing.assert_frame_equal(alone[cols].reset_index(drop=True), batched[cols].reset_index(drop=True))


def test_one_batch_job_of_every_algorithm_equals_one_run_per_algorithm(runs, tmp_path):
    # the pipeline runs an experiment's algorithms in one job per batch: the same rows as
    # running each algorithm alone (seeds keyed by instance and algorithm, not by the job)
    cfg = SMOKE["experiments"]["random_unit"]
    paths = make_instances("random_unit", cfg, 7, range(cfg["instances"]), tmp_path)
    opt = solve_offline(paths, "load", 10.0, 7)
    together = assemble([run_online_batch(paths, opt, cfg["algorithms"], SMOKE["eps"], 7)], [opt], {})
    alone = runs[runs["experiment"] == "random_unit"].reset_index(drop=True)
    cols = ["instance", "algorithm", "eps", "seed", "objective", "rejected_frac", "opt", "ratio", "path"]
    pd.testing.assert_frame_equal(together[cols], alone[cols])


def test_an_instance_on_which_every_algorithm_ties_is_counted():
    def row(inst, alg, eps, obj, status="ok"):
        return {"instance": inst, "algorithm": alg, "eps": eps, "objective": obj, "status": status}

    runs = pd.DataFrame(
        [
            row("a", "x", 0.5, 3.0),
            row("a", "y", 0.5, 3.0),
            row("a", "y", 0.25, 3.0 + 1e-12),  # the same up to rounding
            row("a", "z", 0.5, 9.0, status="error"),  # a failed run does not count
            row("b", "x", 0.5, 3.0),
            row("b", "y", 0.5, 4.0),  # one algorithm differs: b tells them apart
            row("c", "x", 0.5, 2.0),
            row("c", "x", 0.25, 2.0),  # one algorithm only (an adversary's realised instance)
            row("d", "x", 0.5, float("nan")),
            row("d", "y", 0.5, float("nan")),
        ]
    )
    assert tied_instances(runs).tolist() == [True, True, True, True, False, False, False, False, False, False]


def test_ratio_table_counts_trivial_and_tied_instances(runs):
    tex = ratio_table_tex(runs)
    for exp in ("anr_tree", "random_unit", "random_pow2"):
        inst = runs[runs["experiment"] == exp].drop_duplicates("instance")
        n_tied = int(inst["instance_tied"].sum())
        assert f"every algorithm at the same objective on {n_tied} of {len(inst)}" in tex


@pytest.mark.parametrize(
    "corrupt, message",
    [
        (lambda d: d.drop(columns=["ratio"]), "column 'ratio' is missing"),
        (lambda d: d.assign(status="fine"), "column 'status'"),
        (lambda d: d.assign(extra=1), "'extra' does not match"),
        (lambda d: pd.concat([d, d.iloc[:1]]), "rows share identity columns"),
        (lambda d: d.assign(ratio=np.where(d["model"] == "plain", 0.5, d["ratio"])), "ALG < OPT"),
        (lambda d: d.assign(claimed_opt=np.where(d["claimed_opt"].notna(), 2.0, np.nan)), "claims OPT = 2.0"),
    ],
)
def test_schema_catches_corrupt_tables(runs, corrupt, message):
    with pytest.raises(ResultsSchemaError, match=message):
        check_results(corrupt(runs.copy()), SCHEMA)


def test_legend_order_is_sorted_labels(runs):
    # seaborn 0.13.2 mis-orders hue_order with pandas string columns; every legend must be sorted.
    figs = ratio_vs_eps_figures(runs, n_boot=100)
    legends = [[t.get_text() for t in ax.get_legend().texts] for fig in figs for ax in fig.axes if ax.get_legend()]
    assert legends and all(entries == sorted(entries) and len(entries) == len(set(entries)) for entries in legends)
    assert {
        "greedy (ties=index)",
        "greedy (ties=random)",
        "lb-unit-reject (alpha_rule=paper)",
        "lb-unit-reject (alpha_rule=safe)",
        "random-two",
        "drop-every-k",
    } <= {e for entries in legends for e in entries}
    drawn = [ax for fig in figs for ax in fig.axes if ax.get_lines()]
    rows = [ax.get_title().split("\n")[-1].split(" (n = ")[0] for ax in drawn]  # a panel under ten instances says so
    assert list(dict.fromkeys(rows)) == ["anr_adaptive", "anr_tree", "random_pow2", "random_unit"]
    assert {ax.get_xlabel() for ax in drawn} == {"ε (rejected fraction)", "ε (not used: flat)"}
    assert all(ax.get_xscale() == "log" for ax in drawn)


def test_table_and_macros(runs):
    tex = ratio_table_tex(runs)
    assert tex.count("\\\\") >= 7 and "lb-unit-reject (alpha\\_rule=safe)" in tex
    # ANR tree K=5: greedy ratio K+1 = 6 exactly
    assert "anr\\_tree & greedy (ties=index) & 6.000 [6.000, 6.000]" in tex
    # the adaptive tree with m = 32 forces log2(m) + 1 = 6 on greedy with either tie rule
    assert "anr\\_adaptive & greedy (ties=random) & 6.000 [6.000, 6.000]" in tex
    macros = macros_tex(runs)
    assert f"\\newcommand{{\\NumRuns}}{{{len(runs)}}}" in macros


def test_write_parquet_is_atomic(tmp_path, runs):
    target = tmp_path / "t.parquet"
    write_parquet(runs, target)
    bad = runs.assign(errors=[object()] * len(runs))  # not serialisable
    with pytest.raises((TypeError, ValueError, ArithmeticError)):  # pyarrow.ArrowInvalid is a ValueError
        write_parquet(bad, target)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.parquet"]
    reference = tmp_path.parent / f"{tmp_path.name}-reference.parquet"
    runs.to_parquet(reference, index=False)  # what a plain write gives (None in number columns -> NaN)
    pd.testing.assert_frame_equal(pd.read_parquet(target), pd.read_parquet(reference))


@pytest.mark.parametrize(
    "text, message",
    [
        ("seed: 1\nseed: 2\neps: [0.5]\nexperiments: {}\n", "line 2: key 'seed' given twice (first on line 1)"),
        ("seed: 1\neps: [0.5\nexperiments: {}\n", "not valid YAML"),
        ("seed: 1\neps: [0.5]\nexperiments:\n  a:\n    family: x\n    family: y\n", "line 6: key 'family' given twice"),
        ("- 1\n- 2\n", "must be a mapping"),
    ],
)
def test_config_files_are_read_strictly(tmp_path, text, message):
    from schedbench.hall.config import load_config_strict

    path = tmp_path / "c.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError) as info:
        load_config_strict(str(path))
    assert str(path) in str(info.value) and message in str(info.value)


@pytest.mark.parametrize(
    "mutate, message",
    [
        (
            lambda c: c["experiments"]["random_unit"].update(instance=3),
            "experiments.random_unit: Additional properties",
        ),
        (lambda c: c.update(seed="seven"), "seed: 'seven' is not of type 'integer'"),
        (lambda c: c.update(eps=[0.5, 2]), "eps.1: 2 is greater than or equal to the maximum of 1"),
        (
            lambda c: c["experiments"]["trace_nasa"].update(opt={"work_limit": 0}),
            "experiments.trace_nasa.opt.work_limit: 0 is less than or equal to the minimum of 0",
        ),
        (
            lambda c: c["experiments"]["trace_nasa"].update(opt={"gap": 0.01}),
            "experiments.trace_nasa.opt: Additional properties are not allowed ('gap'",
        ),
    ],
)
def test_schema_errors_name_the_key_in_one_line(mutate, message):
    from schedbench.hall.config import check_schema

    cfg = copy.deepcopy(SMOKE)
    mutate(cfg)
    with pytest.raises(ConfigError) as info:
        check_schema(cfg, str(ROOT / "workflow/schemas/config.schema.yaml"))
    assert message in str(info.value) and "\n" not in str(info.value)


def test_a_loss_k_larger_than_n_stops_before_any_job():
    cfg = copy.deepcopy(SMOKE_LOADED)
    cfg["loss"]["experiments"]["A4_small_samples"]["k"] = [{"rule": "const", "k": 5000}]
    with pytest.raises(ConfigError, match=r"loss\.experiments\.A4_small_samples: .*k = 5000 exceeds n = 100"):
        check_config(cfg)


def test_method_table_lists_every_registered_algorithm():
    from schedbench.hall.latex import bib_keys
    from schedbench.scheduling.registry import algorithm_names
    from schedbench.scheduling.stage.methods import method_table_tex

    keys = bib_keys((ROOT / "paper/references.tex").read_text())
    tex = method_table_tex(keys)
    for name in algorithm_names():
        assert f"\\texttt{{{name}}} &" in tex
    # the two header rows (first page, continued pages) + one row each
    assert tex.count("\\\\\n") == len(algorithm_names()) + 3  # + the caption's line end
    assert all(ch not in tex for ch in "§εα–≤✓⌈⌉⌊⌋·²⁴⁶")  # symbols made LaTeX
    assert "docs/" not in tex and ".md" not in tex and "spec" not in tex  # never a file the reader lacks
    assert "\\begin{longtable}" in tex and "\\footnotesize" in tex and "resizebox" not in tex


def test_every_built_in_algorithm_states_its_rule_bound_and_source_for_the_method_table():
    from schedbench.hall.latex import bib_keys
    from schedbench.scheduling.registry import algorithm_names, get_algorithm
    from schedbench.scheduling.stage.methods import method_table_tex

    keys = set(bib_keys((ROOT / "paper/references.tex").read_text()))
    for name in algorithm_names():
        cls = get_algorithm(name)
        assert cls.summary and len(cls.summary) <= 90 and "\n" not in cls.summary, name  # one line
        assert cls.bound and len(cls.bound) <= 45, name
        assert cls.cites == "" or cls.cites in keys, (name, cls.cites)  # a paper of the bibliography
        assert cls.cites or not cls.section, name
    # a key the bibliography lacks (a plug-in's) is printed as text, not cited
    tex = method_table_tex(keys - {"cdgk"})
    assert "\\cite{cdgk}" not in tex and "cdgk §5" in tex.replace("\\S{}", "§")


def test_sweep_figure_panels(runs):
    from schedbench.scheduling.stage.figures import sweep_figure

    fig = sweep_figure(runs, ["alpha_rule"], n_boot=50)
    titles = [ax.get_title() for ax in fig.axes if ax.get_title()]
    ok = runs[runs["status"] == "ok"]
    swept = int((ok.groupby(["experiment", "algorithm"])["p_alpha_rule"].nunique() > 1).sum())
    assert len(titles) == swept and len(fig.axes) == 3 * swept
    assert [t.get_text() for t in fig.axes[2 * swept].get_xticklabels()] == ["paper", "safe"]  # bottom row
    placeholder = sweep_figure(runs, ["no_such_parameter"])
    assert "no experiment sweeps" in placeholder.axes[0].texts[0].get_text()


def test_rejection_table(runs):
    from schedbench.scheduling.stage.tables import rejection_table_tex

    tex = rejection_table_tex(runs)
    assert "by volume" in tex and "lb-unit-reject" in tex and "\\label{tab:rejections}" in tex
    assert "\\begin{longtable}" in tex  # breaks across pages, never shrunk
    assert tex.count("\\\\") >= 2
    assert "no rejection-model runs" in rejection_table_tex(runs[runs["model"] != "rejection"])


def test_a_parameter_name_shared_with_different_types_is_written():
    # ssf-edf's c (slack-class base, 2.0) and wmft-B's c (timeout, "1/eps") share the column p_c
    from schedbench.hall.io import read_parquet, write_parquet
    from schedbench.scheduling.stage.results import assemble

    base = {
        "experiment": "e",
        "family": "f",
        "instance_index": 0,
        "n_jobs": 1,
        "m": 1,
        "problem": "wtdmaxflow",
        "model": "speed",
        "rule": "R",
        "seed": 0,
        "objective": 1.0,
    }
    parts = [
        pd.DataFrame([{**base, "instance": "e/0000", "algorithm": "ssf-edf", "eps": 0.5, "p_c": 2.0}]),
        pd.DataFrame([{**base, "instance": "e/0000", "algorithm": "wmft-B", "eps": 0.5, "p_c": "1/eps"}]),
        pd.DataFrame([{**base, "instance": "e/0000", "algorithm": "edf", "eps": 0.5}]),
    ]
    table = assemble(parts, [], {})
    assert sorted(map(str, table["p_c"])) == ["1/eps", "2", "None"]
    import os
    import tempfile

    path = os.path.join(tempfile.mkdtemp(), "t.parquet")
    write_parquet(table, path)
    assert read_parquet(path)["p_c"].tolist() == table["p_c"].tolist()


def test_one_batch_of_algorithms_sharing_a_parameter_name_is_written(tmp_path):
    # one online job runs every algorithm of its experiment: ssf-edf's c = 2.0 and wmft-B's
    # c = "1/eps" land in one batch table, which must still be written (parquet wants one type)
    from schedbench.hall.io import read_parquet, write_parquet

    cfg = {
        "family": "random-restricted",
        "problem": "wtdmaxflow",
        "params": {"m": 3, "n": 12, "d": 2, "sizes": "uniform", "max_size": 3, "weights": "classes"},
        "instances": 2,
    }
    paths = make_instances("mixed", cfg, 7, range(2), tmp_path / "inst")
    opt = solve_offline(paths, "wtdmaxflow", 30.0, 7)
    table = run_online_batch(paths, opt, {"ssf-edf": None, "wmft-B": {"c": "1/eps"}}, [0.5], 7, problem="wtdmaxflow")
    write_parquet(table, tmp_path / "batch.parquet")
    back = read_parquet(tmp_path / "batch.parquet")
    assert set(back["p_c"]) == {"2", "1/eps"}
    whole = assemble([back], [opt], {})
    assert set(whole["algorithm"]) == {"ssf-edf", "wmft-B"} and (whole["status"] == "ok").all()


def test_generated_paper_files_are_not_tracked():
    # paper/generated/ is written by the pipeline (rule paper_generated): never committed
    lines = {line.strip() for line in (ROOT / ".gitignore").read_text().splitlines()}
    assert "paper/generated/" in lines


def test_an_experiment_s_own_opt_limits_replace_the_top_level_ones():
    """The run planner and the offline rule read an experiment's ``opt`` key by key."""
    from schedbench.scheduling.stage.plan import plan_scheduling

    cfg = load_config([ROOT / "config/config.yaml"])
    cfg["experiments"] = {k: v for k, v in cfg["experiments"].items() if k in ("log_kth_flow", "flow_small_rho90")}
    assert cfg["experiments"]["log_kth_flow"]["opt"] == {"work_limit": 5}
    notes = {s.section: s.note for s in plan_scheduling(cfg) if "work limit" in s.note}
    assert "(5)" in notes["experiments.log_kth_flow"] and "(60)" in notes["experiments.flow_small_rho90"]
    rule = (ROOT / "workflow/rules/offline.smk").read_text()
    assert 'work_limit=exp_opt_limit("work_limit")' in rule and 'time_limit=exp_opt_limit("time_limit")' in rule


def test_a_plugin_in_the_method_table_is_credited_to_its_own_source_never_ours():
    from schedbench.scheduling.stage.methods import _source

    assert _source({"cites": "", "section": "", "builtin": False}, set()) == "user plug-in"
    assert _source({"cites": "", "section": "", "builtin": True}, set()) == "ours"
    assert _source({"cites": "mine2024", "section": "§3", "builtin": False}, {"cdgk"}) == "mine2024 \\S{}3"
    assert _source({"cites": "cdgk", "section": "", "builtin": False}, {"cdgk"}) == "\\cite{cdgk}"


def test_the_large_config_passes_the_cost_gate_with_its_documented_key():
    """config/large.yaml is a cluster config: past the single-machine gate, which it accepts with
    `accept_cost: true` (config/README.md) — the README's cluster steps pass check-config."""
    from schedbench.checks import plan_config
    from schedbench.hall.plan import check_cost

    large = load_config([ROOT / "config/large.yaml"])
    estimate = plan_config(large)
    assert large["accept_cost"] is True and check_cost(estimate, large["accept_cost"]) is None
    assert check_cost(estimate, False) is not None  # the key is what lets it through


def test_adversary_table_shows_each_sweep_at_its_largest_value():
    """A constructed adversary table: an experiment sweeping m shows only its largest m (the
    worst ratio over replications there), a fixed one all its rows; a longtable with its label."""
    from schedbench.scheduling.stage.tables import adversary_table_tex

    rows = []
    for m, ratio in ((4, 1.5), (16, 2.5), (64, 3.5)):
        for seed, bump in ((0, 0.0), (1, 0.25)):
            rows.append({"experiment": "tree", "family": "anr-tree", "g_m": m, "ratio": ratio + bump, "seed": seed})
    rows.append({"experiment": "fixed", "family": "lb-a", "g_m": None, "ratio": 2.0, "seed": 0})
    df = pd.DataFrame(rows).assign(
        algorithm="greedy",
        model="plain",
        eps=float("nan"),
        claimed_opt=1.0,
        status="ok",
        opt_status="optimal",
        objective=1.0,
        opt=1.0,
    )
    df["label"] = "greedy"
    tex = adversary_table_tex(df)
    assert "\\begin{longtable}" in tex and "\\label{tab:adversaries}" in tex
    assert "m=64" in tex and "m=16" not in tex and "m=4)" not in tex
    assert "3.750" in tex and "2.750" not in tex  # the largest over the replications at m = 64
    assert "fixed: lb-a" in tex and "2.000" in tex
