"""The bipartite wing's LaTeX tables: exact checks and fitted rates."""

from __future__ import annotations

import pandas as pd

from schedbench.hall.latex import grouped_rows, slope_cell, tabular, tex_text, values_at_largest
from schedbench.hall.tex_values import tex_number


#: the parameter names of a check's label, as the reader knows them
_GREEK = {"rho": "ρ", "lambda": "λ", "mu": "μ"}


def _check_label_tex(label: str) -> str:
    """A check's label ("JIQ, N=1000, mu in {2,1}, rho=0.6") in words and symbols: the
    parameter names as Greek letters, braces and the rest escaped."""
    import re

    return tex_text(re.sub(r"\b(rho|lambda|mu)\b", lambda m: _GREEK[m.group(1)], str(label)))


def bipartite_checks_tex(checks: pd.DataFrame) -> str:
    """Table T2: each exact value or limit, the simulated estimate [95 % CI], z and the verdict."""
    lines = []
    for _, r in checks.iterrows():
        tolerance = tex_text(r["tolerance"])
        lines.append(
            " & ".join(
                [
                    _check_label_tex(r["check"]),
                    tex_text(r["quantity"]),
                    r["kind"],
                    f"{r['reference']:.6g}",
                    f"{r['simulated']:.5g} [{r['ci_lo']:.5g}, {r['ci_hi']:.5g}]",
                    f"{r['z']:.2f}",
                    ("yes" if r["passed"] else "\\textbf{no}") + f" ({tolerance})",
                ]
            )
            + " \\\\"
        )
    head = "check & quantity & kind & reference & simulated [95\\% CI] & $z$ & pass (tol.)"
    return tabular("llllrll", head, lines, "tables.bipartite_checks_tex")


def _rho_tex(label: str) -> str:
    """A bipartite load label ("rho = 0.6", "rho = 1 - beta N^-0.3") as LaTeX math."""
    import re

    m = re.fullmatch(r"rho = 1 - beta N\^(-?[0-9.]+)", str(label))
    if m:
        return f"$\\rho = 1-\\beta N^{{{m.group(1)}}}$"
    m = re.fullmatch(r"rho = ([0-9.eE+-]+)", str(label))
    if m:
        return f"$\\rho = {m.group(1)}$"
    return tex_text(label)


def bipartite_rates_tex(rates: pd.DataFrame) -> str:
    """Fitted rates of E[T] − T*_N in N (its source states no rate: these are measurements)."""
    lines = []
    head = "load & $D_N$ & policy & slope of $E[T]-T^*_N$ [95\\% CI] & value"
    groups, at = values_at_largest(rates, "excess_at_max_n", "n_max", "N")
    for k, (_, r) in enumerate(rates.iterrows()):
        slope = slope_cell(r["slope_lo"], r["slope"], r["slope_hi"], r["points"])
        lines.append(
            " & ".join(
                [
                    _rho_tex(r["rho_label"]),
                    tex_text(r["degree_label"]),
                    r["policy"],
                    slope,
                    at[k],
                ]
            )
            + " \\\\"
        )
    return tabular("lllrr", head, grouped_rows(groups, lines, 5), "tables.bipartite_rates_tex")


# -------------------------------------------------------------------------------- the paper's text


def paper_macros(config: dict) -> dict[str, str]:
    """The bipartite section's numbers the text quotes, as macros (none without the section)."""
    bip = config.get("bipartite") or {}
    if not bip:
        return {}
    return {
        "BipBatches": tex_number(bip["batches"]),
        "BipCheckArrivals": tex_number(bip["check_arrivals"]),
        "BipMinArrivals": tex_number(bip["min_arrivals"]),
        "BipArrivalsPerServer": tex_number(bip["arrivals_per_server"]),
        "BipNumExperiments": str(len(bip.get("experiments", {}))),
    }


#: the caption of each bipartite figure by its letter (the experiment's ``figure``)
FIGURE_CAPTIONS = {
    "B1": "B1: $E[T]$ against $N$ per policy (dashed: $T^*_N$, dotted: JIQ fluid).",
    "B2": "B2: $E[T]-T^*_N$ against $N$ (log--log).",
    "B3": "B3: $E[T]$ against the degree $D_N$ at fixed $N$ (sparsity threshold).",
    "B4": "B4: $E[T]-T^*_N$ in the sub-Halfin--Whitt regime $\\rho_N=1-\\beta N^{-\\alpha}$.",
    "B5": "B5: $E[T]$ against the load $\\rho$.",
}

TABLE_CAPTIONS = {
    "bipartite_checks": "T2: the simulator against exact values and limits, each within the tolerance of its "
    "last column.",
    "bipartite_rates": "Fitted rates of $E[T]-T^*_N$ in $N$ (its source~\\cite{bipartite} states none: measurements).",
}


def figure_caption(stem: str, kind: str | None) -> str | None:
    """The caption of a bipartite figure (``bipartite_<...>`` of letter ``kind``), None for another's."""
    if not (stem.startswith("bipartite_") and kind in FIGURE_CAPTIONS):
        return None
    from schedbench.hall.figure_style import MAX_LINES_PER_PANEL

    return (
        FIGURE_CAPTIONS[kind] + " 95\\,\\% batch-means CIs (\\BipBatches{} batches). Where the policies and references "
        f"would exceed {MAX_LINES_PER_PANEL} lines a panel, the speed-aware (JFSQ, JFIQ, random-$\\mu$) and speed-oblivious "
        "policies are drawn in separate panels."
    )
