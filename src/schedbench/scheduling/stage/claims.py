"""The rejection paper's claims (and the classical ones its baselines rest on), each judged on
this run's results: ``runs.parquet`` (every validated run, OPT proven or labelled) and, when the
config has an ε sweep, its growth table. The rule of each verdict is in docs/claims.md; the
record and the table are :mod:`schedbench.hall.claims`.

Only runs that passed the validator count, and only ratios over a proven OPT: a bound is an upper
bound's witness only when OPT is exact."""

from __future__ import annotations

import math
from typing import Iterable

import pandas as pd

from schedbench.hall.claims import Claim, evidence_ref, plural

__all__ = ["SCHEDULING_CLAIMS", "ADVERSARY_CLAIMS", "scheduling_claims"]

#: (claim id, source, statement): the order of the table (docs/claims.md)
SCHEDULING_CLAIMS = (
    ("lb-unit-upper", "cdgk §5", "unit LoadBalancing, rejecting ε: max load ≤ α·T* = O(log 1/ε)"),
    ("lb-unit-lower", "cdgk §8", "unit LoadBalancing: every algorithm rejecting ε is Ω(log 1/ε)"),
    ("lb-general-upper", "cdgk §5", "LoadBalancing with sizes, rejecting ε: O(log² 1/ε)"),
    ("dispatch-on-arrival", "cdgk Thm 8.2", "sizes: dispatching and rejecting on arrival is not O(1)"),
    ("mft-unit-upper", "cdgk §6.1", "unit MaxFlowTime, rejecting ε: max flow ≤ ⌈T*/ε⌉ = O(1/ε)"),
    ("immediate-dispatch", "cdgk overview", "max flow: immediate dispatch is Ω(log m) even with speed"),
    ("wmft-upper", "cdgk §6.2", "WtdMaxFlowTime, algorithm B rejecting ε: O(1/ε⁴)"),
    ("wmft-lower", "cdgk Thm 8.3", "WtdMaxFlowTime: every algorithm rejecting ε is Ω(1/ε)"),
    ("section4", "cdgk §4", "per-class least load with SRPT overruns the budget; A does not"),
    ("gwmft-upper", "cdgk §7", "GenWtdMaxFlowTime and max stretch, rejecting ε: O(1/ε⁶)"),
    ("greedy", "anr", "greedy restricted assignment is ⌈log₂ m⌉ + 1-competitive, tight"),
)

#: the claims the adversarial constructions test (the adversaries section opens with their verdicts)
ADVERSARY_CLAIMS = ("lb-unit-lower", "dispatch-on-arrival", "immediate-dispatch", "section4", "greedy")

_RATIO_FIGURE = {
    "load": "fig:ratio_vs_eps_load",
    "maxflow": "fig:ratio_vs_eps_maxflow",
    "wtdmaxflow": "fig:ratio_vs_eps_wtdmaxflow",
    "genwtd": "fig:ratio_vs_eps_genwtd",
    "stretch": "fig:ratio_vs_eps_stretch",
}


def _counted(runs: pd.DataFrame) -> pd.DataFrame:
    """Runs that passed the validator (within budget or not) with a proven OPT and a ratio."""
    ok = runs["status"].isin(["ok", "budget_violated"]) & (runs["opt_status"] == "optimal")
    return runs[ok & runs["ratio"].notna()]


def _g(x: float) -> str:
    return f"{x:.3g}"


def _upper(cid, source, statement, runs, algorithms, evidence) -> Claim:
    """An upper bound: every counted run of ``algorithms`` with a proven bound has ALG/OPT ≤ it."""
    sel = _counted(runs)
    sel = sel[sel["algorithm"].isin(algorithms) & sel["ratio_bound"].notna()]
    if sel.empty:
        return Claim(cid, source, statement, "--", evidence, "not shown", f"no run of {', '.join(algorithms)}")
    slack = sel["ratio"] / sel["ratio_bound"]
    over = int((sel["ratio"] > sel["ratio_bound"] * (1 + 1e-9)).sum())
    measured = (
        f"{plural(len(sel), 'run')} in {plural(sel['experiment'].nunique(), 'experiment')}, ε from {_g(sel['eps'].min())} "
        f"to {_g(sel['eps'].max())}: max ALG/OPT {_g(sel['ratio'].max())}, at most {_g(slack.max())} of the bound"
    )
    if over:
        return Claim(cid, source, statement, measured + f"; {over} above it", evidence, "contradicted")
    return Claim(cid, source, statement, measured, evidence, "confirmed")


def _growth(cid, source, statement, runs, families, algorithms, over, evidence, what="forced ALG/OPT") -> Claim:
    """A lower bound shown by a construction: the largest ratio the adversaries ``families`` force
    on ``algorithms`` grows along ``over`` (``inv_eps`` or the machines ``m``)."""
    sel = _counted(runs)
    sel = sel[sel["family"].isin(families) & sel["algorithm"].isin(algorithms)]
    if over == "inv_eps":
        sel = sel[sel["eps"] > 0].assign(x=lambda d: 1.0 / d["eps"])
        axis = "1/ε"
    else:
        sel = sel.assign(x=sel["m"].astype(float))
        axis = "m"
    if sel.empty:
        return Claim(cid, source, statement, "--", evidence, "not shown", f"no run of {', '.join(families)}")
    top = sel.groupby("x")["ratio"].max().sort_index()
    if len(top) < 2:
        measured = f"{what} {_g(top.iloc[0])} at {axis} = {_g(top.index[0])}"
        return Claim(cid, source, statement, measured, evidence, "not shown", f"one value of {axis} only")
    measured = f"{what} {_g(top.iloc[0])} at {axis} = {_g(top.index[0])}, {_g(top.iloc[-1])} at {_g(top.index[-1])}"
    if top.iloc[-1] > top.iloc[0]:
        return Claim(cid, source, statement, measured, evidence, "confirmed qualitatively")
    return Claim(cid, source, statement, measured, evidence, "not shown", f"no growth in {axis} over this range")


