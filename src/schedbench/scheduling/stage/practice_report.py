"""The practice comparison's results (:mod:`schedbench.scheduling.stage.practice` runs it): the
paired table with its intervals, flags and headline mark, its LaTeX table, the finding sentence and
the figure. The protocol is in the module docstring of ``practice``."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd

from schedbench.hall.latex import fmt_cell, longtable, tex_text
from schedbench.hall.seeds import derived_seed
from schedbench.scheduling.stage.practice import TIE

__all__ = [
    "paired_table",
    "wilson_interval",
    "practice_table_tex",
    "practice_finding",
    "practice_figure",
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


def paired_table(runs: pd.DataFrame, n_boot: int = 2000, min_budget_used: float = 0.1, seed: int = 0) -> pd.DataFrame:
    """One row per (family, ε, policy, baseline) over the test instances both ran valid: the
    geometric-mean ratio ALG_rejection / ALG_speed with its 95 % bootstrap interval, the win rate
    with its Wilson interval, the policy's budget use; the flags (decided on the training runs),
    the selected pair (by training score) and the headline mark (module doc)."""
    test = runs[runs["split"] == "test"]
    out = []
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
        fl or ("no valid pair" if n == 0 else ("invalid runs" if bad else ""))
        for fl, n, bad in zip(flags, table["instances"], table["invalid"])
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
    table["headline"] = table["selected"] & (table["flag"] == "") & (table["instances"] >= 10)
    return table


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


def practice_table_tex(pairs: pd.DataFrame) -> str:
    """The paired table of the paper (a ``longtable``, caption and label included): the selected
    pair of every (family, ε) — the policy and the baseline with the best training score — with
    the test instances, the geometric-mean ratio [95 % CI], the win rate [95 % CI], the budget the
    policy used (mean rejected/ε, largest prefix/ε) and the flag."""
    head = "family & problem & $\\varepsilon$ & policy & tuned & baseline & $n$ & ratio [95\\,\\% CI] & wins [95\\,\\% CI] & budget & prefix & flag \\\\"
    lines = []
    rows = pairs[pairs["selected"].astype(bool)] if not pairs.empty else pairs
    if rows.empty:
        lines.append("\\multicolumn{12}{l}{no \\texttt{practice} section in this config} \\\\")
    for _, r in rows.iterrows():
        lines.append(
            " & ".join(
                [
                    tex_text(r["practice_family"]),
                    tex_text(r["problem"]),
                    _eps_label(r["eps"]),
                    tex_text(r["policy_algorithm"]),
                    _params_tex(r["policy_params"]),
                    tex_text(r["baseline"]),
                    str(int(r["instances"])),
                    f"{fmt_cell(r['geo_ratio'], '.3f')} [{fmt_cell(r['geo_ratio_lo'], '.3f')}, {fmt_cell(r['geo_ratio_hi'], '.3f')}]",
                    f"{fmt_cell(r['win_rate'], '.2f')} [{fmt_cell(r['win_rate_lo'], '.2f')}, {fmt_cell(r['win_rate_hi'], '.2f')}]",
                    fmt_cell(r["budget_used"], ".2f"),
                    fmt_cell(r["prefix_budget_used_max"], ".2f"),
                    tex_text(r["flag"]) if r["flag"] else ("" if r["instances"] >= 10 else "n < 10"),
                ]
            )
            + " \\\\"
        )
    return longtable(
        "@{}llllllrllrrl@{}",
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
    the geometric-mean ratios (``--`` without a headline comparison)."""
    head = pairs[pairs["headline"].astype(bool)] if pairs is not None and not pairs.empty else None
    if head is None or head.empty:
        return {
            k: "--"
            for k in ("PracticeComparisons", "PracticeWins", "PracticeLosses", "PracticeRatioLow", "PracticeRatioHigh")
        }
    return {
        "PracticeComparisons": str(len(head)),
        "PracticeWins": str(int((head["geo_ratio_hi"] < 1).sum())),
        "PracticeLosses": str(int((head["geo_ratio_lo"] > 1).sum())),
        "PracticeRatioLow": f"{head['geo_ratio'].min():.2f}",
        "PracticeRatioHigh": f"{head['geo_ratio'].max():.2f}",
    }


