"""What the paper's LaTeX source is built from, generated: the config's numbers as macros, one
file per section group (the hand-written prose of ``paper/sections/`` followed by exactly the
figures and tables the pipeline wrote for the config), the reproducibility section (versions,
commit, config hash, machine, wall time per stage from Snakemake's benchmark files), and the
HTML tables of the report."""

from __future__ import annotations

import json
import math
import os
import platform
import re
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import pandas as pd

from schedbench.hall.figure_style import BOUND_FLAG, MAX_LINES_PER_PANEL
from schedbench.hall.effort import HIGHS_NODES_PER_UNIT
from schedbench.hall.latex import eps_text, tex_text
from schedbench.hall.io import read_benchmark

__all__ = [
    "GROUPS",
    "config_macros_tex",
    "group_tex",
    "reproducibility_tex",
    "stage_times",
    "machine_info",
    "figure_caption",
    "html_table",
]

#: the paper's section groups in order; ``paper/main.tex`` inputs ``generated/<group>.tex`` for each
#: (``tables`` after ``\\appendix``). The body shows one figure per results section; the exhaustive
#: per-experiment figures are the HTML report's (``report_figures`` in workflow/rules/paper_common.smk).
GROUPS = (
    "practice",
    "adversaries",
    "eps_sweep",
    "search",
    "claims",
    "loss",
    "bipartite",
    # the appendix: every table (the method table, the claims, the adversaries, the fits)
    "tables",
)
#: groups whose prose stands without a figure or table of their own (the claims section points at
#: the appendix's claims table)
PROSE_ONLY = ("claims",)
#: tables that are ``longtable``s (caption and label inside, over several pages): input as they are,
#: never in a float
LONG_TABLES = ("methods", "claims", "practice", "eps_sweep", "adversaries", "rejections")

# -------------------------------------------------------------------------------- macros


def _num(x) -> str:
    """A number as LaTeX text: integers plain, powers of ten ≥ 1000 as 10^{k}, others %g. Math is
    wrapped in \\ensuremath, so the macro reads the same in text and inside $...$ (the prose uses
    both: ``over $n\\ge\\LossFitMinN$``)."""
    x = float(x)
    if x.is_integer():
        k = math.log10(x) if x > 0 else 0
        if x >= 1000 and float(k).is_integer():
            return f"\\ensuremath{{10^{{{int(k)}}}}}"
        return f"{int(x)}"
    return f"{x:g}"


def _set(values, fmt=lambda v: f"{v:g}") -> str:
    values = sorted({float(v) for v in values})
    return "\\ensuremath{\\{" + ", ".join(fmt(v) for v in values) + "\\}}" if values else "--"


def _eps_set(values) -> str:
    """A set of ε values as a reader writes them: {1/32, 1/16, 1/8} (:func:`~schedbench.hall.latex.eps_text`)."""
    return _set(values, eps_text)


def _trace_pace(exps: dict) -> str:
    """How the flow-time trace windows are paced, as the text says it: the offered loads their
    releases are scaled to (swf-trace ``load``), or the log's own pace."""
    loads = [
        e["params"]["load"]
        for e in exps.values()
        if e.get("family") == "swf-trace" and e.get("params", {}).get("load") is not None
    ]
    if not loads:
        return "at the log's own pace"
    return "with releases scaled to an offered load of " + _set(loads)


