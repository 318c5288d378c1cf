"""The paper's claims table: one row per claim of the source papers with what this run measured,
where the paper shows it, and a verdict written from the results (docs/claims.md lists the claims
and the rule of each verdict). Each wing writes its rows (its ``stage/claims.py``); this module owns the record, the verdict
vocabulary and the LaTeX table, and imports no wing."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Iterable

import pandas as pd

from schedbench.hall.latex import longtable, tex_text

__all__ = [
    "VERDICTS",
    "Claim",
    "claims_frame",
    "claims_table_tex",
    "evidence_ref",
    "plural",
    "verdict_sentence",
    "macro_tex",
]

#: The verdicts, strongest first (docs/claims.md): the numbers agree with the claim as stated; an
#: upper bound met no violation in the runs measured (a finite run cannot confirm a bound); they
#: agree in direction over the finite range measured (an asymptotic claim); the run cannot say
#: (and ``why``); the numbers contradict it.
VERDICTS = ("confirmed", "consistent", "confirmed qualitatively", "not shown", "contradicted")


@dataclass
class Claim:
    """One row: ``claim_id`` (docs/claims.md), the ``source`` (bibliography key and theorem or
    section), the ``statement``, what was ``measured`` (generated text), the ``evidence`` (a
    figure or table of this paper: a LaTeX label, or '' if none is in it), the ``verdict`` and,
    for "not shown", ``why``."""

    claim_id: str
    source: str
    statement: str
    measured: str
    evidence: str
    verdict: str
    why: str = ""

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise ValueError(f"claim {self.claim_id}: verdict {self.verdict!r} is not one of {VERDICTS}")
        if self.verdict == "not shown" and not self.why:
            raise ValueError(f"claim {self.claim_id}: a claim not shown says why")


def plural(n: int, word: str, words: str | None = None) -> str:
    """``n`` and the word in the right number: 1 run, 2 runs."""
    return f"{n} {word if n == 1 else (words or word + 's')}"


#: the evidence of a claim shown only in the HTML report (its figure is not in the PDF)
IN_REPORT = "report"


def evidence_ref(labels: Iterable[str], present: Iterable[str]) -> str:
    """The first of ``labels`` (``fig:…``/``tab:…``) that the paper holds; else
    :data:`IN_REPORT` when the HTML report holds one of them (``present`` lists it as
    ``report:<label>``); else '' (a reference to an absent float would break the PDF)."""
    have, labels = set(present), list(labels)
    found = next((label for label in labels if label in have), "")
    if not found and any(f"{IN_REPORT}:{label}" in have for label in labels):
        return IN_REPORT
    return found


def claims_frame(claims: Iterable[Claim]) -> pd.DataFrame:
    """The claims as the results table ``results/claims.parquet``."""
    rows = [asdict(c) for c in claims]
    return pd.DataFrame(rows, columns=["claim_id", "source", "statement", "measured", "evidence", "verdict", "why"])


def _cite(source: str, bib_keys: set[str]) -> str:
    key, _, where = source.partition(" ")
    head = f"\\cite{{{key}}}" if key in bib_keys else tex_text(key)
    return head + (f" {tex_text(where)}" if where else "")


def _shown_in(label: str) -> str:
    """Where the paper shows a claim, saying what it is: "Fig. 3", "Table 2" (a ``fig:``/``tab:``
    label), "Sec. 4" otherwise; "--" for none."""
    if not label:
        return "--"
    if label == IN_REPORT:
        return "report"
    kind = {"fig": "Fig.", "tab": "Table", "sec": "Sec."}.get(label.partition(":")[0], "Sec.")
    return f"{kind}~\\ref{{{label}}}"


def claims_table_tex(frame: pd.DataFrame, bib_keys: Iterable[str] = ()) -> str:
    """The claims table (a ``longtable`` in the footnote size, caption and label included):
    source, claim, measured, verdict (with its reason), where the paper shows it."""
    keys = set(bib_keys)
    counts = frame["verdict"].value_counts()
    tally = ", ".join(f"{int(counts.get(v, 0))} {v}" for v in VERDICTS)
    caption = (
        "What was measured, claim by claim: each claim of the source papers, what this run "
        "measured, and a verdict written from the results (\\emph{confirmed}: the numbers agree with the "
        "claim as stated; \\emph{consistent}: an upper bound met no violation of its cap, its budget or its "
        "rate in the runs measured (the row says which caps hold by construction); "
        "\\emph{qualitatively}: they agree in direction over the finite range measured; "
        "\\emph{not shown}: this run cannot say, and why; \\emph{contradicted}); ``report'': the figure "
        "that shows it is in the HTML report, not in this paper."
    )
    rows = []
    for r in frame.itertuples(index=False):
        verdict = "\\textbf{" + tex_text(r.verdict.replace("confirmed qualitatively", "qualitatively")) + "}"
        if r.why:
            verdict += f": {tex_text(r.why)}"
        where = _shown_in(r.evidence)
        rows.append(
            f"{_cite(r.source, keys)} & {tex_text(r.statement)} & {tex_text(r.measured)} & {verdict} & {where} \\\\"
        )
    colspec = (
        "@{}"
        + "".join(f">{{\\raggedright\\arraybackslash}}p{{{w}}}" for w in ("1.7cm", "4.4cm", "5.1cm", "2.6cm", "1.4cm"))
        + "@{}"
    )
    head = "source & claim & measured & verdict & shown in \\\\"
    tally_line = f"Of the {len(frame)} claims checked by this run, {tally} (Table~\\ref{{tab:claims}}).\n\n"
    return tally_line + longtable(colspec, caption, "tab:claims", head, rows)


def verdict_sentence(frame: pd.DataFrame, claim_ids, what: str) -> str:
    """One generated sentence on the claims ``claim_ids`` (ids, or a prefix string) of ``frame``:
    how many of each verdict (plain text)."""
    ids = frame["claim_id"].astype(str)
    sel = frame[ids.str.startswith(claim_ids)] if isinstance(claim_ids, str) else frame[ids.isin(list(claim_ids))]
    if sel.empty:
        return f"This config tests no claim on {what}."
    counts = sel["verdict"].value_counts()
    said = ", ".join(f"{int(counts[v])} {v}" for v in VERDICTS if counts.get(v, 0))
    return f"Of the {plural(len(sel), 'claim')} on {what} this run tests: {said}."


def macro_tex(name: str, text: str) -> str:
    """``\\newcommand{\\<name>}{<plain text as LaTeX>}``."""
    return f"\\newcommand{{\\{name}}}{{{tex_text(text)}}}"
