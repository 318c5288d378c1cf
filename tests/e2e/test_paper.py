"""The paper builds itself from the smoke pipeline (the session's one run): the PDF, a clean
LaTeX log, exactly the pipeline's figures and tables, every macro defined, the reproducibility
section; and the HTML report, opened in a real headless browser."""

import io
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from schedbench.hall.config import config_hash
from schedbench.hall.latex import log_problems, log_warnings, recorded_inputs
from schedbench.scheduling.registry import algorithm_names

from tests.conftest import ROOT, latex_missing, pdf_text_missing

pytestmark = pytest.mark.e2e

# figures of the paper that no report() rule registers yet: the worst-case search stage
# (workflow/rules/search.smk) writes its figure without a report entry
NOT_IN_REPORT: set[str] = set()


def tex_sources(paper: Path) -> list[Path]:
    return [
        paper / "main.tex",
        *sorted((paper / "sections").glob("*.tex")),
        *sorted((paper / "generated").glob("*.tex")),
    ]


def referenced_files(paper: Path) -> set[str]:
    """figures/… and tables/… files the LaTeX source includes (main, sections, generated)."""
    refs = set()
    for f in tex_sources(paper):
        text = f.read_text()
        refs |= {m for m in re.findall(r"\\includegraphics(?:\[[^\]]*\])?\{([^}]+)\}", text)}
        refs |= {m if m.endswith(".tex") else m + ".tex" for m in re.findall(r"\\input\{(tables/[^}]+)\}", text)}
    return refs


def written_files(paper: Path) -> set[str]:
    return {f"figures/{p.name}" for p in (paper / "figures").glob("*.pdf")} | {
        f"tables/{p.name}" for p in (paper / "tables").glob("*.tex")
    }


@pytest.mark.needs_latex
def test_pdf_builds_with_a_clean_log(pipeline):
    pdf = pipeline / "paper/main.pdf"
    assert pdf.read_bytes().startswith(b"%PDF") and pdf.stat().st_size > 50_000
    log = (pipeline / "results/latex/main.log").read_text(errors="replace")
    assert log_problems(log) == []  # undefined references, control sequences, missing files
    assert not re.search(r"undefined", log, re.I), [x for x in log.splitlines() if "undefined" in x.lower()]
    assert [w for w in log_warnings(log) if "Reference" in w or "Label" in w] == []
    # no table runs past the text width (a longtable is never shrunk: it must fit as set)
    wide = [float(x) for x in re.findall(r"Overfull \\hbox \(([\d.]+)pt too wide\) in alignment", log)]
    assert all(x <= 1.0 for x in wide), wide
    assert re.search(r"Output written on\s.*main\.pdf\s\(\d+\spages", log.replace("\n", ""))


@pytest.mark.needs_latex
def test_the_pdf_opens_with_its_findings_and_points_at_no_file_the_reader_lacks(pipeline):
    reason = pdf_text_missing()
    if reason:
        pytest.skip(reason)
    text = subprocess.run(
        ["pdftotext", "-layout", str(pipeline / "paper/main.pdf"), "-"], capture_output=True, text=True, check=True
    ).stdout
    pages = text.split("\f")
    # an abstract and an introduction with its findings open the paper (its first two pages); the
    # claims table with its generated tally is in the appendix
    front = "\n".join(pages[:2])
    assert "Abstract" in front and "Introduction" in front and "Findings." in front
    assert "claims checked by this run" in text
    # no pointer to a file outside the repository: the specs, the seed documents, the shared folder
    flat = re.sub(r"\s+", " ", text)
    outside = re.findall(r".{30}(?:spec §|specs/|shared/|DESIGN\.md|seed 00\d|rejection-model\.md).{10}", flat)
    assert outside == []
    # the method table cites papers, never the repo's docs
    assert "docs/models" not in flat


