"""The end-to-end fixtures: the smoke pipeline, run once per session in a copy of the workflow
(every e2e module reuses it), and the Debian packages the PDF and the browser test need —
installed by the test set-up when missing (as root, with apt-get), otherwise the tests that need
them are skipped with the reason printed."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LATEX_DEBS = ["latexmk", "texlive-latex-recommended", "texlive-fonts-recommended", "texlive-latex-extra"]
BROWSER_DEBS = ["chromium"]


def ensure_debs(purpose: str, packages: list[str], tools: list[str]) -> str | None:
    """None when ``tools`` are on PATH (after installing ``packages`` if they were not and this
    machine can); otherwise why not."""
    if all(shutil.which(t) for t in tools):
        return None
    proc = subprocess.run([str(ROOT / "tools/ensure-debian-packages"), purpose, *packages], capture_output=True,
                          text=True, timeout=1800)
    print(proc.stdout.strip(), file=sys.stderr)
    missing = [t for t in tools if not shutil.which(t)]
    if not missing:
        return None
    return f"{purpose}: {' and '.join(missing)} not installed and not installable here ({proc.stdout.strip()})"


_LATEX_REASON = ensure_debs("the paper's PDF", LATEX_DEBS, ["latexmk", "pdflatex"])


def latex_missing() -> str | None:
    """Why the PDF cannot be built here (None: it can)."""
    return _LATEX_REASON


def snakemake(workdir: Path, *args: str) -> subprocess.CompletedProcess:
    """Snakemake in ``workdir``; without LaTeX the PDF rule is left out (and its tests skip)."""
    omit = ["--omit-from", "paper_pdf"] if _LATEX_REASON else []
    cmd = [sys.executable, "-m", "snakemake", "--cores", "2", *omit, *args]
    return subprocess.run(cmd, cwd=workdir, capture_output=True, text=True, timeout=900)


def copy_workflow(dest: Path) -> Path:
    dest.mkdir(parents=True, exist_ok=True)
    shutil.copy(ROOT / "Snakefile", dest)
    for d in ("workflow", "config", "profiles"):
        shutil.copytree(ROOT / d, dest / d)
    (dest / "paper").mkdir()
    shutil.copy(ROOT / "paper/main.tex", dest / "paper")
    shutil.copytree(ROOT / "paper/sections", dest / "paper/sections")
    return dest


@pytest.fixture(scope="session")
def pipeline(tmp_path_factory):
    """The smoke pipeline, run once for the whole e2e session."""
    work = copy_workflow(tmp_path_factory.mktemp("wf"))
    proc = snakemake(work, "--configfile", "config/smoke.yaml")
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-5000:]
    return work
