"""The paper's hand-written prose quotes no number (each is a generated macro), the generated
pieces are well-formed, and the PDF rule without LaTeX names what to install."""

import re
from pathlib import Path

import pytest

from schedbench.hall import latex
from schedbench.hall.paper import GROUPS, config_macros_tex, group_tex, reproducibility_tex, stage_times

ROOT = Path(__file__).resolve().parents[2]
PROSE = [ROOT / "paper/main.tex", *sorted((ROOT / "paper/sections").glob("*.tex"))]

# digits that are names or definitions, not measurements or settings
ALLOWED = [
    r"seed 00[0-9]",
    r"Theorem \d+\.\d+",
    r"\\S\s*\d+(\.\d+)*",
    r"95\\,\\%",
    r"speed~1",
    r"\d+pt",
    r"margin=\d+(\.\d+)?cm",
    r"\[\d+pt\]",
    r"\[T1\]",
    r"#1",
    r"\[1\]",
    r"iPSC/860",
    r"A1|A2|A3|A4|A5|B1|B2|B3|B4|B5|T2",
]


def prose_digits(text: str) -> list[str]:
    text = re.sub(r"(?<!\\)%.*", "", text)  # comments
    text = re.sub(r"\$[^$]*\$", " ", text)  # math: definitions (1+ε, log_2 m + 1), not data
    for pattern in ALLOWED:
        text = re.sub(pattern, " ", text)
    return re.findall(r"[^\s]*\d[^\s]*", text)


@pytest.mark.parametrize("path", PROSE, ids=lambda p: p.name)
def test_prose_types_no_number(path):
    assert prose_digits(path.read_text()) == []


def test_every_group_has_its_prose():
    for group in GROUPS:
        assert (ROOT / f"paper/sections/{group}.tex").exists(), group
    assert "\\group{" in (ROOT / "paper/main.tex").read_text()
    for group in GROUPS:
        assert f"\\group{{{group}}}" in (ROOT / "paper/main.tex").read_text(), group


def test_group_file_lists_its_figures_and_tables():
    tex = group_tex("loss", [("loss_A1_full_access", "A1")], ["loss_slopes"])
    assert "\\input{sections/loss}" in tex
    assert "figures/loss_A1_full_access.pdf" in tex and "\\label{fig:loss_A1_full_access}" in tex
    assert "\\input{tables/loss_slopes.tex}" in tex and "\\label{tab:loss_slopes}" in tex
    assert "\\LossBatches" in tex  # the caption's number is a macro too
    empty = group_tex("loss", [], [])
    assert "\\input" not in empty


def test_config_macros():
    cfg = {
        "seed": 7,
        "eps": [0.5, 0.25],
        "figures": {"n_boot": 200},
        "opt": {"work_limit": 60, "time_limit": 600},
        "experiments": {},
        "loss": {
            "batches": 20,
            "warmup": 5,
            "fit_min_n": 1000,
            "min_arrivals": 200000,
            "arrivals_per_server": 10,
            "experiments": {},
        },
    }
    tex = config_macros_tex(cfg, "config/x.yaml", "abc123")
    assert "\\newcommand{\\LossBatches}{20}" in tex and "\\newcommand{\\LossFitMinN}{\\ensuremath{10^{3}}}" in tex
    assert "\\newcommand{\\LossSlopeTol}{0.05}" in tex and "\\newcommand{\\NBoot}{200}" in tex
    assert "\\newcommand{\\MinSummaryN}{10}" in tex  # the figures' rule (hall.stats)
    assert "\\newcommand{\\EpsGrid}{\\ensuremath{\\{1/4, 1/2\\}}}" in tex
    assert "BipBatches" not in tex  # no bipartite section in this config