def config_macros_tex(
    cfg: dict,
    config_file: str,
    config_hash: str,
    slope_tol: float,
    eps_sweep: dict | None = None,
    practice: dict | None = None,
) -> str:
    """Every number of the config the text quotes, as a macro (no number is typed in the prose).
    ``eps_sweep``: the ε sweep's values and candidates per point with the wing's defaults applied
    (``scheduling.stage.eps_sweep.sweep_summary``), None without a sweep; ``practice``: the
    practice comparison's ε values, split sizes and flag threshold with the wing's defaults
    applied (``scheduling.stage.practice.practice_summary``), None without one."""
    exps = cfg.get("experiments", {})
    loads = [
        e["params"]["load"]
        for e in exps.values()
        if "family" in e
        and "load" in e.get("params", {})
        and e.get("problem", "maxflow") == "maxflow"
        and e["params"].get("sizes") in ("unit", "uniform")
    ]
    macros = {
        "ConfigFile": f"\\texttt{{{tex_text(config_file)}}}",
        "ConfigHash": f"\\texttt{{{tex_text(config_hash)}}}",
        "BaseSeed": str(cfg["seed"]),
        "EpsGrid": _eps_set(cfg["eps"]),
        "NBoot": _num(cfg["figures"]["n_boot"]),
        "OptTimeLimit": _num(cfg["opt"]["time_limit"]),
        "OptWorkLimit": _num(cfg["opt"]["work_limit"]),
        "HighsNodesPerUnit": _num(HIGHS_NODES_PER_UNIT),
        "NumSchedExperiments": str(len(exps)),
        "NumFamilyExperiments": str(sum("family" in e for e in exps.values())),
        "NumAdversaryExperiments": str(sum("adversary" in e for e in exps.values())),
        "MaxflowLoads": _set(loads),
        "TracePace": _trace_pace(exps),
    }
    if eps_sweep:
        evals = eps_sweep["max_evals"]
        macros.update(
            {
                "SweepEps": _eps_set(eps_sweep["eps"]),
                "SweepMaxEvals": _num(evals[0]) if len(evals) == 1 else _set(evals),
                "SweepSeries": tex_text(eps_sweep["series_text"]),
            }
        )
    if practice:
        macros.update(
            {
                "PracticeEps": _eps_set(practice["eps"]),
                "PracticeTrain": _set(practice["train_instances"]),
                "PracticeTest": _set(practice["test_instances"]),
                "PracticeMinBudget": f"{float(practice['min_budget_used']):g}",
                "PracticeNumFamilies": str(practice["families"]),
            }
        )
    loss = cfg.get("loss") or {}
    if loss:
        macros.update(
            {
                "LossBatches": _num(loss["batches"]),
                "LossWarmup": _num(loss["warmup"]),
                "LossFitMinN": _num(loss["fit_min_n"]),
                "LossSlopeTol": f"{slope_tol:g}",
                "LossMinArrivals": _num(loss["min_arrivals"]),
                "LossArrivalsPerServer": _num(loss["arrivals_per_server"]),
                "LossNumExperiments": str(len(loss.get("experiments", {}))),
            }
        )
    bip = cfg.get("bipartite") or {}
    if bip:
        macros.update(
            {
                "BipBatches": _num(bip["batches"]),
                "BipCheckArrivals": _num(bip["check_arrivals"]),
                "BipMinArrivals": _num(bip["min_arrivals"]),
                "BipArrivalsPerServer": _num(bip["arrivals_per_server"]),
                "BipNumExperiments": str(len(bip.get("experiments", {}))),
            }
        )
    lines = ["% Generated by schedbench (paper.config_macros_tex) from the config; do not edit."]
    lines += [f"\\newcommand{{\\{name}}}{{{value}}}" for name, value in macros.items()]
    return "\n".join(lines) + "\n"


# -------------------------------------------------------------------------------- captions

_PROBLEM_TITLE = {
    "load": "LoadBalancing",
    "maxflow": "MaxFlowTime",
    "wtdmaxflow": "WtdMaxFlowTime",
    "genwtd": "GenWtdMaxFlowTime",
    "stretch": "max stretch",
}

_LOSS = {
    "A1": "A1: blocking at $k=n$ against $n$, one panel per $\\alpha$ (dashed: exact Erlang-B).",
    "A2": "A2: $E[T]-1/d$ at $k=n$ with $n\\equiv 1 \\bmod d$ (dashed: the exact two-phase chain).",
    "A3": "A3: $P_B$ and $E[T]-1/d$ for $k=\\lceil c\\,n^\\alpha\\ln n\\rceil$.",
    "A4": "A4: small samples, $k=\\lceil n^\\gamma\\rceil$ and constant $k$.",
    "A5": "A5: the trade-off in $k/n$ at fixed $n$.",
}
_BIP = {
    "B1": "B1: $E[T]$ against $N$ per policy (dashed: $T^*_N$, dotted: JIQ fluid).",
    "B2": "B2: $E[T]-T^*_N$ against $N$ (log--log).",
    "B3": "B3: $E[T]$ against the degree $D_N$ at fixed $N$ (sparsity threshold).",
    "B4": "B4: $E[T]-T^*_N$ in the sub-Halfin--Whitt regime $\\rho_N=1-\\beta N^{-\\alpha}$.",
    "B5": "B5: $E[T]$ against the load $\\rho$.",
}


