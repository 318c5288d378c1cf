"""The bipartite wing's LaTeX tables: exact checks and fitted rates."""

from __future__ import annotations

import pandas as pd

from schedbench.hall.latex import slope_cell, tabular, tex_text


def bipartite_checks_tex(checks: pd.DataFrame) -> str:
    """Table T2: each exact value or limit, the simulated estimate [95 % CI], z and the verdict."""
    lines = []
    for _, r in checks.iterrows():
        tolerance = tex_text(r["tolerance"]).replace("%", "\\%")
        lines.append(
            " & ".join(
                [
                    tex_text(r["check"]),
                    tex_text(r["quantity"]),
                    r["kind"],
                    f"{r['reference']:.6g}",
                    f"{r['simulated']:.6g} [{r['ci_lo']:.6g}, {r['ci_hi']:.6g}]",
                    f"{r['z']:.2f}",
                    ("yes" if r["passed"] else "\\textbf{no}") + f" ({tolerance})",
                ]
            )
            + " \\\\"
        )
    head = "check & quantity & kind & reference & simulated [95\\% CI] & $z$ & pass (tolerance)"
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
    for _, r in rates.iterrows():
        slope = slope_cell(r["slope_lo"], r["slope"], r["slope_hi"])
        if r["points"] < 3:
            slope = f"-- ({int(r['points'])} points $>0$)"
        lines.append(
            " & ".join(
                [
                    tex_text(r["experiment"]),
                    _rho_tex(r["rho_label"]),
                    tex_text(r["degree_label"]),
                    r["policy"],
                    slope,
                    f"{r['excess_at_max_n']:.3g} ($N$={int(r['n_max'])})",
                ]
            )
            + " \\\\"
        )
    head = "experiment & load & $D_N$ & policy & slope of $E[T]-T^*_N$ [95\\% CI] & value at max $N$"
    return tabular("llllrr", head, lines, "tables.bipartite_rates_tex")
