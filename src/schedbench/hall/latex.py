"""Building the paper's PDF with latexmk + pdflatex, and reading its log: undefined references
or control sequences are errors, other warnings are reported."""

from __future__ import annotations

import math
import os
import re
import shutil
import subprocess
from pathlib import Path

__all__ = [
    "eps_text",
    "LatexMissing",
    "LatexFailed",
    "missing_latex",
    "build_pdf",
    "log_problems",
    "recorded_inputs",
    "bib_keys",
]


class LatexMissing(RuntimeError):
    """latexmk or pdflatex is not installed."""


class LatexFailed(RuntimeError):
    """latexmk failed, or the log shows an undefined reference or control sequence."""


def missing_latex() -> list[str]:
    return [tool for tool in ("latexmk", "pdflatex") if shutil.which(tool) is None]


_PROBLEMS = [
    (r"Reference `([^']+)' on page \d+ undefined", "undefined reference"),
    (r"Citation `([^']+)' on page \d+ undefined", "undefined citation"),
    (r"There were undefined references", "undefined references"),
    (r"Undefined control sequence", "undefined control sequence"),
    (r"LaTeX Error: (.+)", "LaTeX error"),
    (r"File `([^']+)' not found", "missing file"),
    (r"Label\(s\) may have changed", "labels not settled"),
]


def log_problems(log_text: str) -> list[str]:
    """Every undefined reference, citation, control sequence, missing file or LaTeX error in a
    pdflatex log (the last pass's: latexmk reruns until the labels settle)."""
    problems = []
    for pattern, what in _PROBLEMS:
        for m in re.finditer(pattern, log_text):
            problems.append(f"{what}: {m.group(1) if m.groups() else m.group(0)}")
    return problems


def log_warnings(log_text: str) -> list[str]:
    """The remaining LaTeX and package warnings (overfull boxes are not counted)."""
    return [m.group(0) for m in re.finditer(r"(?:LaTeX|Package \w+) Warning: [^\n]+", log_text)]


def recorded_inputs(fls: str | os.PathLike, root: str | os.PathLike) -> set[str]:
    """The files under ``root`` that pdflatex read (latexmk -recorder), relative to ``root``."""
    root = Path(root).resolve()
    seen = set()
    for line in Path(fls).read_text(errors="replace").splitlines():
        if not line.startswith("INPUT "):
            continue
        p = Path(line[6:].strip())
        p = (root / p).resolve() if not p.is_absolute() else p.resolve()
        try:
            seen.add(str(p.relative_to(root)))
        except ValueError:
            continue
    return seen


def build_pdf(
    tex: str | os.PathLike, out_pdf: str | os.PathLike, build_dir: str | os.PathLike, packages: str
) -> list[str]:
    """Run latexmk on ``tex`` (in its own directory) with its outputs in ``build_dir``, check the
    log, copy the PDF to ``out_pdf``; return the remaining warnings. Raises :class:`LatexMissing`
    naming the Debian ``packages`` when LaTeX is absent, :class:`LatexFailed` on errors."""
    missing = missing_latex()
    if missing:
        raise LatexMissing(
            f"{' and '.join(missing)} not found: the PDF needs LaTeX. Install the Debian packages {packages} "
            f"(as root: apt-get install {packages}; `make run` does it by itself as root), then rerun. "
            "Every other output of the pipeline is complete."
        )
    tex = Path(tex).resolve()
    build = Path(build_dir).resolve()
    build.mkdir(parents=True, exist_ok=True)
    cmd = [
        "latexmk",
        "-pdf",
        "-g",
        "-recorder",
        "-interaction=nonstopmode",
        "-halt-on-error",
        "-file-line-error",
        f"-outdir={build}",
        tex.name,
    ]
    proc = subprocess.run(cmd, cwd=tex.parent, capture_output=True, text=True, errors="replace", timeout=600)
    log_path = build / (tex.stem + ".log")
    log_text = log_path.read_text(errors="replace") if log_path.exists() else ""
    if proc.returncode != 0:
        tail = "\n".join((proc.stdout + proc.stderr).splitlines()[-30:])
        raise LatexFailed(
            f"latexmk failed ({proc.returncode}); {log_path}:\n{tail}\n" + "\n".join(log_problems(log_text))
        )
    problems = log_problems(log_text)
    if problems:
        raise LatexFailed(f"{log_path}: " + "; ".join(problems))
    out_pdf = Path(out_pdf)
    tmp = out_pdf.with_name(f".{out_pdf.stem}.tmp.pdf")
    shutil.copyfile(build / (tex.stem + ".pdf"), tmp)
    os.replace(tmp, out_pdf)
    return log_warnings(log_text)


