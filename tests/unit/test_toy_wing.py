"""A fourth wing registered by this test alone (docs/architecture.md, "Adding a wing"): a
one-table model whose ``WING`` reaches the archive, ``diff``, ``merge``, the paper's generated
macros, captions and groups, the config check and the cost plan — with no file of the hall, the
faces or the workflow edited for it (the registry, :mod:`schedbench.hall.wing`, is the only
door). Its HTML report table goes through the report's own script (workflow/scripts/report_tables.py,
run here with a stand-in for Snakemake's ``snakemake`` object). The workflow takes its rules file
and its targets from the registry too (the Snakefile includes :func:`rule_files`; the default
target, the claims rule's inputs, the report tables and the explorer's tables add the wings'
lists): the functions building those lists are checked here, the workflow's files unread."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pandas as pd
import pytest
import yaml

from schedbench.checks import check_config, plan_config
from schedbench.hall.archive import archive
from schedbench.hall.config import ConfigError, config_hash, load_config
from schedbench.hall.diff_text import format_diff
from schedbench.hall.io import provenance, write_parquet
from schedbench.hall.merge import merge
from schedbench.hall.paper import config_macros_tex, group_tex, paper_groups
from schedbench.hall.plan import BASE_BYTES, StageEstimate, output_stages
from schedbench.hall.run_config import config_of_files
from schedbench.hall.run_diff import diff
from schedbench.hall.table_specs import known_tables, spec_of
from schedbench.hall.wing import (
    TableSpec,
    Wing,
    WingError,
    experiment_files,
    registered,
    rule_files,
    stage_fields,
    wing_bench_keys,
    wing_claims_inputs,
    wing_figures,
    wing_paper_contents,
    wing_pdf_inputs,
    wing_report_tables,
    wing_site_tables,
    wing_targets,
    wings,
)

from tests.unit.test_layout import SRC

TOY_TABLE = "results/toy.parquet"
#: the runs' config: one small scheduling experiment (a config has at least one)
EXPERIMENTS = {
    "ru": {
        "family": "random-restricted",
        "params": {"m": 4, "n": 16, "d": 2, "sizes": "unit"},
        "instances": 2,
        "algorithms": {"greedy": None},
    }
}


def _check_toy(config: dict) -> None:
    toy = config.get("toy")
    if toy is not None and not all(isinstance(n, int) and n > 0 for n in toy.get("n", [])):
        raise ConfigError(f"toy.n: positive integers, not {toy.get('n')!r}")


def _toy_n(config: dict) -> list[int]:
    return (config.get("toy") or {}).get("n", [])


def _plan_toy(config: dict) -> list[StageEstimate]:
    n = (config.get("toy") or {}).get("n", [])
    return [StageEstimate("toy", "toy_points", 1, len(n), float(sum(n)), 1.0, BASE_BYTES, "")] if n else []


TOY = Wing(
    name="toy",
    section="toy",
    schema={
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "n": {"type": "array", "items": {"type": "integer"}},
            "batches": {"type": "integer", "default": 4},
        },
    },
    tables={
        TOY_TABLE: TableSpec(
            identity=("experiment", "n"), estimates={"mean": ("mean_ci_lo", "mean_ci_hi")}, exact=("exact",)
        )
    },
    paper_macros=lambda config: {"ToyPoints": str(len(config["toy"]["n"]))} if config.get("toy") else {},
    figure_caption=lambda stem, kind: "Toy: the mean against $n$." if stem == "toy_mean" else None,
    table_captions={"toy": "The toy model's means."},
    paper_groups=("toy",),
    report_views=lambda tables: {"means": (tables["points"][["n", "mean"]], "Toy: means")},
    check=_check_toy,
    plan=_plan_toy,
    plan_outputs=lambda config: output_stages({"tables": {"toy_table": 1}}, {"toy_table": 3.72}),
    rules="workflow/rules/toy.smk",
    targets=lambda config: [TOY_TABLE, "paper/figures/toy_mean.pdf", "paper/tables/toy.tex"] if _toy_n(config) else [],
    report_tables=lambda config: ["results/report/toy_means.html"] if _toy_n(config) else [],
    claims_inputs=lambda config: {"points": TOY_TABLE} if _toy_n(config) else {},
    site_tables=lambda config: {"toy": TOY_TABLE} if _toy_n(config) else {},
    figures=lambda config: ["paper/figures/toy_mean.pdf"] if _toy_n(config) else [],
    paper_contents=lambda config: {"toy": ([("toy_mean", None)], ["toy"])} if _toy_n(config) else {},
    bench_keys=lambda config: ["T1"] if _toy_n(config) else [],
)


def _toy_table(mean_shift: float = 0.0) -> pd.DataFrame:
    n = [10, 100, 1000]
    mean = [1.0 + mean_shift if k == 1000 else 1.0 for k in n]
    return pd.DataFrame(
        {
            "experiment": ["T1"] * 3,
            "n": n,
            "mean": mean,
            "mean_ci_lo": [m - 0.01 for m in mean],
            "mean_ci_hi": [m + 0.01 for m in mean],
            "exact": [1.0, 1.0, 1.0],
            "seconds": [0.1, 0.2, 0.3],
        }
    )


def _write_run(root, toy: pd.DataFrame):
    """A finished run: its config, a one-row runs table (the archive's mark of a finished run)
    and the toy table, both with the run's provenance."""
    (root / "config").mkdir(parents=True)
    (root / "config/run.yaml").write_text(yaml.safe_dump({"seed": 7, "eps": [0.5], "experiments": EXPERIMENTS}))
    prov = provenance(config_hash(config_of_files([root / "config/run.yaml"], root)))
    runs = pd.DataFrame(
        {"experiment": ["e"], "algorithm": ["greedy"], "eps": [0.5], "status": ["ok"]}
        | {m: [1.0] for m in ("ratio", "objective", "rejected_frac")}
    )
    for table, name in ((runs, "runs"), (toy, "toy")):
        write_parquet(table.assign(**prov), root / f"results/{name}.parquet")
    return root


def test_a_registered_wing_is_found_and_one_that_does_not_fit_is_refused():
    assert TOY not in wings()
    with registered(TOY) as found:
        assert found[-1] is TOY and [w.name for w in found][:3] == ["scheduling", "loss", "bipartite"]
        assert TOY_TABLE in known_tables() and spec_of(TOY_TABLE, _toy_table()) == TOY.tables[TOY_TABLE]
    assert TOY not in wings() and TOY_TABLE not in known_tables()  # the registry is restored
    with pytest.raises(WingError, match="tables are results/<name>.parquet"):
        Wing(name="bad", tables={"toy.csv": TableSpec(identity=("n",))})
    clash = Wing(name="clash", tables={"results/loss.parquet": TableSpec(identity=("n",))})
    with pytest.raises(WingError, match="results/loss.parquet: claimed by the wings loss and clash"):
        with registered(clash):
            pass


def test_diff_compares_the_toy_table_by_its_spec_and_only_once_registered(tmp_path):
    a = _write_run(tmp_path / "a", _toy_table())
    b = _write_run(tmp_path / "b", _toy_table(mean_shift=0.5))
    assert TOY_TABLE not in json.dumps(diff(str(a), str(b)).to_dict())  # unregistered: not read
    with registered(TOY):
        text = format_diff(diff(str(a), str(b)), full=True)
    assert f"{TOY_TABLE}: 3 points in both: 2 identical, 0 within the noise, 1 changed" in text
    changed = [line for line in text.splitlines() if line.strip().startswith("changed")]
    assert len(changed) == 1 and "n=1000" in changed[0] and "mean" in changed[0]


def test_merge_takes_the_toy_identity_and_archive_stores_the_toy_table(tmp_path):
    whole = _toy_table()
    first = _write_run(tmp_path / "first", whole.iloc[:2])
    second = _write_run(tmp_path / "second", whole.iloc[1:])
    with registered(TOY):
        merged = merge([first, second], tmp_path / "toy.parquet", table="toy.parquet")
        assert merged[["n", "mean"]].sort_values("n").values.tolist() == whole[["n", "mean"]].values.tolist()
        clash = _write_run(tmp_path / "clash", _toy_table(mean_shift=0.5).iloc[2:])
        with pytest.raises(ValueError, match="conflicting duplicate experiment=T1; n=1000"):
            merge([first, second, clash], tmp_path / "bad.parquet", table="toy.parquet")
        path = archive(root=first)
        stored = {f["path"] for f in json.loads((path / "manifest.json").read_text())["files"]}
        assert TOY_TABLE in stored
        assert diff(path.name, "current", root=first).unchanged


def test_the_paper_takes_the_toy_macros_captions_and_group():
    config = load_config([SRC.parents[1] / "config/smoke.yaml"]) | {"toy": {"n": [10, 100, 1000]}}
    before = config_macros_tex(config, "config/x.yaml", "abc")
    assert "ToyPoints" not in before and "toy" not in paper_groups()
    with registered(TOY):
        tex = config_macros_tex(config, "config/x.yaml", "abc")
        assert tex.startswith(before) and tex[len(before) :] == "\\newcommand{\\ToyPoints}{3}\n"
        assert paper_groups()[-3:] == ("toy", "claims", "tables")
        group = group_tex("toy", [("toy_mean", None)], ["toy"])
    assert "\\input{sections/toy}" in group and "\\caption{Toy: the mean against $n$.}\\label{fig:toy_mean}" in group
    assert "\\caption{The toy model's means.}\\label{tab:toy}" in group


def test_the_report_script_writes_the_toy_views(tmp_path):
    import runpy
    from types import SimpleNamespace

    write_parquet(_toy_table(), tmp_path / "toy.parquet")

    class Named(dict):  # Snakemake's named lists: by attribute, and items()
        __getattr__ = dict.__getitem__

    snakemake = SimpleNamespace(
        input=Named(points=str(tmp_path / "toy.parquet"), sources="results/sources/x.sha256"),
        output=Named(means=str(tmp_path / "means.html")),
        params=Named(wing="toy", provenance="the toy test"),
        log=[str(tmp_path / "report.log")],
    )
    script = SRC.parents[1] / "workflow/scripts/report_tables.py"
    with registered(TOY):
        runpy.run_path(str(script), init_globals={"snakemake": snakemake})
    html = (tmp_path / "means.html").read_text()
    assert "<title>Toy: means</title>" in html and "Produced by the toy test." in html
    assert html.count("</tr>") == 4 and "exact" not in html  # a header and three points, the view's columns only


def test_the_config_check_and_the_plan_take_the_toy_section():
    config = load_config([SRC.parents[1] / "config/smoke.yaml"])
    with pytest.raises(ConfigError, match="Additional properties are not allowed .'toy' was unexpected"):
        check_config(config | {"toy": {"n": [10, 100]}})  # unregistered: a section nobody knows
    with registered(TOY):
        check_config(config | {"toy": {"n": [10, 100]}})
        with pytest.raises(ConfigError, match="toy.n: positive integers"):
            check_config(config | {"toy": {"n": [10, -1]}})  # the wing's own check
        with pytest.raises(ConfigError, match="toy.batches: 'four' is not of type 'integer'"):
            check_config(config | {"toy": {"n": [10], "batches": "four"}})  # its section's schema
        stages = plan_config(config | {"toy": {"n": [10, 100]}}).stages
    toy = [s for s in stages if s.section == "toy"]
    assert len(toy) == 1 and toy[0].runs == 2
    table = [s for s in stages if s.stage == "toy_table"]  # among the tables, before the figures
    assert len(table) == 1 and table[0].section == "tables" and table[0].cpu_seconds == pytest.approx(2.0)
    sections = [s.section for s in stages if s.section in ("tables", "figures", "paper")]
    assert sections == sorted(sections, key=("tables", "figures", "paper").index)


def test_the_workflow_lists_take_the_toy_rules_and_targets_once_registered():
    """What the Snakefile includes and what paper_common.smk and site_common.smk add for the
    wings: the toy's, after the built-in wings', once it is registered and its section is set."""
    config = load_config([SRC.parents[1] / "config/smoke.yaml"])
    toy_files = [TOY_TABLE, "paper/figures/toy_mean.pdf", "paper/tables/toy.tex"]
    before = (rule_files(), wing_targets(config), wing_report_tables(config))
    claims_before, site_before = wing_claims_inputs(config), wing_site_tables(config)
    paper_before = (wing_figures(config), wing_paper_contents(config), wing_bench_keys(config))
    assert "workflow/rules/toy.smk" not in before[0] and TOY_TABLE not in before[1]
    with registered(TOY):
        assert rule_files() == [*before[0], "workflow/rules/toy.smk"]
        assert wing_targets(config) == before[1]  # no toy section: none of its files
        with_toy = config | {"toy": {"n": [10, 100]}}
        assert wing_targets(with_toy) == [*before[1], *toy_files]
        assert wing_report_tables(with_toy) == [*before[2], "results/report/toy_means.html"]
        assert wing_claims_inputs(with_toy) == claims_before | {"points": TOY_TABLE}
        assert wing_site_tables(with_toy) == site_before | {"toy": TOY_TABLE}
        assert wing_figures(with_toy) == [*paper_before[0], "paper/figures/toy_mean.pdf"]
        assert wing_paper_contents(with_toy) == [*paper_before[1], ("toy", [("toy_mean", None)], ["toy"])]
        assert wing_bench_keys(with_toy) == [*paper_before[2], "T1"]
        assert wing_pdf_inputs(with_toy) == wing_pdf_inputs(config)  # the toy's PDF reads no file of its own
    assert rule_files() == before[0] and wing_targets(config | {"toy": {"n": [10]}}) == before[1]


def test_two_wings_giving_one_table_name_to_the_claims_or_the_explorer_are_refused():
    config = load_config([SRC.parents[1] / "config/smoke.yaml"]) | {"toy": {"n": [10]}}
    loss_shadow = Wing(name="toy", claims_inputs=lambda config: {"loss_slopes": TOY_TABLE})
    with registered(loss_shadow):
        with pytest.raises(WingError, match="claims_inputs 'loss_slopes': given by the wings loss and toy"):
            wing_claims_inputs(config)
    bipartite_shadow = Wing(name="toy", site_tables=lambda config: {"bipartite": TOY_TABLE})
    with registered(bipartite_shadow):
        with pytest.raises(WingError, match="site_tables 'bipartite': given by the wings bipartite and toy"):
            wing_site_tables(config)
    with pytest.raises(WingError, match="its rules are a Snakemake file"):
        Wing(name="toy", rules="workflow/rules/toy.py")


def test_the_built_in_wings_give_their_rules_and_targets_and_none_without_experiments():
    """The loss and bipartite wings' lists for the smoke config (what the workflow's dry run
    builds its jobs from), and nothing of theirs for a config without their sections."""
    config = load_config([SRC.parents[1] / "config/smoke.yaml"])
    assert rule_files() == ["workflow/rules/loss.smk", "workflow/rules/bipartite.smk"]
    assert all((SRC.parents[1] / path).is_file() for path in rule_files())
    loss = sorted(config["loss"]["experiments"])
    bipartite = config["bipartite"]["experiments"]
    figures = sorted((e, f) for e in bipartite for f in bipartite[e]["figures"])
    assert wing_targets(config) == (
        ["results/loss.parquet", "paper/tables/loss_slopes.tex", "paper/macros_loss.tex"]
        + [f"paper/figures/loss_{e}.pdf" for e in loss]
        + ["results/bipartite.parquet", "paper/tables/bipartite_checks.tex", "paper/tables/bipartite_rates.tex"]
        + [f"paper/figures/bipartite_{e}_{f}.pdf" for e, f in figures]
    )
    assert ("B1_many_server", "B2") in figures  # one experiment drawing two figures: both listed
    assert list(wing_claims_inputs(config)) == ["loss_slopes", "bipartite_checks", "bipartite"]
    assert set(wing_site_tables(config)) == {"loss", "loss_slopes", "bipartite", "bipartite_checks"}
    assert len(wing_report_tables(config)) == 4
    assert wing_figures(config) == [t for t in wing_targets(config) if t.startswith("paper/figures/")]
    assert wing_bench_keys(config) == loss + sorted(bipartite)
    assert wing_pdf_inputs(config) == ["paper/macros_loss.tex"]
    # the body shows the growing-k figure (A3) and the many-server figure (B2); the appendix
    # their tables, the loss wing's first
    contents = wing_paper_contents(config)
    a3 = [e for e in loss if config["loss"]["experiments"][e]["figure"] == "A3"][0]
    assert contents == [
        ("loss", [(f"loss_{a3}", "A3")], []),
        ("tables", [], ["loss_slopes"]),
        ("bipartite", [("bipartite_B1_many_server_B2", "B2")], []),
        ("tables", [], ["bipartite_checks", "bipartite_rates"]),
    ]
    without_a3 = config | {
        "loss": config["loss"] | {"experiments": {e: config["loss"]["experiments"][e] for e in loss if e != a3}}
    }
    first = min(without_a3["loss"]["experiments"])
    assert wing_paper_contents(without_a3)[0] == (
        "loss",
        [(f"loss_{first}", without_a3["loss"]["experiments"][first]["figure"])],
        [],
    )
    bare = {k: v for k, v in config.items() if k not in ("loss", "bipartite")}
    lists = (wing_targets, wing_report_tables, wing_figures, wing_paper_contents, wing_bench_keys, wing_pdf_inputs)
    assert [f(bare) for f in lists] == [[]] * len(lists)
    assert (wing_claims_inputs(bare), wing_site_tables(bare)) == ({}, {})


# ----------------------------------------------------------------- a wing from a researcher's folder
#: the toy wing as a module file of its own, outside the package (the config's ``wings:``)
TOY_FILE = """
from schedbench.hall.wing import TableSpec, Wing

WING = Wing(
    name="toy",
    section="toy",
    schema={"type": "object", "additionalProperties": False, "properties": {"n": {"type": "array"}}},
    tables={
        "results/toy.parquet": TableSpec(
            identity=("experiment", "n"), estimates={"mean": ("mean_ci_lo", "mean_ci_hi")}, exact=("exact",)
        )
    },
    rules="toy.smk",
)
"""


def _toy_folder(where):
    where.mkdir(parents=True)
    (where / "toy_wing.py").write_text(TOY_FILE)
    (where / "toy.smk").write_text("")
    return where / "toy_wing.py"


def test_experiment_files_and_stage_fields_build_a_wings_hooks():
    """``experiment_files`` gives a fresh copy of its files (a list or a mapping) for a config
    the wing's rule says runs experiments and an empty one of the same kind otherwise;
    ``stage_fields`` binds a stage package's usual modules and hands each hook its section."""
    runs = lambda config: (config.get("toy") or {}).get("experiments")  # noqa: E731
    hook = experiment_files(runs, {"toy": TOY_TABLE})
    running = {"toy": {"experiments": {"a": {}}}}
    got = hook(running)
    got["other"] = "results/other.parquet"
    assert hook(running) == {"toy": TOY_TABLE}
    assert [hook(c) for c in ({}, {"toy": None}, {"toy": {"experiments": {}}})] == [{}, {}, {}]
    assert experiment_files(runs, ["a.html"])({"toy": {}}) == []
    assert experiment_files(runs, ["a.html"])(running) == ["a.html"]
    tables = SimpleNamespace(paper_macros=lambda config: {}, figure_caption=lambda stem, kind: None, TABLE_CAPTIONS={})
    claims = SimpleNamespace(judged_claims=lambda tables, present: [], findings_lines=lambda t, f, p: [])
    report = SimpleNamespace(report_views=lambda tables: {})
    seen = []
    wing = Wing(name="toy", **stage_fields("toy", tables, claims, report, seen.append, seen.append, seen.append))
    assert (wing.section, wing.paper_groups, wing.rules) == ("toy", ("toy",), "workflow/rules/toy.smk")
    assert wing.claims is claims.judged_claims and wing.report_views is report.report_views
    wing.check({"toy": 1})
    wing.plan({"toy": 2})
    wing.plan_outputs({})
    assert seen == [1, 2, None]


def test_a_wing_file_is_registered_with_its_rules_beside_it_and_declared_by_the_jobs_reading_the_wings(tmp_path):
    import os
    import subprocess
    import sys

    from schedbench.hall.sources import script_sources
    from schedbench.hall.wing import WINGS_ENV, use_wings, wing_named

    path = _toy_folder(tmp_path / "mine")
    scripts = SRC.parents[1] / "workflow/scripts"
    env_before = os.environ.get(WINGS_ENV)
    with registered():
        files = use_wings(["mine/toy_wing.py"], base=tmp_path)  # relative to the working directory
        assert files == [str(path.resolve())]
        assert wing_named("toy").rules == str(path.resolve().parent / "toy.smk") == rule_files()[-1]
        assert os.environ[WINGS_ENV].split(os.pathsep)[-1] == files[0]
        assert use_wings([str(path)]) == files and [w.name for w in wings()].count("toy") == 1  # once
        assert files[0] in script_sources(scripts / "report_tables.py")  # reads the wings: depends on it
        assert files[0] not in script_sources(scripts / "loss_points.py")
        probe = "from schedbench.hall.wing import wings; print([w.name for w in wings()])"
        job = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
        assert "'toy'" in job.stdout  # a process started from here (a job) registers it too
    assert "toy" not in [w.name for w in wings()] and os.environ.get(WINGS_ENV) == env_before
    assert files[0] not in script_sources(scripts / "report_tables.py")  # no closure of the toy's registry kept


@pytest.mark.parametrize(
    "entries, source, message",
    [
        ("mine/toy_wing.py", None, "wings: a list of wing module files"),
        ([3], None, r"wings\[0\]: the path of a wing module file \(.py\), got 3"),
        (["mine/none.py"], None, r"wings\[0\]: .*mine/none.py: no such file"),
        (["mine/toy.smk"], None, r"wings\[0\]: .*mine/toy.smk: not a Python file"),
        (["mine/w.py"], "import nothing_of_that_name\n", r"wings\[0\]: .*w.py: does not import: ModuleNotFoundError"),
        (
            ["mine/w.py"],
            "WING = 3\n",
            r"wings\[0\]: .*w.py: its WING must be a schedbench.hall.wing.Wing, it exports a int",
        ),
        (["mine/w.py"], "X = 1\n", r"wings\[0\]: .*w.py: its WING must be .*, it exports nothing"),
        (["mine/w.py"], TOY_FILE.replace('name="toy"', 'name="loss"'), "wings: two wings named 'loss'"),
        (
            ["mine/toy_wing.py", "mine/w.py"],
            TOY_FILE.replace('name="toy"', 'name="other"').replace('section="toy"', 'section="other"'),
            "wings: results/toy.parquet: claimed by the wings toy and other",
        ),
    ],
)
def test_a_bad_wings_entry_is_one_error_naming_it(tmp_path, entries, source, message):
    from schedbench.hall.wing import use_wings

    _toy_folder(tmp_path / "mine")
    if source is not None:
        (tmp_path / "mine/w.py").write_text(source)
    names = [w.name for w in wings()]
    with registered():
        with pytest.raises(WingError, match=message):
            use_wings(entries, base=tmp_path)
        assert [w.name for w in wings()] == names  # the registry is as it was


def test_diff_registers_the_wings_of_each_runs_config(tmp_path):
    """A run whose config names a wing file (``wings:``, relative to the run): ``diff`` reads
    its config, registers the wing and compares its table, with nothing registered beforehand."""
    _toy_folder(tmp_path / "mine")
    cfg = {"seed": 7, "eps": [0.5], "experiments": EXPERIMENTS, "toy": {"n": [10]}, "wings": ["../mine/toy_wing.py"]}
    runs = pd.DataFrame(
        {"experiment": ["e"], "algorithm": ["greedy"], "eps": [0.5], "status": ["ok"]}
        | {m: [1.0] for m in ("ratio", "objective", "rejected_frac")}
    )
    for name, shift in (("a", 0.0), ("b", 0.5)):
        root = tmp_path / name
        (root / "config").mkdir(parents=True)
        (root / "config/run.yaml").write_text(yaml.safe_dump(cfg))
        with pytest.raises(ConfigError, match="'toy' was unexpected"):
            load_config([root / "config/run.yaml"])  # the toy section: unknown without its wing
        with registered():
            run_hash = config_hash(config_of_files([root / "config/run.yaml"], root))  # registers it
        (root / "paper").mkdir()
        (root / "paper/macros_config.tex").write_text(
            "\\newcommand{\\ConfigFile}{\\texttt{config/run.yaml}}\n"
            + "\\newcommand{\\ConfigHash}{\\texttt{"
            + run_hash
            + "}}\n"
        )
        prov = provenance(run_hash)
        for table, stem in ((runs, "runs"), (_toy_table(mean_shift=shift), "toy")):
            write_parquet(table.assign(**prov), root / f"results/{stem}.parquet")
    assert "toy" not in [w.name for w in wings()]
    with registered():
        result = diff(str(tmp_path / "a"), str(tmp_path / "b"))
        text = format_diff(result, full=True)
    assert f"{TOY_TABLE}: 3 points in both: 2 identical, 0 within the noise, 1 changed" in text
    (tmp_path / "mine").rename(tmp_path / "moved")  # the runs moved away from their wing: passed over
    with registered():
        result = diff(str(tmp_path / "a"), str(tmp_path / "b"))
    assert TOY_TABLE not in format_diff(result, full=True) and "no longer gives the run's config hash" in json.dumps(
        result.to_dict()
    )


def test_check_config_registers_the_configs_wings_relative_to_the_working_directory(tmp_path):
    import subprocess
    import sys

    _toy_folder(tmp_path / "mine")
    cfg = {"seed": 7, "eps": [0.5], "experiments": EXPERIMENTS, "toy": {"n": [10]}}
    for name, wings_given, expected in (
        ("with.yaml", ["mine/toy_wing.py"], "with.yaml: ok"),
        ("without.yaml", None, "'toy' was unexpected"),
        ("bad.yaml", ["mine/nope.py"], "wings[0]: mine/nope.py: no such file"),
    ):
        (tmp_path / name).write_text(yaml.safe_dump(cfg | ({"wings": wings_given} if wings_given else {})))
        out = subprocess.run(
            [sys.executable, "-m", "schedbench.cli", "check-config", name], cwd=tmp_path, capture_output=True, text=True
        )
        assert expected in out.stdout + out.stderr, (name, out.stdout, out.stderr)