def test_stage_times_and_reproducibility(tmp_path):
    root = tmp_path / "benchmarks"
    (root / "run_online").mkdir(parents=True)
    head = "s\th:m:s\tmax_rss\tmax_vms\tmax_uss\tmax_pss\tio_in\tio_out\tmean_load\tcpu_time\n"
    (root / "run_online/a-greedy-0.tsv").write_text(head + "2.5\t0:00:02\t100.0\t1\t1\t1\t0\t0\t0\t1\n")
    (root / "run_online/a-greedy-1.tsv").write_text(head + "1.5\t0:00:01\t120.0\t1\t1\t1\t0\t0\t0\t1\n")
    (root / "collect_runs.tsv").write_text(head + "0.5\t0:00:00\tNA\t-\t-\t-\t-\t-\t-\t-\n")
    stages = stage_times(sorted(root.rglob("*.tsv")), root)
    row = stages.set_index("stage").loc["run_online"]
    assert row["jobs"] == 2 and row["wall_s"] == pytest.approx(4.0) and row["max_rss_mb"] == 120
    tex = reproducibility_tex(
        {"git_commit": "abc", "packages": '{"numpy": "2.0"}'},
        stages,
        {"system": "Debian", "cores": "2"},
        "config/x.yaml",
        "h1",
    )
    assert "run\\_online & 2 & 4.0 & 2.5 & 120" in tex and "numpy & 2.0" in tex and "\\label{tab:stages}" in tex


def test_pdf_without_latex_names_the_packages(monkeypatch, tmp_path):
    monkeypatch.setattr(latex.shutil, "which", lambda tool: None)
    with pytest.raises(latex.LatexMissing, match="apt-get install latexmk texlive-latex-recommended"):
        latex.build_pdf(
            tmp_path / "main.tex",
            tmp_path / "main.pdf",
            tmp_path / "build",
            "latexmk texlive-latex-recommended texlive-fonts-recommended texlive-latex-extra",
        )


def test_log_problems():
    log = "LaTeX Warning: Reference `fig:x' on page 2 undefined on input line 6.\n! Undefined control sequence.\n"
    assert latex.log_problems(log) == [
        "undefined reference: fig:x",
        "undefined control sequence: Undefined control sequence",
    ]
    assert latex.log_problems("Output written on main.pdf (3 pages)") == []


@pytest.mark.needs_latex
@pytest.mark.parametrize("config_file", ["config/config.yaml", "config/smoke.yaml", "config/large.yaml"])
def test_every_config_macro_typesets_in_text_and_in_math(config_file, tmp_path):
    # the default config's \LossFitMinN once expanded to "$10^{3}$" inside "$n\ge ...$": the
    # paper of `make run` failed while the smoke config's (100, no math) built
    import shutil

    from schedbench.hall.config import load_config

    if not shutil.which("pdflatex"):
        pytest.skip("pdflatex not installed (make test installs it as root)")
    cfg = load_config([ROOT / config_file])
    tex = config_macros_tex(cfg, config_file, "abc123")
    values = dict(re.findall(r"\\newcommand\{\\(\w+)\}\{(.*)\}$", tex, flags=re.M))
    assert values
    # a phrase holding its own inline math (the sweep's series, "ε = 1/4 ...") is text only: the
    # prose never puts it inside $...$; every other macro must typeset in both
    body = "\n".join(
        f"{n}: \\{n}{{}}" + ("" if "$" in v else f" and $x = \\{n}{{}}$") + ".\\par" for n, v in values.items()
    )
    _typeset(tmp_path, "\\documentclass{article}\n" + tex, body)


def test_tex_text_raises_plain_text_powers():
    from schedbench.hall.latex import tex_text

    assert tex_text("(1/ε)^1.47") == "(1/$\\varepsilon$)\\textsuperscript{1.47}"
    assert tex_text("O(n^-(1-α)/2)") == "O(n\\textsuperscript{-(1-$\\alpha$)/2})"
    assert tex_text("k = n^(α+0.1)") == "k = n\\textsuperscript{$\\alpha$+0.1}"
    assert tex_text("a ^ b") == "a \\textasciicircum{} b"  # a lone caret stays a caret


