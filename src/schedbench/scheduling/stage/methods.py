"""The paper's method table, generated from the registry (seed-000 wing only: the loss and
bipartite tables do not depend on it)."""

from __future__ import annotations

from schedbench.hall.latex import tex_text as _tex
from schedbench.scheduling.problems import get_problem, problem_names
from schedbench.scheduling.registry import algorithm_names, get_algorithm

__all__ = ["method_table_tex"]


def method_table_tex() -> str:
    """The paper's method table, generated from the registry (no hand-kept copy): every
    registered algorithm with its problem, model, rule label, parameters (defaults) and source."""
    rule_tex = {"Q": "Q", "R": "R", "R✓": "R\\checkmark"}
    lines = [
        "\\begin{tabular}{lllllp{5.2cm}}",
        "\\toprule",
        "algorithm & problem & model & rule & parameters (defaults) & source \\\\",
        "\\midrule",
    ]
    order = sorted(algorithm_names(), key=lambda n: (problem_names().index(get_algorithm(n).problem), n))
    for name in order:
        cls = get_algorithm(name)
        d = cls.describe()
        params = ", ".join(f"{k}={v}" for k, v in d["parameters"].items()) or "--"
        problems = "; ".join(get_problem(p).title for p in cls.solved_problems())
        model = d["model"] + (" (migratory)" if getattr(cls, "migratory", False) else "")
        lines.append(
            f"\\texttt{{{_tex(name)}}} & {_tex(problems)} & {model} & "
            f"{rule_tex.get(d['rule'], _tex(d['rule']))} & {_tex(params)} & {_tex(d['reference'])} \\\\"
        )
    lines += ["\\bottomrule", "\\end{tabular}", ""]
    return "\n".join(lines)