@pytest.mark.needs_latex
def test_the_pdf_text_can_be_searched_and_every_reference_has_authors(pipeline):
    """Scalable fonts only (no Type 3 bitmap font, whose glyphs have no Unicode map: pdftotext
    read "ow" for "flow"); the bibliography's entries each name their authors."""
    reason = pdf_text_missing()
    if reason:
        pytest.skip(reason)
    pdf = str(pipeline / "paper/main.pdf")
    fonts = subprocess.run(["pdffonts", pdf], capture_output=True, text=True, check=True).stdout
    assert "Type 3" not in fonts, [line for line in fonts.splitlines() if "Type 3" in line][:5]
    text = re.sub(
        r"\s+", " ", subprocess.run(["pdftotext", pdf, "-"], capture_output=True, text=True, check=True).stdout
    )
    assert "flow" in text and "ll-fifo" in text
    refs = (pipeline / "paper/references.tex").read_text()
    entries = re.split(r"\\bibitem\{[^}]+\}", refs.split("\\begin{thebibliography}")[1])[1:]
    # each entry opens with its authors' initials ("S.~Ghanbarian, ..."), not with the title
    assert entries and all(re.match(r"\s*[A-Z]\.~", e) for e in entries), [e[:60] for e in entries]


@pytest.mark.needs_latex
def test_the_body_speaks_to_readers_not_about_the_software(pipeline):
    """Before the reproducibility section (which names the commands, files and versions on
    purpose), no file name, results path or pipeline vocabulary; before the references, no raw
    parameter string or config identifier either."""
    reason = pdf_text_missing()
    if reason:
        pytest.skip(reason)
    text = subprocess.run(
        ["pdftotext", str(pipeline / "paper/main.pdf"), "-"], capture_output=True, text=True, check=True
    ).stdout
    body = re.sub(r"\s+", " ", text.split("Reproducibility")[0])
    found = re.findall(
        r".{40}(?:\.parquet|results/|config/|\.py\b|registry|pipeline|[Ss]nakemake|seed 00\d).{20}", body
    )
    assert found == [], found[:5]
    # up to the references: no raw parameter string (alpha_rule=paper, c=1/eps2) and no identifier
    # of the config (m_inverse_eps, load_pareto_hot, idisp_tree) in the text, the tables or the figures
    front = body.split("References")[0]
    raw = re.findall(r".{30}(?:\b[a-z]+_[a-z_]+=\S+|=1/eps\d?\b|\b[a-z]+_[a-z0-9]+(?:_[a-z0-9]+)*\b).{10}", front)
    assert raw == [], raw[:5]


def test_paper_reads_exactly_the_figures_and_tables_the_pipeline_writes(pipeline):
    """Every table written is in the PDF; every figure written is in the PDF or, an exhaustive
    per-experiment figure, in the HTML report only (its PNG twin); the PDF reads nothing else."""
    paper = pipeline / "paper"
    written = written_files(paper)
    referenced = referenced_files(paper)
    assert referenced <= written
    report_only = written - referenced
    assert all(f.startswith("figures/") and (paper / f).with_suffix(".png").exists() for f in report_only), report_only
    # the exhaustive panels are the report's; the body keeps one figure per results section
    assert {"figures/ratio_vs_eps_load.pdf", "figures/headline_load.pdf"} <= report_only
    written = referenced
    if latex_missing() is None:  # what pdflatex actually read (latexmk -recorder)
        read = {
            f
            for f in recorded_inputs(pipeline / "results/latex/main.fls", paper)
            if f.startswith(("figures/", "tables/"))
        }
        assert read == written
        assert "tables/methods.tex" in read


def test_every_macro_used_is_defined(pipeline):
    paper = pipeline / "paper"
    defined = set()
    for f in [*paper.glob("macros*.tex"), *tex_sources(paper)]:
        defined |= set(re.findall(r"\\newcommand\{\\([A-Za-z]+)\}", f.read_text()))
    used = set()
    for f in tex_sources(paper):
        text = re.sub(r"(?<!\\)%.*", "", f.read_text())
        used |= set(re.findall(r"\\([A-Z][A-Za-z]+)\b", text))  # our macros are capitalised
    used -= {"IfFileExists", "Lambda", "Omega", "Delta", "Gamma", "Theta", "Sigma", "Pi", "Phi", "Psi"}  # LaTeX's own
    used -= {"FloatBarrier"}  # placeins
    assert used and used <= defined, used - defined
    assert {"NumRuns", "NBoot", "LossBatches", "LossFitMinN", "LossSlopeTol"} <= used


