"""The loss model's claims (the seed's convergence rates) for the paper's claims table, judged on
the slope table (:mod:`schedbench.loss.stage.slopes`): one row per claimed rate and quantity,
over every experiment and series that tests it. docs/claims.md states the rule."""

from __future__ import annotations

from typing import Iterable

import pandas as pd

from schedbench.hall.claims import Claim, evidence_ref, plural

__all__ = ["loss_claims"]

_QUANTITY = {"blocking": "blocking probability", "excess_response": "excess response time"}


def loss_claims(slopes: pd.DataFrame, present: Iterable[str]) -> list[Claim]:
    """A claim per (claimed rate, quantity) of ``slopes``: confirmed when every series that tests
    it is consistent (its fitted slope within the tolerance of the claimed rate), contradicted
    when one is not; series without a claimed rate are not claims."""
    evidence = evidence_ref(["tab:loss_slopes"], present)
    tested = slopes[slopes["claimed_slope"].notna()]
    out = []
    for (claim, quantity, claimed), g in tested.groupby(["claim", "quantity", "claimed_slope"], sort=True):
        what = _QUANTITY.get(quantity, quantity)
        statement = f"{what} of the loss system converges as {claim}"
        bad = int((g["consistent"] == False).sum())  # noqa: E712 (a column of True/False/None)
        measured = (
            f"{plural(len(g), 'series', 'series')} in {plural(g['experiment'].nunique(), 'experiment')}: "
            f"fitted slopes {g['slope'].min():.3g} to {g['slope'].max():.3g}, claimed at most {claimed:.3g}"
        )
        cid = f"loss {quantity} {claim} {claimed:g}"
        if bad:
            out.append(Claim(cid, "loss", statement, measured + f"; {bad} inconsistent", evidence, "contradicted"))
        else:
            out.append(Claim(cid, "loss", statement, measured, evidence, "confirmed"))
    return out