#: What a flagged ALG/OPT panel means (the flag: :data:`~schedbench.hall.figure_style.BOUND_FLAG`).
_BOUND_NOTE = (
    f"A panel titled ``\\ldots{BOUND_FLAG.strip()}'' has an instance whose optimum the solver did not prove "
    "within its work limit: its ratios divide by the proven lower bound, so they overstate ALG/OPT."
)


def figure_caption(stem: str, kind: str | None = None) -> str:
    """The LaTeX caption of a figure file (``kind``: the loss or bipartite figure letter)."""
    boot = (
        "95\\,\\% bootstrap CI bands over instances or seeds (\\NBoot{} resamples; a panel with fewer than ten "
        "instances at a point draws each instance instead of a mean and a band, and its title says so)"
    )
    m = re.fullmatch(r"(ratio_vs_eps|rejection_vs_eps|ecdf)_([a-z]+)", stem)
    if m:
        what, problem = m.groups()
        title = _PROBLEM_TITLE.get(problem, problem)
        layout = (
            "A row per experiment, a column per class of algorithm (the rejection model; speed "
            "$1+\\varepsilon$; speed~1 without rejection: the plain algorithms and the speed-model ones "
            f"at speed~1), at most {MAX_LINES_PER_PANEL} lines a panel; colour: the algorithm, as in every figure; "
            "marker and line style: its parameter setting."
        )
        if what == "ratio_vs_eps":
            return (
                f"{title}: ALG/OPT against $\\varepsilon$; {boot}; dash-dot: the proven bound. {layout} {_BOUND_NOTE}"
            )
        if what == "rejection_vs_eps":
            return (
                f"{title}: the largest rejected fraction at any prefix against $\\varepsilon$ "
                f"(rejection-model algorithms); dotted: the budget $y=\\varepsilon$; {boot}. {layout}"
            )
        return (
            f"{title}: performance profiles, the ECDF of ALG/OPT over the instances of each family "
            f"experiment at the $\\varepsilon$ closest to $0.25$ (with the instance count in each panel's title; "
            f"with fewer than ten instances a panel shows each instance's ratio, one row per setting, and no ECDF). "
            f"{layout} {_BOUND_NOTE}"
        )
    m = re.fullmatch(r"headline_([a-z]+)", stem)
    if m:
        title = _PROBLEM_TITLE.get(m.group(1), m.group(1))
        return (
            f"{title}, the comparison at a glance: per experiment, the mean ALG/OPT against "
            "$\\varepsilon$ (each instance's curve where the experiment has fewer than ten) of the rejection-model "
            "algorithm (solid), the speed-augmented baseline inside the model (dashed, speed $1+\\varepsilon$) and "
            "the plain baseline (dotted) with the lowest mean ALG/OPT over all $\\varepsilon$ on these same "
            "instances: a descriptive choice, made on the data shown (the held-out comparison, where the config "
            "has one, is the section on rejection against speed measured fairly); "
            f"each legend names its lines. Every algorithm is in the problem's own figure. {_BOUND_NOTE}"
        )
    if stem == "separation":
        return (
            "Rejection against speed on the adaptive immediate-dispatch construction: the largest ALG/OPT "
            "the adversary forces against the number of machines $m$, a row per construction (all jobs of a "
            "round at once, or one job a slot per surviving machine; $T$ jobs per machine pair), a column per "
            "$\\varepsilon$. Solid: rejection-model algorithms at $\\varepsilon$ (\\texttt{mft-unit}, the source "
            "paper's, handed $T^*$; \\texttt{edf-reject}, ours, without an oracle); dashed: speed "
            "$1+\\varepsilon$. The adversary is deterministic given the algorithm: each point is one proven "
            "ratio, not a mean; lines that coincide are drawn over each other, later ones with smaller markers."
        )
    if stem == "adversary_rounds":
        return (
            "ALG/OPT against the swept parameter of each adaptive adversary (rounds $K$ of LB-B, "
            f"machines $m$ of the immediate-dispatch tree) at one $\\varepsilon$; {boot}."
        )
    if stem == "practice":
        return (
            "Rejection against speed on held-out instances: per family (a line), the geometric-mean ratio "
            "ALG$_{\\mathrm{rej}}$/ALG$_{\\mathrm{speed}}$ over the test instances against $\\varepsilon$, of the "
            "rejection policy (at $\\varepsilon$) and the speed baseline (at $1+\\varepsilon$) with the best training "
            "scores at that $\\varepsilon$ (Table~\\ref{tab:practice} names them); a panel per problem class and "
            "workload; constants tuned on separate training instances, no oracle, no OPT; band: 95\\,\\% "
            "bootstrap CI over instances (from ten on); dashed: a tie; hollow: flagged (budget unused or all tied "
            "on the training runs, or invalid runs); log axes where the ratios span more than a factor three."
        )
    if stem == "worst_cases":
        return "The worst ALG/OPT each search task found, against the proven bound where there is one."
    m = re.fullmatch(r"eps_sweep_([a-z]+)", stem)
    if m:
        title = _PROBLEM_TITLE.get(m.group(1), m.group(1))
        return (
            f"{title}: the worst ALG/OPT the black-box search found, a row per series of the sweep "
            "(Section~\\ref{sec:eps_sweep}): against $1/\\varepsilon$ at the series' machines, or against $m$ "
            "at its one $\\varepsilon$ (log--log), OPT proven optimal. "
            "Circles: the worst found; crosses: what the hand-made adversaries force at that "
            "$\\varepsilon$; dotted: the algorithm's proven bound (a legend entry says when it lies above "
            "the panel). Each point is a lower bound on the worst case."
        )
    if stem == "parameter_sweep":
        return (
            "ALG/OPT, rejected fraction and wasted work against a swept algorithm parameter "
            f"(e.g.\\ the timeout constant $c$), one line per $\\varepsilon$; {boot}."
        )
    if stem.startswith("loss_") and kind in _LOSS:
        return _LOSS[kind] + " Markers: simulation with 95\\,\\% batch-means CIs (\\LossBatches{} batches)."
    if stem.startswith("bipartite_") and kind in _BIP:
        return (
            _BIP[kind] + " 95\\,\\% batch-means CIs (\\BipBatches{} batches). Where the policies and references "
            f"would exceed {MAX_LINES_PER_PANEL} lines a panel, the speed-aware (JFSQ, JFIQ, random-$\\mu$) and speed-oblivious "
            "policies are drawn in separate panels."
        )
    return tex_text(stem)