def test_every_ref_has_a_label(pipeline):
    paper = pipeline / "paper"
    # the longtables (claims, methods) carry their own labels, and the claims table refers to floats
    text = "\n".join(f.read_text() for f in [*tex_sources(paper), *sorted((paper / "tables").glob("*.tex"))])
    refs = set(re.findall(r"\\ref\{([^}]+)\}", text)) - {"#1", "fig:#1"}  # \SecRef's and \FigRef's definitions
    labels = set(re.findall(r"\\label\{([^}]+)\}", text))
    assert refs and refs <= labels, refs - labels


def test_numbers_quoted_in_the_text_are_the_configs(pipeline):
    smoke = yaml.safe_load((ROOT / "config/smoke.yaml").read_text())
    macros = (pipeline / "paper/macros_config.tex").read_text()
    assert f"\\newcommand{{\\LossBatches}}{{{smoke['loss']['batches']}}}" in macros
    assert f"\\newcommand{{\\LossFitMinN}}{{{smoke['loss']['fit_min_n']}}}" in macros
    assert f"\\newcommand{{\\NBoot}}{{{smoke['figures']['n_boot']}}}" in macros
    assert "\\newcommand{\\LossSlopeTol}{0.05}" in macros
    assert "\\newcommand{\\ConfigFile}{\\texttt{config/smoke.yaml}}" in macros


def test_reproducibility_section(pipeline):
    tex = (pipeline / "paper/generated/reproducibility.tex").read_text()
    smoke = yaml.safe_load((ROOT / "config/smoke.yaml").read_text())
    assert "config/smoke.yaml" in tex and "\\label{tab:stages}" in tex
    for stage in ("run\\_online", "solve\\_offline", "loss\\_points", "bipartite\\_groups", "collect\\_runs"):
        assert re.search(re.escape(stage) + r" & \d+ & [\d.]+ & ", tex), stage
    for package in ("numpy", "pandas", "snakemake", "highspy"):
        assert f"\n{package} & " in tex
    assert re.search(r"commit \\texttt\{[^}]+\}", tex)
    assert isinstance(config_hash(smoke), str)


def test_method_table_lists_every_registered_algorithm(pipeline):
    table = (pipeline / "paper/tables/methods.tex").read_text()
    for name in algorithm_names():
        assert f"\\texttt{{{name.replace('_', chr(92) + '_')}}}" in table, name