def test_every_character_of_the_method_table_and_claims_typesets():
    """pdflatex (without a Unicode font setup) stops at a character it has no glyph for: every
    non-ASCII character of the registry's strings and of the claims' statements must be one that
    ``tex_text`` maps (θ in a summary once broke the PDF)."""
    from schedbench.hall.latex import _TEX
    from schedbench.scheduling.stage.claims import SCHEDULING_CLAIMS
    from schedbench.scheduling.stage.methods import method_rows

    texts = [str(v) for row in method_rows() for v in row.values()]
    texts += [part for claim in SCHEDULING_CLAIMS for part in claim]
    texts += ["rejection 4 → 4, speed 1.5 → 5"]  # the rejection-vs-speed row's measured text
    unmapped = {ch for text in texts for ch in text if ord(ch) > 127 and ch not in _TEX}
    assert not unmapped, f"characters tex_text does not map: {sorted(unmapped)}"


def test_tex_text_escapes_braces_and_percent_once():
    from schedbench.hall.latex import tex_text

    assert tex_text("mu in {2,1}") == "mu in \\{2,1\\}"
    assert tex_text("1%") == "1\\%"


def test_the_bipartite_checks_table_keeps_every_cell_whole(tmp_path):
    """A tolerance "1%" once came out as "1\\\\%": a line break, then a comment that ate the rest
    of the row; a label's braces vanished. Typeset, every cell reads as written."""
    import shutil
    import subprocess

    import pandas as pd

    from schedbench.bipartite.stage.tables import bipartite_checks_tex

    if not shutil.which("pdflatex"):
        pytest.skip("pdflatex not installed (make test installs it as root)")

    checks = pd.DataFrame(
        {
            "check": ["JIQ, N=1000, mu in {2,1}, rho=0.6", "JSQ(2), N=1000, lambda=0.9"],
            "quantity": ["E[T]", "E[T]"],
            "kind": ["limit", "limit"],
            "reference": [0.696341, 2.61406],
            "simulated": [0.697111, 2.59814],
            "ci_lo": [0.695959, 2.57212],
            "ci_hi": [0.698262, 2.62417],
            "z": [1.40, -1.28],
            "passed": [True, True],
            "tolerance": ["1%", "1%"],
        }
    )
    body = bipartite_checks_tex(checks)
    assert "\\\\%" not in body and "yes (1\\%) \\\\" in body
    assert "$\\mu$ in \\{2,1\\}, $\\rho$=0.6" in body and "$\\lambda$=0.9" in body
    _typeset(
        tmp_path, "\\documentclass{article}\\usepackage{booktabs,amssymb}\\usepackage[paperwidth=50cm]{geometry}", body
    )
    text = subprocess.run(["pdftotext", "t.pdf", "-"], cwd=tmp_path, capture_output=True, text=True).stdout
    assert text.count("yes (1%)") == 2 and "{2,1}" in text


