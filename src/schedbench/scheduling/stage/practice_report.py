"""The practice comparison's results (:mod:`schedbench.scheduling.stage.practice` runs it): the
paired table with its intervals, flags and headline mark, its LaTeX table, the finding sentence and
the figure. The protocol is in the module docstring of ``practice``."""

from __future__ import annotations

import json
import math
import textwrap

import numpy as np
import pandas as pd

from schedbench.hall.latex import eps_text, fmt_cell, longtable, tex_text
from schedbench.hall.seeds import derived_seed
from schedbench.hall.stats import MIN_SUMMARY_N
from schedbench.scheduling.stage.practice import DEFAULTS, TIE, family_problem

__all__ = [
    "paired_table",
    "wilson_interval",
    "practice_table_tex",
    "practice_finding",
    "spending_finding",
    "spending_twins",
    "practice_tally",
    "practice_figure",
    "instance_ratios",
    "family_titles",
    "TABLE_CAPTION",
]


def wilson_interval(wins: float, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """The Wilson score interval of a proportion wins/n (95 % by default)."""
    if n <= 0:
        return (math.nan, math.nan)
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def _geo_ci(log_ratios: np.ndarray, n_boot: int, seed: int) -> tuple[float, float, float]:
    from schedbench.hall.stats import bootstrap_ci

    mean, lo, hi = bootstrap_ci(log_ratios, n_boot=n_boot, seed=seed)
    return float(np.exp(mean)), float(np.exp(lo)), float(np.exp(hi))


def _usable(a: pd.DataFrame, b: pd.DataFrame, i) -> bool:
    """Both runs on instance ``i`` passed the validator with a finite positive objective."""
    return bool(
        a.at[i, "status"] == "ok"
        and b.at[i, "status"] == "ok"
        and np.isfinite(a.at[i, "objective"])
        and np.isfinite(b.at[i, "objective"])
        and a.at[i, "objective"] > 0
        and b.at[i, "objective"] > 0
    )


def _training_flags(runs: pd.DataFrame, min_budget_used: float) -> dict[tuple[str, float], str]:
    """Per (family, ε), decided on the training runs of the chosen settings (never on the test
    rows): ``budget unused`` when every policy's mean budget use there is below
    ``min_budget_used``, ``all tied`` when every policy equals every baseline on every training
    instance, else ''."""
    train = runs[(runs["split"] == "train") & runs.get("chosen", pd.Series(False, index=runs.index)).astype(bool)]
    flags = {}
    for (fam, eps), block in train.groupby(["practice_family", "eps"], sort=False):
        pol, base = block[block["role"] == "policies"], block[block["role"] == "baselines"]
        used = pol.groupby("label")["budget_used"].mean().fillna(0.0)
        unused = bool(len(used)) and bool((used < min_budget_used).all())
        tied = True
        for _, p_rows in pol.groupby("label"):
            for _, b_rows in base.groupby("label"):
                a, b = p_rows.set_index("instance_index")["objective"], b_rows.set_index("instance_index")["objective"]
                common = a.index.intersection(b.index)
                tied &= bool(len(common)) and bool((np.abs(a[common] / b[common] - 1.0) <= TIE).all())
        flags[(fam, float(eps))] = "budget unused" if unused else ("all tied" if tied else "")
    return flags


def _test_pairs(runs: pd.DataFrame):
    """Each (family, ε, policy, baseline) of the test runs: the family, ε, its block of runs, (the
    policy's label, rows, rows by instance), (the baseline's label, rows), the instances both ran,
    those both ran valid (:func:`_usable`) and the policy/baseline ratio on each of those."""
    test = runs[runs["split"] == "test"]
    for (fam, eps), block in test.groupby(["practice_family", "eps"], sort=True):
        pol = block[block["role"] == "policies"]
        base = block[block["role"] == "baselines"]
        for p_label, p_rows in pol.groupby("label", sort=True):
            for b_label, b_rows in base.groupby("label", sort=True):
                a = p_rows.set_index("instance_index")
                b = b_rows.set_index("instance_index")
                both = sorted(set(a.index) & set(b.index))
                ok = [i for i in both if _usable(a, b, i)]
                ratio = np.array([a.at[i, "objective"] / b.at[i, "objective"] for i in ok], dtype=float)
                yield fam, eps, block, (p_label, p_rows, a), (b_label, b_rows), both, ok, ratio


def instance_ratios(runs: pd.DataFrame) -> pd.DataFrame:
    """The ratio ALG_rejection / ALG_speed of each pair on each test instance both ran valid
    (columns practice_family, eps, policy, baseline, instance_index, ratio): what
    :func:`paired_table` summarises, and what :func:`practice_figure` draws point by point where
    fewer than :data:`~schedbench.hall.stats.MIN_SUMMARY_N` instances stand."""
    rows = [
        {"practice_family": fam, "eps": float(eps), "policy": p[0], "baseline": b[0], "instance_index": i, "ratio": r}
        for fam, eps, _, p, b, _, ok, ratio in _test_pairs(runs)
        for i, r in zip(ok, ratio)
    ]
    return pd.DataFrame(rows, columns=["practice_family", "eps", "policy", "baseline", "instance_index", "ratio"])


def paired_table(
    runs: pd.DataFrame,
    n_boot: int = DEFAULTS["n_boot"],
    min_budget_used: float = DEFAULTS["min_budget_used"],
    seed: int = 0,
) -> pd.DataFrame:
    """One row per (family, ε, policy, baseline) over the test instances both ran valid: the
    geometric-mean ratio ALG_rejection / ALG_speed with its 95 % bootstrap interval, the win rate
    with its Wilson interval, the policy's budget use; the flags (decided on the training runs),
    the selected pair (by training score) and the headline mark (module doc)."""
    out = []
    for fam, eps, block, (p_label, p_rows, a), (b_label, b_rows), both, ok, ratio in _test_pairs(runs):
        ties = np.abs(ratio - 1.0) <= TIE
        wins = float(np.sum((ratio < 1.0) & ~ties) + 0.5 * np.sum(ties))
        boot_seed = derived_seed(seed, "pairs", fam, eps, p_label, b_label)
        g, lo, hi = _geo_ci(np.log(ratio), n_boot, boot_seed) if len(ok) else (math.nan,) * 3
        w_lo, w_hi = wilson_interval(wins, len(ok))
        used = a.loc[ok, "budget_used"].astype(float) if ok else pd.Series(dtype=float)
        out.append(
            {
                "practice_family": fam,
                "family": str(block["family"].iloc[0]),
                "problem": str(block["problem"].iloc[0]),
                "eps": float(eps),
                "policy": p_label,
                "baseline": b_label,
                "policy_algorithm": str(p_rows["algorithm"].iloc[0]),
                "baseline_algorithm": str(b_rows["algorithm"].iloc[0]),
                "policy_params": str(p_rows["tuned"].iloc[0]),
                "baseline_params": str(b_rows["tuned"].iloc[0]),
                "instances": len(ok),
                "invalid": len(both) - len(ok),
                "geo_ratio": g,
                "geo_ratio_lo": lo,
                "geo_ratio_hi": hi,
                "win_rate": wins / len(ok) if ok else math.nan,
                "win_rate_lo": w_lo,
                "win_rate_hi": w_hi,
                "ties": int(ties.sum()),
                "budget_used": float(used.mean()) if len(used) else math.nan,
                "budget_used_min": float(used.min()) if len(used) else math.nan,
                "prefix_budget_used_max": float(a.loc[ok, "prefix_budget_used"].max()) if ok else math.nan,
                "rejected_frac": float(a.loc[ok, "rejected_frac"].mean()) if ok else math.nan,
                "policy_spend": _spend(p_rows),
                "policy_floor_met": bool(p_rows["floor_met"].iloc[0]) if "floor_met" in p_rows else True,
                "policy_train_score": float(p_rows["train_score"].iloc[0]),
                "baseline_train_score": float(b_rows["train_score"].iloc[0]),
                "policy_order": int(p_rows["entry_order"].iloc[0]),
                "baseline_order": int(b_rows["entry_order"].iloc[0]),
            }
        )
    table = pd.DataFrame(out)
    if table.empty:
        return table
    flag_of = _training_flags(runs, min_budget_used)
    flags = [flag_of.get((f, float(e)), "") for f, e in zip(table["practice_family"], table["eps"])]
    # a pair with a test run the validator refused, or with no usable instance, says so
    flags = [
        fl or ("no valid pair" if n == 0 else ("invalid runs" if bad else ("" if met else "floor not reached")))
        for fl, n, bad, met in zip(flags, table["instances"], table["invalid"], table["policy_floor_met"])
    ]
    table["flag"] = flags
    # the headline pair of a (family, ε): the policy and the baseline with the best training
    # score (ties: the first in the config) — chosen on the training instances, never on the
    # test rows reported here
    table["selected"] = False
    for _, block in table.groupby(["practice_family", "eps"], sort=False):
        pol = block.sort_values(["policy_train_score", "policy_order"]).iloc[0]["policy"]
        base = block.sort_values(["baseline_train_score", "baseline_order"]).iloc[0]["baseline"]
        table.loc[block.index[(block["policy"] == pol) & (block["baseline"] == base)], "selected"] = True
    table["headline"] = table["selected"] & (table["flag"] == "") & (table["instances"] >= MIN_SUMMARY_N)
    return table


def _spend(rows: pd.DataFrame) -> float:
    """An entry's spending floor (NaN: none, or a table written before floors existed)."""
    if "spend" not in rows.columns or rows["spend"].isna().all():
        return math.nan
    return float(rows["spend"].iloc[0])


def _params_tex(params: str) -> str:
    """The chosen constants, compactly: ``{"estimate": "lb", "theta": 1.5}`` → ``lb, θ=1.5`` (the
    estimate or dispatch choice by its value, the rest as name=value, the online oracle left out:
    every practice run has one; none: --)."""
    try:
        d = json.loads(params) if params else {}
    except ValueError:
        return tex_text(params)
    names = {"theta": "θ"}
    bare = ("estimate", "dispatch")  # choices whose value says what they are
    shown = [str(v) if k in bare else f"{names.get(k, k)}={v}" for k, v in d.items() if k != "oracle"]
    return tex_text(", ".join(shown)) or "--"


#: the paired table's caption (a longtable carries its own; the paper inputs it as it is)
TABLE_CAPTION = (
    "Rejection against speed on held-out instances: per family and $\\varepsilon$, the rejection policy and "
    "the speed-$(1+\\varepsilon)$ baseline with the best training score (constants tuned on the training "
    "instances and shown after the policy), the test instances $n$, the geometric-mean ratio "
    "ALG$_{\\mathrm{rej}}$/ALG$_{\\mathrm{speed}}$ [95\\,\\% bootstrap CI], the policy's win rate [95\\,\\% "
    "Wilson CI; a tie counts one half], the budget it used (mean rejected fraction over $\\varepsilon$) and "
    "the largest prefix fraction over $\\varepsilon$; a flag says why a row is left out of the count of "
    "Section~\\ref{sec:practice}; the per-instance pairs are in the results that accompany the paper."
)


def practice_table_tex(pairs: pd.DataFrame, titles: dict[str, str] | None = None) -> str:
    """The paired table of the paper (a ``longtable``, caption and label inside): a heading row per
    family (named by ``titles``, :func:`family_titles`, where given, and its problem), then the
    selected pair of each ε — the policy and the baseline with the best training score — with the
    test instances, the geometric-mean ratio [95 % CI], the win rate [95 % CI], the budget the
    policy used (mean rejected/ε, largest prefix/ε) and the flag."""
    titles = titles or {}
    head = (
        "$\\varepsilon$ & policy & tuned & baseline & $n$ & ratio [95\\,\\% CI] & wins [95\\,\\% CI] & "
        "budget & prefix & flag \\\\"
    )
    lines = []
    rows = pairs[pairs["selected"].astype(bool)] if not pairs.empty else pairs
    if rows.empty:
        lines.append("\\multicolumn{10}{l}{no practice comparison in this config} \\\\")
    for fam, block in rows.groupby("practice_family", sort=True):
        heading = f"{titles.get(fam, fam)}: {_title(block['problem'].iloc[0])}"
        lines += ([] if not lines else ["\\midrule"]) + [
            f"\\multicolumn{{10}}{{l}}{{\\textit{{{tex_text(heading)}}}}} \\\\"
        ]
        for _, r in block.sort_values("eps", ascending=False).iterrows():
            lines.append(
                " & ".join(
                    [
                        eps_text(r["eps"]),
                        tex_text(r["policy_algorithm"]),
                        _params_tex(r["policy_params"]),
                        tex_text(r["baseline"]),
                        str(int(r["instances"])),
                        f"{fmt_cell(r['geo_ratio'], '.2f')} [{fmt_cell(r['geo_ratio_lo'], '.2f')}, {fmt_cell(r['geo_ratio_hi'], '.2f')}]",
                        f"{fmt_cell(r['win_rate'], '.2f')} [{fmt_cell(r['win_rate_lo'], '.2f')}, {fmt_cell(r['win_rate_hi'], '.2f')}]",
                        fmt_cell(r["budget_used"], ".2f"),
                        fmt_cell(r["prefix_budget_used_max"], ".2f"),
                        tex_text(r["flag"])
                        if r["flag"]
                        else ("" if r["instances"] >= MIN_SUMMARY_N else f"n < {MIN_SUMMARY_N}"),
                    ]
                )
                + " \\\\"
            )
    return longtable(
        "@{}llllrllrrl@{}",
        TABLE_CAPTION,
        "tab:practice",
        head,
        lines,
        size="scriptsize",
        tabcolsep="2.5pt",
        generated_by="scheduling.stage.practice_report.practice_table_tex",
    )


def practice_tally(pairs: pd.DataFrame | None) -> dict[str, str]:
    """The headline comparisons counted, as text keyed by the paper's macro: how many there are,
    in how many the policy's interval lies below 1 (wins) or above 1 (loses), and the range of
    the wins' geometric-mean ratios (the abstract quotes it for the wins: ``--`` without a win,
    everything ``--`` without a headline comparison)."""
    keys = ("PracticeComparisons", "PracticeWins", "PracticeLosses", "PracticeWinRatioLow", "PracticeWinRatioHigh")
    head = pairs[pairs["headline"].astype(bool)] if pairs is not None and not pairs.empty else None
    if head is None or head.empty:
        return dict.fromkeys(keys, "--")
    wins = head[head["geo_ratio_hi"] < 1]
    return {
        "PracticeComparisons": str(len(head)),
        "PracticeWins": str(len(wins)),
        "PracticeLosses": str(int((head["geo_ratio_lo"] > 1).sum())),
        "PracticeWinRatioLow": f"{wins['geo_ratio'].min():.2f}" if len(wins) else "--",
        "PracticeWinRatioHigh": f"{wins['geo_ratio'].max():.2f}" if len(wins) else "--",
    }


def practice_finding(pairs: pd.DataFrame | None, titles: dict[str, str] | None = None) -> str:
    """The comparison's finding in plain text, generated from the headline rows of the paired
    table (per family and ε, the policy and the baseline with the best training score): in how
    many the rejection policy's interval lies below 1 (it wins), above 1 (speed wins) or covers
    1, the range of the ratios and the budget the policies used; a family named by ``titles``
    (:func:`family_titles`) where given."""
    titles = titles or {}
    if pairs is None or pairs.empty:
        return "This config has no practice comparison."
    head = pairs[pairs["headline"].astype(bool)]
    flagged = pairs[pairs["selected"].astype(bool) & ~pairs["headline"].astype(bool)]
    if head.empty:
        return f"No paired comparison qualifies for the headline ({len(flagged)} flagged or under ten instances)."
    below = int((head["geo_ratio_hi"] < 1).sum())
    above = int((head["geo_ratio_lo"] > 1).sum())
    best = head.loc[head["geo_ratio"].idxmin()]
    worst = head.loc[head["geo_ratio"].idxmax()]
    text = (
        f"On held-out instances, with constants tuned on separate training instances and no oracle, the "
        f"rejection policy at ε beats the speed-(1+ε) baseline with 95 % confidence in {below} of the "
        f"{len(head)} (family, ε) comparisons, loses in {above} and is within the interval of a tie in "
        f"{len(head) - below - above} (each the pair with the best training score); the geometric-mean "
        f"ratio runs from {best['geo_ratio']:.2f} ({titles.get(best['practice_family'], best['practice_family'])}, "
        f"ε = {eps_text(best['eps'])}) to {worst['geo_ratio']:.2f} ({titles.get(worst['practice_family'], worst['practice_family'])}, "
        f"ε = {eps_text(worst['eps'])}), and the policies used "
        f"{head['budget_used'].min():.2f} to {head['budget_used'].max():.2f} of their budget on average"
    )
    if len(flagged):
        what = "comparison is" if len(flagged) == 1 else "comparisons are"
        text += f" ({len(flagged)} {what} left out: flagged, or fewer than ten instances)"
    return text + "." + spending_finding(pairs)


def spending_twins(pairs: pd.DataFrame) -> pd.DataFrame:
    """For every headline (family, ε), the rows of the policies with a spending floor against the
    headline's baseline (empty when no entry has a floor)."""
    if pairs is None or pairs.empty or "policy_spend" not in pairs.columns:
        return pairs.iloc[0:0] if pairs is not None else pd.DataFrame()
    head = pairs[pairs["headline"].astype(bool)][["practice_family", "eps", "baseline"]]
    floors = pairs[pairs["policy_spend"].notna()]
    return floors.merge(head, on=["practice_family", "eps", "baseline"])


def spending_finding(pairs: pd.DataFrame) -> str:
    """One sentence on the policies held to a spending floor (``spend``, applied on the training
    instances): the budget they used on the test instances, in how many headline comparisons they
    still beat the same baseline with 95 % confidence, and their ratios beside the headline's
    ('' without such a policy)."""
    twins = spending_twins(pairs)
    if twins.empty:
        return ""
    missed = int((~twins["policy_floor_met"].astype(bool)).sum())
    head = pairs[pairs["headline"].astype(bool)]
    floors = sorted(set(twins["policy_spend"]))
    floor = " / ".join(f"{f:g}" for f in floors)
    below = int((twins["geo_ratio_hi"] < 1).sum())
    above = int((twins["geo_ratio_lo"] > 1).sum())
    at_least = int((twins["budget_used"] >= twins["policy_spend"]).sum())
    return (
        f" Held to using at least {floor} of its budget on every training instance (a floor applied when tuning), "
        f"the same policy used {twins['budget_used'].min():.2f} to {twins['budget_used'].max():.2f} of it on the "
        f"test instances (at least the floor in {at_least} of {len(twins)}) and beat the same baseline with 95 % "
        f"confidence in {below} of {len(twins)} headline comparisons and lost in {above}, with ratios from "
        f"{twins['geo_ratio'].min():.2f} to {twins['geo_ratio'].max():.2f} (headline: "
        f"{head['geo_ratio'].min():.2f} to {head['geo_ratio'].max():.2f})"
        + (f"; in {missed} no setting of its grid reached the floor on the training instances." if missed else ".")
    )


def _title(problem: str) -> str:
    """A problem's name in words (``problems.py`` owns it); an unknown name as it is."""
    from schedbench.scheduling.problems import get_problem

    try:
        return get_problem(problem).title
    except (KeyError, ValueError):
        return problem


#: the longest line of a legend entry of the practice figure (a longer family title is wrapped)
LEGEND_CHARS = 26


def family_titles(section: dict | None) -> dict[str, str]:
    """Each practice family in words, from its config (figure legends): a real log by its trace's
    name; a random family by its problem (a flow problem's), machines and sizes (and a hot
    machine subset)."""
    out = {}
    for name, fam in ((section or {}).get("families") or {}).items():
        params = fam.get("params") or {}
        if "trace" in params:
            out[name] = f"{str(params['trace']).upper()} log"
            continue
        problem = family_problem(fam)
        words = [] if problem == "load" else [_title(problem)]  # the panel says load
        if "m" in params:
            words.append(f"m = {params['m']}")
        if params.get("sizes"):
            words.append(f"{str(params['sizes']).replace('pareto', 'Pareto')} sizes")
        if params.get("hot_fraction"):
            words.append("hot machines")
        out[name] = ", ".join(words)
    return out


def _panels(head: pd.DataFrame) -> list[tuple[str, pd.DataFrame]]:
    """The figure's panels: LoadBalancing and the flow problems, each on random instances and on
    the real logs (an empty one left out)."""
    trace = head["family"] == "swf-trace"
    load = head["problem"] == "load"
    panels = [
        ("LoadBalancing, random instances", head[load & ~trace]),
        ("LoadBalancing, real logs", head[load & trace]),
        ("flow problems, random instances", head[~load & ~trace]),
        ("max flow, real logs", head[~load & trace]),
    ]
    return [(title, rows) for title, rows in panels if not rows.empty]


def practice_figure(pairs: pd.DataFrame, titles: dict[str, str] | None = None, ratios: pd.DataFrame | None = None):
    """The headline comparisons: per family (a line, named by ``titles``), the geometric-mean ratio
    of the policy to the speed baseline with the best training scores at each ε, with its 95 %
    interval as a band, against ε; where fewer than :data:`MIN_SUMMARY_N` instances stand at an
    ε, each instance's ratio (``ratios``, :func:`instance_ratios`: required then) as a small dot
    instead of the mean and the band (the panel's title says so). A panel per problem class and workload
    (:func:`_panels`, at most six lines each: a larger one is split), the dashed line a tie,
    hollow markers (or hollow dots, under ten instances) a flagged (family, ε), log axes where the
    ratios span more than a factor 3."""
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FixedLocator, FuncFormatter, LogLocator, NullFormatter, NullLocator

    from schedbench.hall.figure_style import TEXT_WIDTH, apply_style, few_note, palette, split_lines

    apply_style()
    titles = titles or {}
    head = pairs[pairs["selected"].astype(bool)] if not pairs.empty else pairs
    if ratios is None and not head.empty and (head["instances"] < MIN_SUMMARY_N).any():
        raise ValueError(
            f"ratios: a selected pair has fewer than {MIN_SUMMARY_N} instances; give instance_ratios(runs)"
        )
    panels = []
    for title, rows in _panels(head) if not head.empty else []:
        fams = list(dict.fromkeys(rows["practice_family"]))
        panels += [(t, rows[rows["practice_family"].isin(chunk)]) for t, chunk in split_lines(title, fams)]
    cols = 2
    nrows = max(1, -(-len(panels) // cols))
    fig, axes = plt.subplots(nrows, cols, figsize=(TEXT_WIDTH, 3.4 * nrows), squeeze=False)
    fig.subplots_adjust(hspace=0.95, wspace=0.35)  # room for each panel's legend below it
    for ax in axes.flat[len(panels) :]:
        ax.set_visible(False)
    if not panels:
        axes[0][0].set_visible(True)
        axes[0][0].axis("off")
        axes[0][0].text(0.5, 0.5, "no practice comparison in this config", ha="center", va="center")
        return fig
    for ax, (title, rows) in zip(axes.flat, panels):
        fams = list(dict.fromkeys(rows["practice_family"]))
        colour = dict(zip(fams, palette(len(fams))))
        fewest = None  # the fewest instances at a point drawn instance by instance
        for fam in fams:
            line = rows[rows["practice_family"] == fam].sort_values("eps")
            wide = line["instances"].to_numpy() >= MIN_SUMMARY_N
            x, y = line["eps"].to_numpy(), np.where(wide, line["geo_ratio"], np.nan)
            # a long family title on two lines: a panel's legend stays under its own panel
            label = "\n".join(textwrap.wrap(titles.get(fam, fam), LEGEND_CHARS))
            ax.plot(x, y, marker="o", color=colour[fam], label=label, lw=1.2, ms=3.5)
            ax.fill_between(
                x,
                line["geo_ratio_lo"].where(wide),
                line["geo_ratio_hi"].where(wide),
                color=colour[fam],
                alpha=0.2,
                lw=0,
            )
            for _, point in line[~wide].iterrows():  # too few for a mean: each instance
                dots = ratios[
                    (ratios["practice_family"] == fam)
                    & (ratios["eps"] == point["eps"])
                    & (ratios["policy"] == point["policy"])
                    & (ratios["baseline"] == point["baseline"])
                ]
                hollow = {"marker": "o", "mfc": "white", "ms": 3} if point["flag"] else {"marker": ".", "ms": 3}
                ax.plot(np.full(len(dots), point["eps"]), dots["ratio"], ls="none", color=colour[fam], **hollow)
                fewest = int(point["instances"]) if fewest is None else min(fewest, int(point["instances"]))
            flagged = (line["flag"].to_numpy() != "") & wide
            if flagged.any():
                ax.plot(x[flagged], y[flagged], ls="none", marker="o", mfc="white", color=colour[fam], ms=5)
        ax.axhline(1.0, color="0.4", ls="--", lw=0.8)
        lo_all, hi_all = ax.get_ylim()
        if hi_all / max(lo_all, 1e-12) > 3:  # a wide range: log axis (0.5 and 2 equally far from a tie)
            ax.set_yscale("log")
            ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 3.0, 5.0)))
            ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
            ax.yaxis.set_minor_formatter(NullFormatter())
        ax.set_xscale("log", base=2)
        eps = sorted(rows["eps"].unique())
        ax.xaxis.set_major_locator(FixedLocator(eps))
        ax.xaxis.set_minor_locator(NullLocator())
        ax.set_xticklabels([eps_text(e) for e in eps])
        ax.set_title(title + (few_note(fewest) if fewest is not None else ""))
        ax.set_xlabel("ε")
        ax.set_ylabel("ALG rejecting / ALG at speed")
        short = max(len(titles.get(f, f)) for f in fams) <= 18  # two legend columns fit under the panel
        ax.legend(
            loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=2 if short and len(fams) > 3 else 1, frameon=False
        )
    return fig
