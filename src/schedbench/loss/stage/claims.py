"""The loss model's claims (the seed's convergence rates) for the paper's claims table, judged on
the slope table (:mod:`schedbench.loss.stage.slopes`): one row per claimed rate and quantity,
over every experiment and series that tests it. docs/claims.md states the rule."""

from __future__ import annotations

from typing import Iterable

import pandas as pd

from schedbench.hall.claims import Claim, evidence_ref, macro_tex, plural, verdict_sentence

__all__ = ["findings_lines", "judged_claims", "loss_claims", "omega_claim"]

_QUANTITY = {"blocking": "blocking probability", "excess_response": "excess response time"}


def loss_claims(slopes: pd.DataFrame, present: Iterable[str]) -> list[Claim]:
    """A claim per (claimed rate, quantity) of ``slopes``: a rate is an upper bound on how slowly
    the quantity converges, which a finite range cannot confirm — consistent when every series
    with a fit is (its fitted slope at most the claimed rate plus the tolerance), contradicted
    when one is not, not shown when no series has a fit; series without a claimed rate are not
    claims."""
    evidence = evidence_ref(["tab:loss_slopes"], present)
    tested = slopes[slopes["claimed_slope"].notna()]
    out = []
    for (claim, quantity, claimed), g in tested.groupby(["claim", "quantity", "claimed_slope"], sort=True):
        what = _QUANTITY.get(quantity, quantity)
        statement = f"{what} of the loss system converges as {claim}"
        bad = int((g["consistent"] == False).sum())  # noqa: E712 (a column of True/False/None)
        fitted = g[g["consistent"].notna()]
        cid = f"loss {quantity} {claim} {claimed:g}"
        if fitted.empty:
            why = f"none of its {plural(len(g), 'series', 'series')} has a fit"
            out.append(Claim(cid, "loss", statement, "--", evidence, "not shown", why))
            continue
        measured = (
            f"{plural(len(fitted), 'series', 'series')} in {plural(fitted['experiment'].nunique(), 'experiment')}: "
            f"fitted slopes {fitted['slope'].min():.3g} to {fitted['slope'].max():.3g}, claimed at most {claimed:.3g}"
            + (f"; {len(g) - len(fitted)} without a fit" if len(fitted) < len(g) else "")
        )
        if bad:
            out.append(Claim(cid, "loss", statement, measured + f"; {bad} inconsistent", evidence, "contradicted"))
        else:
            out.append(Claim(cid, "loss", statement, measured, evidence, "consistent"))
    omega = omega_claim(slopes, evidence)
    return out + ([omega] if omega is not None else [])


def omega_claim(slopes: pd.DataFrame, evidence: str) -> Claim | None:
    """``k(n) = ω(n^α)`` suffices: blocking → 0 and E[T] → 1/d (the full-access limits) whenever
    the sample size outgrows n^α. An asymptotic statement, so measured as a direction: every
    series with k = ω(n^α) (``k_growth`` omega, the full-access ones aside: they have their own
    rows) decreases in n with the 95 % CI of its slope below 0 — consistent; one whose slope is
    significantly above 0 — contradicted; otherwise not shown. The constant-k series are quoted
    as the control (the claim's converse: a bounded sample does not converge). None when the
    config has no such series."""
    if "k_growth" not in slopes:
        return None
    tested = slopes[(slopes["k_growth"] == "omega") & (slopes["k_rule"] != "full") & (slopes["points"] >= 3)]
    if tested.empty:
        return None
    statement = "k(n) = ω(n^α) suffices: blocking → 0 and E[T] → 1/d, as with full access"
    falling = int((tested["slope_hi"] < 0).sum())
    rising = tested[tested["slope_lo"] > 0]
    measured = (
        f"{plural(len(tested), 'series', 'series')} with k = ω(n^α) ({', '.join(sorted(tested['k_label'].unique()))}): "
        f"{falling} fall with the slope's 95 % CI below 0 (slopes {tested['slope'].min():.3g} to {tested['slope'].max():.3g}, "
        f"n to {int(tested['max_n'].max()):,})"
    )
    control = slopes[(slopes["k_growth"] == "const") & (slopes["points"] >= 3)]
    if len(control):
        measured += f"; control, constant k: slopes {control['slope'].min():.3g} to {control['slope'].max():.3g}"
    cid = "loss omega(n^alpha) suffices"
    if len(rising):
        return Claim(cid, "loss", statement, measured + f"; {len(rising)} rise", evidence, "contradicted")
    if falling == len(tested):
        return Claim(cid, "loss", statement, measured, evidence, "confirmed qualitatively")
    return Claim(cid, "loss", statement, measured, evidence, "not shown", "a series' slope interval covers 0")


def judged_claims(tables: dict[str, pd.DataFrame], present: Iterable[str]) -> list[Claim]:
    """:func:`loss_claims` on the slope table, when the claims rule has it (a config with loss
    experiments): the wing's :attr:`~schedbench.hall.wing.Wing.claims`."""
    return loss_claims(tables["loss_slopes"], present) if "loss_slopes" in tables else []


def findings_lines(tables: dict[str, pd.DataFrame], frame: pd.DataFrame, params: dict) -> list[str]:
    """The loss section's finding: the verdicts of its claims in a sentence."""
    return [macro_tex("FindingLoss", verdict_sentence(frame, "loss ", "the loss system's rates"))]
