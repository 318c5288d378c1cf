"""End to end: a fourth wing from a researcher's own folder (docs/architecture.md, "Adding a
wing"). A one-table toy model — its module exporting ``WING``, its rules file and the scripts
next to it — is written into a folder outside the workflow and the package, and named by the
config's ``wings:`` key; the real pipeline then runs to its default target (the toy's table, figure,
paper table and report view among its outputs, the PDF and the results explorer), ``schedbench
diff`` compares the toy table, and no file of the checkout is edited for it. Without the
``wings:`` entry the same config is refused naming the toy's section."""

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml

from schedbench.hall.config import config_hash
from schedbench.hall.run_config import config_of_files
from schedbench.hall.wing import registered
from tests.conftest import ROOT, latex_missing, pdf_text_missing
from tests.e2e.conftest import copy_workflow, failure_report, snakemake
from tests.unit.test_toy_wing import EXPERIMENTS  # the smallest scheduling experiment

pytestmark = pytest.mark.e2e

#: the toy wing's module: one results table (the mean of n uniform draws, with its interval), a
#: figure and a paper table in the appendix group, a report view, a claim, its section's schema
TOY_WING = '''"""A toy wing: the mean of n uniform draws, for a few n (one table, one figure)."""
from schedbench.hall.claims import Claim, evidence_ref
from schedbench.hall.wing import TableSpec, Wing

TABLE = "results/toy.parquet"


def _n(config):
    return (config.get("toy") or {}).get("n", [])


def _claims(tables, present):
    far = float((tables["points"]["mean"] - 0.5).abs().max())
    return [
        Claim(
            claim_id="T1",
            source="toy",
            statement="The mean of uniform draws is near one half.",
            measured=f"{len(tables['points'])} means, the farthest {far:.3f} from 1/2",
            evidence=evidence_ref(["tab:toy"], present),
            verdict="confirmed" if far < 0.25 else "contradicted",
        )
    ]


WING = Wing(
    name="toy",
    section="toy",
    schema={
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "n": {"type": "array", "items": {"type": "integer", "minimum": 1}, "minItems": 1},
            "reps": {"type": "integer", "minimum": 2, "default": 20},
        },
    },
    tables={TABLE: TableSpec(identity=("n",), estimates={"mean": ("mean_ci_lo", "mean_ci_hi")})},
    figure_caption=lambda stem, kind: "Toy wing: the mean of $n$ uniform draws against $n$." if stem == "toy_mean" else None,
    table_captions={"toy": "Toy wing: the means of uniform draws."},
    claims=lambda tables, present: _claims(tables, present) if "points" in tables else [],
    report_views=lambda tables: {"means": (tables["points"][["n", "mean", "mean_ci_lo", "mean_ci_hi"]], "Toy wing: means")},
    rules="toy.smk",
    targets=lambda c: [TABLE, "paper/figures/toy_mean.pdf", "paper/figures/toy_mean.png", "paper/tables/toy.tex"] if _n(c) else [],
    report_tables=lambda c: ["results/report/toy_means.html"] if _n(c) else [],
    claims_inputs=lambda c: {"points": TABLE} if _n(c) else {},
    site_tables=lambda c: {"toy": TABLE} if _n(c) else {},
    figures=lambda c: ["paper/figures/toy_mean.pdf"] if _n(c) else [],
    paper_contents=lambda c: {"tables": ([("toy_mean", None)], ["toy"])} if _n(c) else {},
    bench_keys=lambda c: ["toy"] if _n(c) else [],
)
'''

#: its rules: the table, the figure and paper table, the report view (through the hall's script)
TOY_RULES = """# The toy wing's rules: included by the Snakefile from the config's `wings:` entry.
TOY = config.get("toy") or {}
TOY_DIR = str(workflow.current_basedir)


rule toy_table:
    input:
        sources=sources_of(f"{TOY_DIR}/toy_table.py"),
    output:
        "results/toy.parquet",
    log:
        "results/logs/toy_table.log",
    benchmark:
        "results/benchmarks/toy_table/toy.tsv"
    params:
        n=TOY.get("n", []),
        reps=TOY.get("reps"),
        seed=config["seed"],
        config_hash=CONFIG_HASH,
    script:
        "toy_table.py"


rule toy_paper:
    input:
        "results/toy.parquet",
        sources=sources_of(f"{TOY_DIR}/toy_paper.py"),
    output:
        pdf="paper/figures/toy_mean.pdf",
        png=report(
            "paper/figures/toy_mean.png", caption="toy.rst", category="Toy wing", labels={"figure": "mean"}
        ),
        table="paper/tables/toy.tex",
    log:
        "results/logs/toy_paper.log",
    benchmark:
        "results/benchmarks/toy_paper/toy.tsv"
    localrule: True
    params:
        provenance=PROVENANCE,
    script:
        "toy_paper.py"


rule report_tables_toy:
    input:
        points="results/toy.parquet",
        sources=sources_of("report_tables.py"),
    output:
        means=report(
            "results/report/toy_means.html",
            caption="toy.rst",
            category="Results tables",
            subcategory="Toy wing",
            labels={"table": "toy means"},
        ),
    log:
        "results/logs/report_tables_toy.log",
    localrule: True
    params:
        wing="toy",
        provenance=PROVENANCE,
    script:
        f"{HALL_SCRIPTS}/report_tables.py"
"""