_TABLE_CAPTIONS = {
    "ratios": "Mean ALG/OPT [95\\,\\% bootstrap CI] per experiment, algorithm and $\\varepsilon$, and the "
    "largest rejected fraction at any prefix.",
    "loss_slopes": "Fitted log--log slopes [95\\,\\% CI] over $n\\ge\\LossFitMinN$ against the rates claimed by "
    "the loss model's source~\\cite{loss} (consistent: slope at most the claim $+\\LossSlopeTol$).",
    "bipartite_checks": "T2: the simulator against exact values and limits, each within the tolerance of its "
    "last column.",
    "worst_cases": "The worst cases the searches found (instance, ALG/OPT with its certificate) next to the "
    "proven bound and what the hand-made adversaries force.",
    "bipartite_rates": "Fitted rates of $E[T]-T^*_N$ in $N$ (its source~\\cite{bipartite} states none: measurements).",
}


#: the most of the text height a figure may take: every figure is drawn at most as wide as the text
#: and prints at its natural size or larger (a page would be shrunk only past this height)
FIGURE_HEIGHT = "0.85"


def _figure_env(
    stem: str, kind: str | None, page: int | None = None, pages: int | None = None, group: str | None = None
) -> str:
    """One figure float; ``page`` k of ``pages``: one page of a paged figure (the appendix's full
    panels), a whole text page high, labelled on its first page only; ``group``: also labelled
    ``fig:<group>`` (the group's first figure, which its prose cites with ``\\FigRef``)."""
    height = FIGURE_HEIGHT
    caption = figure_caption(stem, kind)
    label = f"\\label{{fig:{stem}}}" if not page or page == 1 else ""
    if label and group and group != stem:
        label += f"\\label{{fig:{group}}}"
    if pages and pages > 1:
        caption = (
            f"{caption} Page 1 of {pages}."
            if page == 1
            else f"Figure~\\ref{{fig:{stem}}} continued: page {page} of {pages}."
        )
    option = f"page={page}," if page else ""
    return "\n".join(
        [
            "\\begin{figure}[p]" if page else "\\begin{figure}[htbp]",
            "\\centering",
            f"\\includegraphics[{option}width=\\textwidth,height={height}\\textheight,keepaspectratio]{{figures/{stem}.pdf}}",
            f"\\caption{{{caption}}}{label}",
            "\\end{figure}",
            "",
        ]
    )