# --------------------------------------------------------------------------- the HTML report
@pytest.fixture(scope="module")
def report(pipeline):
    proc = subprocess.run(
        [sys.executable, "-m", "snakemake", "--configfile", "config/smoke.yaml", "--report", "report.html"],
        cwd=pipeline,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "WARNING/" not in proc.stderr + proc.stdout  # a caption's reStructuredText is clean
    return pipeline / "report.html"


def report_figures(pipeline) -> set[str]:
    """The figures the report must show: the PNG twin of every figure written, those of the
    paper and the exhaustive ones the report alone holds."""
    return {
        f"paper/{f[:-4]}.png"
        for f in written_files(pipeline / "paper")
        if f.startswith("figures/") and Path(f).stem not in NOT_IN_REPORT
    }


def non_blank(png: bytes) -> bool:
    from PIL import Image

    img = Image.open(io.BytesIO(png)).convert("L")
    lo, hi = img.getextrema()
    hist = img.histogram()
    ink = sum(hist[:200]) / max(1, img.width * img.height)
    return hi - lo > 100 and ink > 0.005


@pytest.mark.needs_browser
def test_report_shows_every_figure_and_table_in_a_browser(report, pipeline):
    from tests.e2e.browser import Browser, chromium_executable

    browser = Browser(chromium_executable())
    try:
        browser.navigate(report.resolve().as_uri())
        entries = browser.evaluate(
            "JSON.stringify(Object.fromEntries(Object.entries(results).map(([k, v]) => [k, [v.mime_type, v.caption]])))"
        )
        import json

        entries = json.loads(entries)
        categories = json.loads(browser.evaluate("JSON.stringify(categories)"))
        figures = {k for k, (mime, _) in entries.items() if mime == "image/png"}
        assert figures == report_figures(pipeline)
        tables = {k for k, (mime, _) in entries.items() if mime == "text/html"}
        assert {
            "results/report/runs_summary.html",
            "results/report/methods.html",
            "results/report/loss_points.html",
            "results/report/bipartite_checks.html",
        } <= tables
        for key, (mime, caption) in entries.items():  # what it shows and which config produced it
            assert "Produced by" in caption and "config/smoke.yaml" in caption, key
        # grouped by experiment: every problem of the config, the adversaries, loss, bipartite, tables
        assert {
            "Scheduling load",
            "Scheduling maxflow",
            "Adversaries",
            "Loss system",
            "Bipartite load balancing",
            "Results tables",
        } <= set(categories)
        for key in sorted(figures | tables):
            kind = "img" if key in figures else "html"
            browser.evaluate(
                f"app.setView({{content: '{kind}', contentPath: results['{key}'].data_uri, resultPath: '{key}'}})"
            )
            selector = 'img[src^="data:image/png"]' if kind == "img" else "iframe"
            rect = browser.evaluate(
                "new Promise(done => { const t0 = Date.now(); (function poll() {"
                f" const el = document.querySelector('{selector}');"
                " const ok = el && (el.tagName !== 'IMG' || (el.complete && el.naturalWidth > 0));"
                " if (ok) { setTimeout(() => { const r = el.getBoundingClientRect();"
                # the part on screen: a tall image (a paged figure's pages) is centred, its top above the view
                "   const y = Math.max(r.y, 0), bottom = Math.min(r.bottom, window.innerHeight, y + 900);"
                "   done({x: r.x, y: y, width: r.width, height: bottom - y}); }, 300); }"
                " else if (Date.now() - t0 > 10000) done(null); else setTimeout(poll, 50); })(); })"
            )
            assert rect and rect["width"] > 50 and rect["height"] > 50, key
            assert non_blank(browser.screenshot(clip=rect)), key
        assert browser.errors() == []
    finally:
        browser.close()


#: A4 with 2.5 cm margins (paper/main.tex): the text block the figures are scaled into, in pt
TEXT_WIDTH_PT, TEXT_HEIGHT_PT = 453.54, 700.16


def _words(pdf: Path) -> list[tuple[float, str]]:
    """(box height, text) of every word pdftotext finds in ``pdf``."""
    out = subprocess.run(["pdftotext", "-bbox", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    return [
        (float(y1) - float(y0), w)
        for y0, y1, w in re.findall(r'yMin="([\d.]+)" xMax="[\d.]+" yMax="([\d.]+)">([^<]*)</word>', out)
    ]


@pytest.mark.needs_latex
def test_every_figure_of_the_pdf_prints_its_words_at_seven_points_or_more(pipeline, tmp_path):
    """Each figure the PDF includes, at the size LaTeX prints it (scaled into the width and the
    height its \\includegraphics asks for, aspect kept): every word of two letters or more is at
    least 7 pt (exponents and subscripts of one glyph aside). The box height per point is
    calibrated on a 7-pt text drawn in the figures' own style, not assumed."""
    reason = pdf_text_missing()
    if reason:
        pytest.skip(reason)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from schedbench.hall.figure_style import apply_style

    apply_style()
    fig, ax = plt.subplots(figsize=(3, 2))
    ax.text(0.1, 0.5, "Calibration", fontsize=7)
    fig.savefig(tmp_path / "cal.pdf")
    plt.close(fig)
    per_point = next(h for h, w in _words(tmp_path / "cal.pdf") if w == "Calibration") / 7
    paper = pipeline / "paper"
    included = []
    from schedbench.hall.paper import GROUPS

    for tex in [paper / "generated" / f"{g}.tex" for g in GROUPS]:
        included += re.findall(
            r"\\includegraphics\[(?:page=\d+,)?width=\\textwidth,height=([\d.]+)\\textheight,keepaspectratio\]"
            r"\{(figures/[^}]+)\}",
            tex.read_text(),
        )
    assert included
    small = []
    for frac, name in included:
        info = subprocess.run(["pdfinfo", str(paper / name)], capture_output=True, text=True, check=True).stdout
        w, h = map(float, re.search(r"Page size:\s+([\d.]+) x ([\d.]+) pts", info).groups())
        scale = min(TEXT_WIDTH_PT / w, float(frac) * TEXT_HEIGHT_PT / h)
        for height, word in _words(paper / name):
            if len(re.findall(r"[A-Za-zα-ωΑ-Ω]", word)) >= 2 and height / per_point * scale < 7.0 - 1e-6:
                small.append((name, word, round(height / per_point * scale, 2)))
    assert small == [], small[:10]


def _panels(pdf: Path, page: int | None, tmp: Path) -> int:
    """The plot areas drawn on one page of a figure file: matplotlib clips each panel's artists
    to its axes box (``x y w h re W n`` in the page's content streams), so the distinct clipping
    rectangles are the panels (legends, titles and labels are not clipped)."""
    import zlib

    if page is not None:
        one = tmp / f"{pdf.stem}-{page}.pdf"
        subprocess.run(["pdfseparate", "-f", str(page), "-l", str(page), str(pdf), str(one)], check=True)
        pdf = one
    boxes = set()
    for raw in re.findall(rb"stream\r?\n(.*?)\r?\nendstream", pdf.read_bytes(), re.S):
        try:
            text = zlib.decompress(raw)
        except zlib.error:
            text = raw
        for box in re.findall(rb"([-\d.]+) ([-\d.]+) ([-\d.]+) ([-\d.]+) re W n", text):
            boxes.add(tuple(round(float(v), 1) for v in box))
    return len(boxes)


@pytest.mark.needs_latex
def test_every_figure_of_the_pdf_has_at_most_six_panels(pipeline, tmp_path):
    """Each figure page the PDF includes holds 1 to 6 panels, counted in the drawing (the
    count is calibrated: a figure of 7 panels in the figures' style counts 7)."""
    reason = pdf_text_missing()
    if reason:
        pytest.skip(reason)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from schedbench.hall.figure_style import apply_style, save_figure
    from schedbench.hall.paper import GROUPS

    apply_style()
    fig, axes = plt.subplots(2, 4, figsize=(7, 4))
    axes.flat[-1].set_visible(False)
    for ax in axes.flat[:-1]:
        ax.plot([1, 2, 3], [1, 4, 9], label="a")
        ax.legend()
    save_figure(fig, tmp_path / "seven.pdf")
    assert _panels(tmp_path / "seven.pdf", None, tmp_path) == 7
    paper = pipeline / "paper"
    included = []
    for tex in [paper / "generated" / f"{g}.tex" for g in GROUPS]:
        included += re.findall(r"\\includegraphics\[(?:page=(\d+),)?[^]]*\]\{(figures/[^}]+)\}", tex.read_text())
    assert included
    counts = {(name, page): _panels(paper / name, int(page) if page else None, tmp_path) for page, name in included}
    assert all(1 <= n <= 6 for n in counts.values()), {k: n for k, n in counts.items() if not 1 <= n <= 6}


@pytest.mark.needs_latex
def test_the_text_cites_every_figure_in_the_order_they_are_numbered(pipeline):
    """In the PDF's text, each figure is cited ("Figure n", not its caption "Figure n:") and
    the first citations come in the figures' order: the reader meets Figure 1 before Figure 2."""
    reason = pdf_text_missing()
    if reason:
        pytest.skip(reason)
    pdf = str(pipeline / "paper/main.pdf")
    text = re.sub(
        r"\s+", " ", subprocess.run(["pdftotext", pdf, "-"], capture_output=True, text=True, check=True).stdout
    )
    captions = [int(n) for n in re.findall(r"Figure (\d+):", text)]
    assert captions == list(range(1, len(captions) + 1)) and captions, captions
    first: list[int] = []
    for n in (int(n) for n in re.findall(r"(?:Figure|Fig\.) (\d+)(?!\d|:)", text)):
        if n not in first:
            first.append(n)
    assert first == captions, f"first citations in the order {first}, figures {captions}"