TOY_TABLE_SCRIPT = """# the toy table: the mean of n uniform draws, reps times, for each n, with the run's provenance
import numpy as np
import pandas as pd

from schedbench.hall.io import provenance, write_parquet

p = snakemake.params
rng = np.random.default_rng(p.seed)
rows = []
for n in p.n:
    means = rng.random((p.reps, n)).mean(axis=1)
    half = 1.96 * means.std(ddof=1) / np.sqrt(p.reps)
    rows.append({"n": n, "mean": means.mean(), "mean_ci_lo": means.mean() - half, "mean_ci_hi": means.mean() + half})
write_parquet(pd.DataFrame(rows).assign(**provenance(p.config_hash)), snakemake.output[0])
"""

TOY_PAPER_SCRIPT = r"""# the toy figure (PDF and PNG) and its paper table
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pandas as pd

df = pd.read_parquet(snakemake.input[0])
fig, ax = plt.subplots(figsize=(4, 3))
ax.errorbar(df["n"], df["mean"], yerr=[df["mean"] - df["mean_ci_lo"], df["mean_ci_hi"] - df["mean"]], marker="o")
ax.set_xscale("log")
ax.set_xlabel("n")
ax.set_ylabel("mean")
fig.savefig(snakemake.output.pdf)
fig.savefig(snakemake.output.png, dpi=80)
rows = "".join(f"{n} & {m:.3f} \\\\\n" for n, m in zip(df["n"], df["mean"]))
with open(snakemake.output.table, "w") as out:
    out.write("\\begin{tabular}{rr}\nToyN & ToyMean \\\\\n\\hline\n" + rows + "\\end{tabular}\n")
"""

#: the caption of its entries in Snakemake's HTML report (beside its rules file)
TOY_CAPTION = """Toy wing: the mean of n uniform draws, from ``results/toy.parquet``.

Produced by ``{{ snakemake.params.provenance }}``.
"""


def toy_folder(where: Path) -> Path:
    """The toy wing's folder (outside the workflow): its module, rules file and scripts."""
    where.mkdir(parents=True)
    (where / "toy_wing.py").write_text(TOY_WING)
    (where / "toy.smk").write_text(TOY_RULES)
    (where / "toy_table.py").write_text(TOY_TABLE_SCRIPT)
    (where / "toy_paper.py").write_text(TOY_PAPER_SCRIPT)
    (where / "toy.rst").write_text(TOY_CAPTION)
    return where


def toy_config(work: Path, wings: list[str] | None) -> str:
    cfg = {"seed": 5, "eps": [0.5], "figures": {"n_boot": 100}, "experiments": EXPERIMENTS}
    cfg["toy"] = {"n": [10, 100, 1000]}
    if wings is not None:
        cfg["wings"] = wings
    (work / "config/toy.yaml").write_text(yaml.safe_dump(cfg))
    return "config/toy.yaml"