def _table_env(stem: str) -> str:
    return "\n".join(
        [
            "\\begin{table}[htbp]",
            "\\centering\\scriptsize",
            # shrunk only if wider than the text (a narrow table keeps its size)
            f"\\begin{{adjustbox}}{{max width=\\textwidth}}\\input{{tables/{stem}.tex}}\\end{{adjustbox}}",
            f"\\caption{{{_TABLE_CAPTIONS.get(stem, tex_text(stem))}}}\\label{{tab:{stem}}}",
            "\\end{table}",
            "",
        ]
    )


def group_tex(group: str, figures: list, tables: list[str]) -> str:
    """One section group: its prose (``sections/<group>.tex``) then its figures and tables, or a
    comment when the config has nothing for it (a group of :data:`PROSE_ONLY` keeps its prose);
    a float barrier ends it (``placeins``). ``figures``: stems, (stem, kind) pairs or (stem,
    kind, pages) triples, the last a paged figure of that many PDF pages, one float each."""
    head = f"% Generated by schedbench (paper.group_tex) for the group '{group}'; do not edit.\n"
    if not figures and not tables and group not in PROSE_ONLY:
        return head + "% (nothing in this config)\n"
    body = [f"\\input{{sections/{group}}}", ""]
    body += [f"\\input{{tables/{t}.tex}}\n" for t in tables if t in LONG_TABLES]  # right after the prose
    tables = [t for t in tables if t not in LONG_TABLES]
    for n, fig in enumerate(figures):
        stem, kind, pages = (fig, None, None) if isinstance(fig, str) else (tuple(fig) + (None,))[:3]
        first = group if n == 0 else None
        if pages:
            body += [_figure_env(stem, kind or None, k, pages, first) for k in range(1, pages + 1)]
        else:
            body.append(_figure_env(stem, kind or None, group=first))
    body += [_table_env(t) for t in tables]
    return head + "\n".join(body) + "\\FloatBarrier\n"  # its floats stay in its section, no page break


# -------------------------------------------------------------------------------- reproducibility


def machine_info() -> dict[str, str]:
    mem = ""
    try:
        kb = int(re.search(r"MemTotal:\s+(\d+)", Path("/proc/meminfo").read_text()).group(1))
        mem = f"{kb / 2**20:.1f} GiB"
    except (OSError, AttributeError, ValueError):
        mem = "unknown"
    cpu = platform.processor() or ""
    try:
        cpu = re.search(r"model name\s*:\s*(.+)", Path("/proc/cpuinfo").read_text()).group(1).strip()
    except (OSError, AttributeError):
        pass
    os_name = platform.platform()
    try:
        os_name = re.search(r'PRETTY_NAME="([^"]+)"', Path("/etc/os-release").read_text()).group(1)
    except (OSError, AttributeError):
        pass
    return {
        "system": os_name,
        "cpu": cpu or "unknown",
        "cores": str(os.cpu_count()),
        "memory": mem,
        "python": platform.python_version(),
    }


def stage_times(bench_files: list[str | os.PathLike], root: str | os.PathLike) -> pd.DataFrame:
    """Wall time per stage (rule) from Snakemake's benchmark files ``<root>/<rule>/<job>.tsv`` or
    ``<root>/<rule>.tsv``: jobs, total and largest wall seconds, largest peak memory (MB)."""
    rows = []
    root = Path(root)
    for f in bench_files:
        f = Path(f)
        rel = f.relative_to(root)
        rule = rel.parts[0] if len(rel.parts) > 1 else rel.stem
        times = read_benchmark(f)
        if times is None or times["wall_s"] is None:
            continue
        rss = times["max_rss_mb"]
        rows.append({"stage": rule, "s": times["wall_s"], "max_rss": math.nan if rss is None else rss})
    if not rows:
        return pd.DataFrame(columns=["stage", "jobs", "wall_s", "max_job_s", "max_rss_mb"])
    df = pd.DataFrame(rows)
    out = (
        df.groupby("stage")
        .agg(jobs=("s", "size"), wall_s=("s", "sum"), max_job_s=("s", "max"), max_rss_mb=("max_rss", "max"))
        .reset_index()
    )
    return out.sort_values("wall_s", ascending=False, ignore_index=True)