def eps_text(eps: float) -> str:
    """ε as a reader writes it: ``1/k`` when 1/ε is an integer, else its digits (plain text; 0
    as 0)."""
    if not 0 < eps < math.inf:
        return f"{eps:g}"
    k = round(1 / eps)
    return f"1/{k}" if abs(k * eps - 1) < 1e-9 else f"{eps:g}"


def fmt_cell(x: float | None, spec: str = ".3f") -> str:
    """A number as a table cell: ``--`` for a missing or non-finite value."""
    return "--" if x is None or not math.isfinite(float(x)) else format(float(x), spec)


_TEX = {
    "_": r"\_",
    "α": r"$\alpha$",
    "β": r"$\beta$",
    "ε": r"$\varepsilon$",
    "§": r"\S{}",
    "–": "--",
    "≤": r"$\le$",
    "≥": r"$\ge$",
    "✓": r"\checkmark{}",
    "&": r"\&",
    "%": r"\%",
    "#": r"\#",
    "{": r"\{",
    "}": r"\}",
    "Ω": r"$\Omega$",
    "ω": r"$\omega$",
    "ρ": r"$\rho$",
    "λ": r"$\lambda$",
    "μ": r"$\mu$",
    "κ": r"$\kappa$",
    "θ": r"$\theta$",
    "Σ": r"$\Sigma$",
    "→": r"$\to$",
    "⌈": r"$\lceil$",
    "⌉": r"$\rceil$",
    "⌊": r"$\lfloor$",
    "⌋": r"$\rfloor$",
    "₂": r"$_2$",
    "²": r"$^2$",
    "⁴": r"$^4$",
    "⁶": r"$^6$",
    "·": r"$\cdot$",
    "−": r"$-$",
    "^": r"\textasciicircum{}",
}


#: Every Greek letter (a claim may name any regime parameter: ρ, λ, μ, ...): pdflatex has no
#: glyph for them in text, so each is typeset as math.
_GREEK = (
    "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho "
    "sigma tau upsilon phi chi psi omega"
).split()
for _k, _name in enumerate(_GREEK):
    _lower, _upper = chr(0x3B1 + _k + (_k >= 17)), chr(0x391 + _k + (_k >= 17))  # no final sigma slot
    _TEX.setdefault(_lower, rf"$\{_name}$" if _name != "omicron" else "o")
    if _name.capitalize() in (
        "Gamma",
        "Delta",
        "Theta",
        "Lambda",
        "Xi",
        "Pi",
        "Sigma",
        "Upsilon",
        "Phi",
        "Psi",
        "Omega",
    ):
        _TEX.setdefault(_upper, rf"$\{_name.capitalize()}$")
    else:
        _TEX.setdefault(
            _upper,
            {
                "alpha": "A",
                "beta": "B",
                "epsilon": "E",
                "zeta": "Z",
                "eta": "H",
                "iota": "I",
                "kappa": "K",
                "mu": "M",
                "nu": "N",
                "omicron": "O",
                "rho": "P",
                "tau": "T",
                "chi": "X",
            }[_name],
        )
del _k, _name, _lower, _upper


def tabular(colspec: str, head: str, rows: list[str], generated_by: str | None = None) -> str:
    """A booktabs ``tabular`` (the caller's float holds the caption): ``head`` (cells joined by
    ``&``, without the row end) under a top rule, then ``rows`` (each ending in ``\\\\``).
    The one owner of the layout of every short table; :func:`longtable` of the long ones."""
    lines = [f"% Generated by schedbench ({generated_by}); do not edit."] if generated_by else []
    lines += [f"\\begin{{tabular}}{{{colspec}}}", "\\toprule", head + " \\\\", "\\midrule", *rows]
    lines += ["\\bottomrule", "\\end{tabular}"]
    return "\n".join(lines) + "\n"


def grouped_rows(groups: list[str], rows: list[str], ncols: int) -> list[str]:
    """``rows`` under one heading row per group (``groups[k]`` is row k's, plain text; consecutive
    rows of one group share a heading), groups apart by a rule: a column that would repeat one
    value down many rows (an experiment's name) is printed once, above them, and the table is
    that column narrower."""
    if len(groups) != len(rows):
        raise ValueError(f"grouped_rows: {len(groups)} groups for {len(rows)} rows")
    out: list[str] = []
    last = None
    for group, row in zip(groups, rows):
        if group != last:
            out += ([] if last is None else ["\\midrule"]) + [
                f"\\multicolumn{{{ncols}}}{{l}}{{\\textit{{{tex_text(group)}}}}} \\\\"
            ]
            last = group
        out.append(row)
    return out