def practice_finding(pairs: pd.DataFrame | None) -> str:
    """The comparison's finding in plain text, generated from the headline rows of the paired
    table (per family and ε, the policy and the baseline with the best training score): in how
    many the rejection policy's interval lies below 1 (it wins), above 1 (speed wins) or covers
    1, the range of the ratios and the budget the policies used."""
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
        f"ratio runs from {best['geo_ratio']:.2f} ({best['practice_family']}, ε = {best['eps']:g}) to "
        f"{worst['geo_ratio']:.2f} ({worst['practice_family']}, ε = {worst['eps']:g}), and the policies used "
        f"{head['budget_used'].min():.2f} to {head['budget_used'].max():.2f} of their budget on average"
    )
    if len(flagged):
        what = "comparison is" if len(flagged) == 1 else "comparisons are"
        text += f" ({len(flagged)} {what} left out: flagged, or fewer than ten instances)"
    return text + "."


def practice_figure(pairs: pd.DataFrame):
    """Per family, each policy's geometric-mean ratio to the speed baseline with the best training
    score at that ε (chosen on the training set), with its 95 % interval, against ε (log axis; the
    ratio's axis too where it spans more than a factor 3);
    the dashed line at 1 is a tie; hollow markers: a flagged (family, ε); no band below ten
    instances."""
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FixedLocator, FuncFormatter, LogLocator, NullFormatter, NullLocator

    from schedbench.hall.figure_style import TEXT_WIDTH, apply_style, palette

    apply_style()
    fams = list(dict.fromkeys(pairs["practice_family"])) if not pairs.empty else []
    cols = 3  # the text width: three panels a row, a page for the default config's 18 families
    rows = max(1, -(-len(fams) // cols))
    fig, axes = plt.subplots(rows, cols, figsize=(TEXT_WIDTH, 1.75 * rows + 0.3), squeeze=False)
    for ax in axes.flat[len(fams) :]:
        ax.set_visible(False)
    if not fams:
        axes[0][0].set_visible(True)
        axes[0][0].text(0.5, 0.5, "no practice section", ha="center", va="center")
        return fig
    policies = list(dict.fromkeys(pairs["policy"]))
    colour = dict(zip(policies, palette(len(policies))))
    for ax, fam in zip(axes.flat, fams):
        block = pairs[pairs["practice_family"] == fam]
        chosen = block[block["selected"].astype(bool)].set_index("eps")["baseline"]
        block = block[block["baseline"] == block["eps"].map(chosen)]
        for pol, line in block.groupby("policy", sort=False):
            line = line.sort_values("eps")
            x, y = line["eps"].to_numpy(), line["geo_ratio"].to_numpy()
            ax.plot(x, y, marker="o", color=colour[pol], label=pol, lw=1.1, ms=3)
            wide = line["instances"].to_numpy() >= 10
            lo = np.where(wide, line["geo_ratio_lo"], y)
            hi = np.where(wide, line["geo_ratio_hi"], y)
            ax.fill_between(x, lo, hi, color=colour[pol], alpha=0.2, lw=0)
            flagged = line["flag"].to_numpy() != ""
            if flagged.any():
                ax.plot(x[flagged], y[flagged], ls="none", marker="o", mfc="white", color=colour[pol], ms=4)
        ax.axhline(1.0, color="0.4", ls="--", lw=0.8)
        lo_all, hi_all = ax.get_ylim()
        if hi_all / max(lo_all, 1e-12) > 3:  # a wide range: log axis (0.5 and 2 equally far from a tie)
            ax.set_yscale("log")
            ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 3.0, 5.0)))
            ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
            ax.yaxis.set_minor_formatter(NullFormatter())
        ax.set_xscale("log", base=2)
        eps = sorted(block["eps"].unique())
        ax.xaxis.set_major_locator(FixedLocator(eps))
        ax.xaxis.set_minor_locator(NullLocator())
        ax.set_xticklabels([_eps_label(e) for e in eps])
        bases = ", ".join(dict.fromkeys(block["baseline"]))
        ax.set_title(f"{fam} ({block['problem'].iloc[0]}, n = {int(block['instances'].min())})\nvs {bases}", fontsize=6)
        ax.set_xlabel("ε", fontsize=6)
        ax.set_ylabel("ALG$_{rej}$ / ALG$_{speed}$", fontsize=6)
        ax.tick_params(labelsize=6)
        ax.legend(fontsize=5, loc="best", frameon=False)
    fig.tight_layout()
    return fig


def _eps_label(eps: float) -> str:
    inv = 1.0 / eps
    return f"1/{inv:.0f}" if abs(inv - round(inv)) < 1e-9 else f"{eps:g}"