def _typeset(tmp_path: Path, preamble: str, body: str) -> str:
    """pdflatex on ``preamble``, then ``body`` as the document, in ``tmp_path/t.tex``: it must
    build. Returns what pdflatex printed (``\\typeout`` lines included)."""
    import subprocess

    (tmp_path / "t.tex").write_text(preamble + "\n\\begin{document}\n" + body + "\n\\end{document}\n")
    proc = subprocess.run(
        ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "t.tex"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout[-2000:]
    return proc.stdout


def _natural_width(tmp_path: Path, table: str) -> tuple[float, float]:
    """(the table's width, the text's width) in pt, typeset as the paper floats a table: the
    paper's own class, geometry and packages (read from paper/main.tex) and the size and column
    spacing of :func:`schedbench.hall.paper` 's table float (read from the float it writes)."""
    from schedbench.hall.paper import _table_env

    main = (ROOT / "paper/main.tex").read_text().splitlines()
    preamble = "\n".join(line for line in main if line.startswith(("\\documentclass", "\\usepackage")))
    setting = next(line for line in _table_env("t").splitlines() if "\\centering" in line).replace("\\centering", "")
    (tmp_path / "t1.tex").write_text(table)
    body = f"\\newsavebox\\tb\\sbox\\tb{{{setting}\\input{{t1}}}}\n\\typeout{{WIDTHS=\\the\\wd\\tb,\\the\\textwidth}}"
    printed = _typeset(tmp_path, preamble, body)
    wd, text = re.search(r"WIDTHS=([0-9.]+)pt,([0-9.]+)pt", printed).groups()
    return float(wd), float(text)


def test_the_floated_tables_fit_the_text_at_their_size(tmp_path):
    """The loss slopes and bipartite tables, with the widest cells of the default config (the
    experiment printed once as a heading, the largest n in it), fit the text width at the float's
    8 pt: adjustbox never shrinks them (it once shrank the loss slopes to about 6.5 pt)."""
    import shutil

    import pandas as pd

    from schedbench.bipartite.stage.tables import bipartite_checks_tex, bipartite_rates_tex
    from schedbench.loss.stage.tables import loss_slopes_tex

    if not shutil.which("pdflatex"):
        pytest.skip("pdflatex not installed (make test installs it as root)")
    nan = float("nan")
    base = {"experiment": "A4_small_samples", "d": 2, "alpha": 0.25, "beta": 1.0, "max_n": 316228}
    slopes = pd.DataFrame(
        [
            base | {"k_label": "log c=0.5", "quantity": "excess_response", "points": 0, "slope": nan,
                    "slope_lo": nan, "slope_hi": nan, "exact_slope": -45.0975, "claimed_slope": -0.375,
                    "claim": "O(n^-3/8)", "value_at_max_n": 9.89e-07, "consistent": True, "judged_on": "exact"},
            base | {"k_label": "power gamma_offset=-0.1", "quantity": "excess_response", "points": 5,
                    "slope": -0.0211, "slope_lo": -0.2017, "slope_hi": -0.1828, "exact_slope": nan,
                    "claimed_slope": nan, "claim": "no convergence claimed", "value_at_max_n": 0.000434,
                    "consistent": None, "judged_on": None},
        ]
    )  # fmt: skip
    rates = pd.DataFrame(
        {
            "experiment": ["B3_heavy_traffic_critical"] * 2,
            "rho_label": ["rho = 1 - beta N^-0.3", "rho = 0.95"],
            "degree_label": ["log c=5", "power gamma=0.5"],
            "policy": ["jsq-d", "random"],
            "points": [5, 5],
            "slope": [-0.6215, -0.0011],
            "slope_lo": [-0.8017, -0.0128],
            "slope_hi": [-0.4414, 0.0107],
            "excess_at_max_n": [0.00424, 0.488],
            "n_max": [2000, 2000],
        }
    )
    checks = pd.DataFrame(
        {
            "check": ["token, SLACC 10 servers, 6 tokens, rho=1", "JFSQ, mu=(2,1), index ties, CTMC"],
            "quantity": ["blocking", "E[T]"],
            "kind": ["exact", "exact"],
            "reference": [0.0377685, 48.4913],
            "simulated": [0.0380310, 48.5193],
            "ci_lo": [0.0369273, 48.3326],
            "ci_hi": [0.0391347, 48.7059],
            "z": [0.50, 0.31],
            "tolerance": ["3 SE", "3 SE"],
            "passed": [True, True],
            "arrivals": [2000000, 2000000],
        }
    )
    for name, table in (
        ("loss slopes", loss_slopes_tex(slopes)),
        ("bipartite rates", bipartite_rates_tex(rates)),
        ("bipartite checks", bipartite_checks_tex(checks)),
    ):
        width, text = _natural_width(tmp_path, table)
        assert width <= text, f"{name}: {width:.0f} pt wide, the text {text:.0f} pt"
    assert "\\textit{A4\\_small\\_samples: values at n = 316228}" in loss_slopes_tex(slopes)


def test_a_fitted_rate_table_with_no_series_is_its_head_alone():
    """A config whose points fit no series (e.g. the cluster test's two N) hands the tables an empty
    frame without columns: the table is its head (the grouped rows once raised KeyError there)."""
    import pandas as pd

    from schedbench.bipartite.stage.tables import bipartite_rates_tex
    from schedbench.loss.stage.tables import loss_slopes_tex

    for table in (loss_slopes_tex(pd.DataFrame()), bipartite_rates_tex(pd.DataFrame())):
        assert "\\toprule" in table and table.split("\\midrule")[1].strip() == "\\bottomrule\n\\end{tabular}".strip()