def values_at_largest(series, value: str, at: str, var: str) -> tuple[list[str], list[str]]:
    """A fitted-rate table's last column and each row's group heading (:func:`grouped_rows`):
    series k (row k of the frame ``series``, grouped by its ``experiment``) has the value of
    column ``value`` at its largest ``var`` (column ``at``). Where every series of a group ends
    at one ``var``, its heading says it once (``<group>: values at n = 316228``) and the cells
    hold the values alone; else each cell says its own. No series fitted (an empty frame, which
    may lack the columns): none."""
    if series.empty:
        return [], []
    groups, values = list(map(str, series["experiment"])), list(series[value])
    at = [int(a) for a in series[at]]
    ends: dict[str, set[int]] = {}
    for g, a in zip(groups, at):
        ends.setdefault(g, set()).add(a)
    heads, cells = [], []
    for g, v, a in zip(groups, values, at):
        one = len(ends[g]) == 1
        heads.append(f"{g}: values at {var} = {a}" if one else g)
        cells.append(f"{v:.3g}" if one else f"{v:.3g} (${var}$={a})")
    return heads, cells


def longtable(
    colspec: str,
    caption: str,
    label: str,
    head: str,
    rows: list[str],
    size: str = "footnotesize",
    tabcolsep: str = "3pt",
    generated_by: str | None = None,
) -> str:
    """A ``longtable`` as the paper inputs it (caption and label inside: a longtable is not a
    float), in ``size`` with ``tabcolsep``: ``head`` (a row ending in ``\\\\``) on every page, a
    rule at the foot of each page, then ``rows``. The one owner of the layout of every long table
    (claims, methods, the practice pairs, the ε sweep's growth)."""
    lines = [f"% Generated by schedbench ({generated_by}); do not edit."] if generated_by else []
    lines += [
        "{\\" + size,
        f"\\setlength{{\\tabcolsep}}{{{tabcolsep}}}",
        f"\\begin{{longtable}}{{{colspec}}}",
        f"\\caption{{{caption}}}\\label{{{label}}}\\\\",
        "\\toprule",
        head,
        "\\midrule",
        "\\endfirsthead",
        "\\toprule",
        head,
        "\\midrule",
        "\\endhead",
        "\\bottomrule",
        "\\endfoot",
        *rows,
        "\\end{longtable}",
        "}",
        "",
    ]
    return "\n".join(lines)


def bib_keys(references_tex: str) -> list[str]:
    """The citation keys of a ``thebibliography`` (its ``\\bibitem{key}`` lines), in order."""
    return re.findall(r"\\bibitem(?:\[[^\]]*\])?\{([^}]+)\}", references_tex)


#: a power written in plain text: ``x^2``, ``(1/ε)^1.47``, ``n^-1/2``, ``n^-(1-α)/2``, ``m^(α+0.1)``
_POWER = re.compile(r"\^([-−]?\([^()]*\)(?:/[0-9]+)?|[-−]?[0-9.]*[0-9](?:/[0-9]+)?|[A-Za-zα-ω])")


def _tex_chars(s: str) -> str:
    return "".join(_TEX.get(ch, ch) for ch in s)


def tex_text(s: str) -> str:
    """Plain text (with the few symbols the registry's strings use) as LaTeX; a power ``a^b``
    has its exponent raised (``n^-(1-α)/2``: the whole ``-(1-α)/2``, outer brackets of a lone
    bracketed exponent dropped)."""
    s, out, pos = str(s), [], 0
    for m in _POWER.finditer(s):
        exponent = m.group(1)
        if exponent.startswith("(") and exponent.endswith(")"):
            exponent = exponent[1:-1]
        out += [_tex_chars(s[pos : m.start()]), "\\textsuperscript{" + _tex_chars(exponent) + "}"]
        pos = m.end()
    return "".join(out) + _tex_chars(s[pos:])


def slope_cell(lo: float, mid: float, hi: float, points: int) -> str:
    """A fitted slope and its 95 % CI; ``--`` where it is not finite, and with the count where
    fewer than three points (values > 0) were fitted."""
    if points < 3:
        return f"-- ({int(points)} points $>0$)"
    if not math.isfinite(mid):
        return "--"
    return f"{mid:.2f} [{lo:.2f}, {hi:.2f}]"
