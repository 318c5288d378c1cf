"""The paper's method table, generated from the registry (seed-000 wing only: the loss and
bipartite tables do not depend on it): one row per algorithm with its problem, model, rule in one
line, proven bound and source paper — a ``longtable`` in the footnote size, over as many pages as
it needs, citing the papers of ``paper/references.tex`` and never a file."""

from __future__ import annotations

import re
from typing import Iterable

from schedbench.hall.latex import longtable
from schedbench.hall.latex import tex_text as _tex
from schedbench.scheduling.problems import get_problem, problem_names
from schedbench.scheduling.registry import algorithm_names, get_algorithm, is_builtin

__all__ = ["method_table_tex", "method_rows", "MODEL_NAMES"]

#: how the table names a model (short: the column is narrow)
MODEL_NAMES = {"rejection": "reject", "speed": "speed", "plain": "plain"}
#: the columns' widths (algorithm, problem, model, rule, bound, source): with the column gaps they
#: fill the text width of paper/main.tex (16.6 cm) at the footnote size
COLUMN_WIDTHS = ("2.9cm", "2.3cm", "1.1cm", "4.3cm", "2.8cm", "1.8cm")
_RULE_TEX = {"Q": "Q", "R": "R", "R✓": "R\\checkmark{}"}


def method_rows() -> list[dict]:
    """One row per registered algorithm, ordered by problem then name: the table's cells as text."""
    order = sorted(algorithm_names(), key=lambda n: (problem_names().index(get_algorithm(n).problem), n))
    rows = []
    for name in order:
        cls = get_algorithm(name)
        doc = (cls.__doc__ or "").strip().splitlines()
        rows.append(
            {
                "algorithm": name,
                "problems": "; ".join(get_problem(p).title for p in cls.solved_problems()),
                "model": MODEL_NAMES.get(cls.model, cls.model)
                + (" (migr.)" if getattr(cls, "migratory", False) else ""),
                "label": cls.rule_label,
                "rule": cls.summary or (doc[0] if doc else ""),
                "bound": cls.bound or "not stated",
                "cites": cls.cites,
                "section": cls.section,
                "builtin": is_builtin("algorithm", name),
            }
        )
    return rows


def _camel_breaks(tex: str) -> str:
    """Line-break points inside CamelCase names (GenWtd|Max|Flow|Time), no hyphen drawn."""
    return re.sub(r"(?<=[a-z])(?=[A-Z])", r"\\allowbreak{}", tex)


def _source(row: dict, bib_keys: set[str]) -> str:
    """The source column: the paper it cites (and section); a built-in without one is the suite's
    own reconstruction ("ours"); a plug-in without one is a user's ("user plug-in"), never ours."""
    if not row["cites"]:
        return "ours" if row.get("builtin", True) else "user plug-in"
    cite = f"\\cite{{{row['cites']}}}" if row["cites"] in bib_keys else _tex(row["cites"])
    return cite + (f" {_tex(row['section'])}" if row["section"] else "")


def method_table_tex(bib_keys: Iterable[str] = ()) -> str:
    """The method table as a ``longtable`` (the caption and label included: a longtable is not a
    float). ``bib_keys``: the keys of the paper's bibliography; a plug-in citing another key gets
    it as text (an undefined citation would fail the PDF build)."""
    keys = set(bib_keys)
    caption = (
        "The algorithms: the problem each solves, its model "
        "(\\emph{reject}: may reject an $\\varepsilon$ fraction at every prefix; \\emph{speed}: machines "
        "at speed $1+\\varepsilon$, also run at speed~1; \\emph{plain}: neither), its rule in one line "
        "with its label (Q quoted from the source, R reconstructed, R\\checkmark{} reconstructed and "
        "checked), its proven bound on ALG/OPT, and the source."
    )
    rows = [
        f"\\texttt{{{_tex(r['algorithm'])}}} & {_camel_breaks(_tex(r['problems']))} & {_tex(r['model'])} & "
        f"{_RULE_TEX.get(r['label'], _tex(r['label']))}: {_tex(r['rule'])} & {_tex(r['bound'])} & "
        f"{_source(r, keys)} \\\\"
        for r in method_rows()
    ]
    colspec = "@{}" + "".join(f">{{\\raggedright\\arraybackslash}}p{{{w}}}" for w in COLUMN_WIDTHS) + "@{}"
    head = "algorithm & problem & model & rule & proven bound & source \\\\"
    return longtable(colspec, caption, "tab:methods", head, rows)