def checkout_changes() -> str:
    """What git sees changed in the checkout's hall, faces and workflow (the Snakefile, workflow/,
    src/schedbench/, paper/, config/)."""
    return subprocess.run(
        ["git", "status", "--porcelain", "--", "Snakefile", "workflow", "src/schedbench", "paper", "config"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout


def test_a_toy_wing_from_a_researchers_folder_runs_through_the_pipeline_the_paper_and_diff(tmp_path):
    before = checkout_changes()
    work = copy_workflow(tmp_path / "wf")
    toy = toy_folder(tmp_path / "toywing")
    configfile = toy_config(work, ["../toywing/toy_wing.py"])  # relative to the working directory
    proc = snakemake(work, "--configfile", configfile)
    assert proc.returncode == 0, failure_report(work, proc)

    # the toy table, with the run's provenance (its config hash: the config with the toy section)
    table = pd.read_parquet(work / "results/toy.parquet")
    assert table["n"].tolist() == [10, 100, 1000]
    with registered():  # the config's wing registered here for the while (the hash checks its section)
        run_hash = config_hash(config_of_files([work / configfile], work))
    assert set(table["config_hash"]) == {run_hash} == set(pd.read_parquet(work / "results/runs.parquet")["config_hash"])
    assert {"git_commit", "packages", "platform"} <= set(table.columns)
    # the report's view, the explorer's table, the claims table's claim, the paper's appendix
    html = (work / "results/report/toy_means.html").read_text()
    assert "<title>Toy wing: means</title>" in html and html.count("</tr>") == 4
    assert '"toy"' in (work / "results/site/data.js").read_text()  # the explorer's tables
    claims = pd.read_parquet(work / "results/claims.parquet")
    assert "The mean of uniform draws is near one half." in claims["statement"].tolist()
    tables_tex = (work / "paper/generated/tables.tex").read_text()
    assert "figures/toy_mean.pdf" in tables_tex and "\\input{tables/toy.tex}" in tables_tex
    # the toy's jobs declare the wing's file among their sources (hall.sources): report and claims
    manifests = {p.name: p.read_text() for p in (work / "results/sources").glob("*.sha256")}
    declaring = sorted(name for name, text in manifests.items() if str((toy / "toy_wing.py").resolve()) in text)
    assert any(n.startswith("report_tables-") for n in declaring) and any(
        n.startswith("claims_table-") for n in declaring
    )
    if latex_missing() is None and pdf_text_missing() is None:
        text = subprocess.run(
            ["pdftotext", str(work / "paper/main.pdf"), "-"], capture_output=True, text=True, check=True
        ).stdout
        flat = " ".join(text.split())
        assert "Toy wing: the mean of n uniform draws against n." in flat
        assert "Toy wing: the means of uniform draws." in flat and "ToyN" in flat and "ToyMean" in flat

    # an edit of the wing's file reruns the jobs that read the wings, not the others
    wing_file = toy / "toy_wing.py"
    wing_file.write_text(TOY_WING + "\n# edited\n")
    proc = snakemake(work, "-n", "--configfile", configfile)
    wing_file.write_text(TOY_WING)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = proc.stdout + proc.stderr
    for rerun in ("claims_table", "paper_generated", "report_tables_toy"):
        assert re.search(rf"^{rerun}\s+1$", out, re.M), (rerun, out[-3000:])
    for untouched in ("run_online", "make_instances", "toy_table", "toy_paper"):
        assert not re.search(rf"^{untouched}\s+\d+$", out, re.M), (untouched, out[-3000:])

    # Snakemake's HTML report holds the toy's figure and its view, with their caption
    proc = subprocess.run(
        [sys.executable, "-m", "snakemake", "--configfile", configfile, "--report", "report.html"],
        cwd=work,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = (work / "report.html").read_text()
    for entry in ("results/report/toy_means.html", "paper/figures/toy_mean.png", "Toy wing: the mean of n uniform"):
        assert entry in report, entry

    # the archive stores the toy table, and diff compares the archived run's with the current one
    def schedbench(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "schedbench.cli", *args], cwd=work, capture_output=True, text=True)

    made = schedbench("archive", "toyrun")
    assert made.returncode == 0, made.stderr[-3000:]
    manifest = json.loads((work / "results/archive/toyrun/manifest.json").read_text())
    assert "results/toy.parquet" in {f["path"] for f in manifest["files"]}
    out = schedbench("diff", "toyrun", "current")
    assert "results/toy.parquet: no changes beyond the noise (3 points in both: 3 identical" in out.stdout, (
        out.stdout[-3000:] + out.stderr[-3000:]
    )

    # schedbench diff compares the toy table: the run against a copy with one mean edited
    other = tmp_path / "wf2"
    shutil.copytree(work, other, symlinks=True)
    edited = pd.read_parquet(other / "results/toy.parquet")
    edited.loc[edited["n"] == 1000, ["mean", "mean_ci_lo", "mean_ci_hi"]] += 0.3
    edited.to_parquet(other / "results/toy.parquet")
    out = schedbench("diff", str(work), str(other), "--full")
    assert "results/toy.parquet: 3 points in both: 2 identical, 0 within the noise, 1 changed" in out.stdout, (
        out.stdout[-3000:] + out.stderr[-3000:]
    )
    assert re.search(r"changed.*n=1000.*mean", out.stdout), out.stdout[-3000:]

    # nothing of the checkout was edited for the toy wing
    assert checkout_changes() == before


def test_the_toy_section_without_its_wing_is_refused_and_a_bad_wings_entry_is_named(tmp_path):
    work = copy_workflow(tmp_path / "wf")
    toy_folder(tmp_path / "toywing")
    (tmp_path / "toywing/twin.py").write_text(TOY_WING)  # a second wing named toy
    (tmp_path / "toywing/nowing.py").write_text("WING = 'toy'\n")
    for wings, message in (
        (None, "config: (top level): Additional properties are not allowed ('toy' was unexpected)"),
        (["../toywing/no_such_wing.py"], "config: wings[0]: ../toywing/no_such_wing.py: no such file"),
        (
            ["../toywing/toy_wing.py", "../toywing/nowing.py"],
            "config: wings[1]: ../toywing/nowing.py: its WING must be a schedbench.hall.wing.Wing, it exports a str",
        ),
        (["../toywing/toy_wing.py", "../toywing/twin.py"], "config: wings: two wings named 'toy'"),
    ):
        proc = snakemake(work, "-n", "--configfile", toy_config(work, wings))
        out = proc.stdout + proc.stderr
        assert proc.returncode != 0 and message in out, (wings, out[-3000:])
    assert not (work / "results").exists()