def reproducibility_tex(
    runs_provenance: dict, stages: pd.DataFrame, machine: dict[str, str], config_file: str, config_hash: str
) -> str:
    """The reproducibility section: what produced the results (from the results table's
    provenance columns), the machine, and the wall time per stage."""
    packages = json.loads(runs_provenance.get("packages", "{}") or "{}")
    try:
        packages.setdefault("matplotlib", version("matplotlib"))
    except PackageNotFoundError:
        pass
    lines = [
        "% Generated by schedbench (paper.reproducibility_tex); do not edit.",
        "\\section{Reproducibility}\\label{sec:reproducibility}",
        # sloppy: the two long identifiers need stretchier spaces to break the line before them
        f"{{\\sloppy Every number, figure and table of this paper was written by \\texttt{{snakemake --cores all}} from "
        f"the config \\texttt{{{tex_text(config_file)}}} (hash \\texttt{{{tex_text(config_hash)}}}), at commit "
        f"\\texttt{{{tex_text(runs_provenance.get('git_commit', 'unknown'))}}} of schedbench "
        f"{tex_text(runs_provenance.get('schedbench_version', '?'))}. "
        "Table~\\ref{tab:versions} lists the package versions and the machine, Table~\\ref{tab:stages} the "
        "wall time of each pipeline stage (Snakemake's benchmark files; jobs ran in parallel, so the "
        "stage totals add up to more than the elapsed time).\\par}",
        "",
        "\\begin{table}[htbp]",
        "\\centering\\small",
        "\\begin{tabular}{ll}",
        "\\toprule",
        "package or machine & version \\\\",
        "\\midrule",
    ]
    for name, ver in sorted(packages.items()):
        lines.append(f"{tex_text(name)} & {tex_text(ver)} \\\\")
    lines.append("\\midrule")
    for key in ("system", "cpu", "cores", "memory", "python"):
        lines.append(f"{key} & {tex_text(machine.get(key, 'unknown'))} \\\\")
    lines.append(f"platform (results) & {tex_text(runs_provenance.get('platform', 'unknown'))} \\\\")
    lines += [
        "\\bottomrule",
        "\\end{tabular}",
        "\\caption{Package versions recorded in the results table, and the machine.}\\label{tab:versions}",
        "\\end{table}",
        "",
        "\\begin{table}[htbp]",
        "\\centering\\small",
        "\\begin{tabular}{lrrrr}",
        "\\toprule",
        "stage (rule) & jobs & wall time (s, sum) & longest job (s) & peak memory (MB) \\\\",
        "\\midrule",
    ]
    for _, r in stages.iterrows():
        rss = "--" if not math.isfinite(r["max_rss_mb"]) else f"{r['max_rss_mb']:.0f}"
        lines.append(
            f"{tex_text(r['stage'])} & {int(r['jobs'])} & {r['wall_s']:.1f} & {r['max_job_s']:.1f} & {rss} \\\\"
        )
    lines += [
        "\\midrule",
        f"total & {int(stages['jobs'].sum()) if len(stages) else 0} & "
        f"{float(stages['wall_s'].sum()) if len(stages) else 0.0:.1f} & & \\\\",
        "\\bottomrule",
        "\\end{tabular}",
        "\\caption{Wall time per pipeline stage (the PDF build itself excluded).}\\label{tab:stages}",
        "\\end{table}",
        "",
    ]
    return "\n".join(lines)


# -------------------------------------------------------------------------------- report tables


def html_table(df: pd.DataFrame, title: str, note: str = "") -> str:
    """A self-contained, sortable-looking HTML page of a table (the report shows it in a frame)."""
    style = (
        "body{font-family:sans-serif;font-size:13px;margin:12px}table{border-collapse:collapse}"
        "th,td{border:1px solid #ccc;padding:2px 6px;text-align:right}th{background:#eee;position:sticky;top:0}"
        "td:first-child,th:first-child{text-align:left}"
    )
    body = df.to_html(index=False, na_rep="", float_format=lambda x: f"{x:.4g}", border=0, escape=True)
    return (
        f'<!DOCTYPE html><html><head><meta charset="utf-8"><title>{title}</title><style>{style}</style>'
        f"</head><body><h3>{title}</h3><p>{note}</p>{body}</body></html>\n"
    )