def _section4(cid, source, statement, runs, evidence) -> Claim:
    sel = _counted(runs)
    sel = sel[sel["family"] == "section4"]
    bad = sel[sel["algorithm"] == "class-ll-srpt"]
    good = sel[sel["algorithm"].isin(["wmft-A", "wmft-B"])]
    if bad.empty or good.empty:
        return Claim(cid, source, statement, "--", evidence, "not shown", "no section4 run of both rules")
    over_bad = bad["rejected_frac_max_prefix"] - bad["eps"]
    over_good = good["rejected_frac_max_prefix"] - good["eps"]
    measured = (
        f"largest prefix rejected fraction: class-ll-srpt {_g(bad['rejected_frac_max_prefix'].max())}, "
        f"A/B {_g(good['rejected_frac_max_prefix'].max())} (ε = {_g(sel['eps'].max())})"
    )
    if (over_bad > 1e-12).any() and not (over_good > 1e-12).any():
        return Claim(cid, source, statement, measured, evidence, "confirmed")
    if not (over_bad > 1e-12).any():
        return Claim(cid, source, statement, measured, evidence, "not shown", "the horizon is too short to overrun")
    return Claim(cid, source, statement, measured, evidence, "contradicted")


def _greedy(cid, source, statement, runs, evidence) -> Claim:
    sel = _counted(runs)
    sel = sel[(sel["algorithm"] == "greedy") & (sel["problem"] == "load")]
    if sel.empty:
        return Claim(cid, source, statement, "--", evidence, "not shown", "no run of greedy")
    bound = sel["m"].map(lambda m: math.ceil(math.log2(m)) + 1 if m >= 1 else math.nan)
    over = int((sel["ratio"] > bound + 1e-9).sum())
    tree = sel[sel["family"] == "anr-tree"]
    tight = int((tree["ratio"] >= bound[tree.index] - 1e-9).sum())
    measured = f"{plural(len(sel), 'run')}: max ALG/OPT / bound {_g((sel['ratio'] / bound).max())}"
    if len(tree):
        measured += f"; the ANR tree forces the bound in {tight} of {len(tree)} runs"
    if over:
        return Claim(cid, source, statement, measured + f"; {over} above it", evidence, "contradicted")
    if len(tree) and tight:
        return Claim(cid, source, statement, measured, evidence, "confirmed")
    return Claim(cid, source, statement, measured, evidence, "confirmed qualitatively")


def _wmft_lower(cid, source, statement, growth: pd.DataFrame | None, evidence) -> Claim:
    why = "the paper's construction is not available"
    if growth is None or growth.empty:
        return Claim(cid, source, statement, "--", evidence, "not shown", why)
    sel = growth[growth["problem"] == "wtdmaxflow"]
    if sel.empty:
        return Claim(cid, source, statement, "--", evidence, "not shown", why)
    best = sel.loc[sel["found_exponent"].idxmax()]
    measured = (
        f"the ε sweep's worst found grows as (1/ε)^{_g(best['found_exponent'])} for {best['algorithm']} "
        f"(1/ε from {_g(best['inv_eps_min'])} to {_g(best['inv_eps_max'])})"
    )
    return Claim(cid, source, statement, measured, evidence, "not shown", why + "; a search bounds one algorithm only")


def scheduling_claims(
    runs: pd.DataFrame, present: Iterable[str], sweep_growth: pd.DataFrame | None = None
) -> list[Claim]:
    """Every claim of :data:`SCHEDULING_CLAIMS`, judged on this run; ``present``: the figure and
    table labels the paper holds (a claim points at the first that shows it)."""
    have = set(present)

    def ev(*labels: str) -> str:
        return evidence_ref([*labels, "tab:ratios"], have)

    text = {cid: (src, st) for cid, src, st in SCHEDULING_CLAIMS}

    def args(cid):
        return (cid, *text[cid])

    out = [
        _upper(*args("lb-unit-upper"), runs, ["lb-unit-reject"], ev(_RATIO_FIGURE["load"])),
        _growth(*args("lb-unit-lower"), runs, ["lb-a"], ["lb-unit-reject"], "inv_eps", ev("tab:adversaries")),
        _upper(*args("lb-general-upper"), runs, ["lb-general-reject"], ev(_RATIO_FIGURE["load"])),
        _growth(*args("dispatch-on-arrival"), runs, ["lb-b"], ["greedy-cap", "greedy"], "m", ev("tab:adversaries")),
        _upper(*args("mft-unit-upper"), runs, ["mft-unit"], ev(_RATIO_FIGURE["maxflow"])),
        _growth(
            *args("immediate-dispatch"),
            runs[runs["eps"] > 0],
            ["anr-flow"],
            ["ll-fifo", "edf", "imd"],
            "m",
            ev("tab:adversaries"),
        ),
        _upper(*args("wmft-upper"), runs, ["wmft-B"], ev(_RATIO_FIGURE["wtdmaxflow"])),
        _wmft_lower(*args("wmft-lower"), sweep_growth, ev("fig:eps_sweep_wtdmaxflow", "tab:eps_sweep")),
        _section4(*args("section4"), runs, ev("tab:rejections", "tab:adversaries")),
        _upper(*args("gwmft-upper"), runs, ["gwmft"], ev(_RATIO_FIGURE["stretch"], _RATIO_FIGURE["genwtd"])),
        _greedy(*args("greedy"), runs, ev("tab:adversaries", _RATIO_FIGURE["load"])),
    ]
    return out
