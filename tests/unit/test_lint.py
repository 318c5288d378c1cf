"""`make lint` passes: the same checks (tools/lint, one test each) — ruff check, ruff format
--check, snakefmt --check on the Snakefile and workflow/rules, and snakemake --lint with only the
accepted note (no conda environment or container: the pipeline runs in the pinned .venv)."""

import importlib.machinery
import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _load_lint():
    loader = importlib.machinery.SourceFileLoader("schedbench_tools_lint", str(ROOT / "tools/lint"))
    spec = importlib.util.spec_from_loader(loader.name, loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)  # defines the checks, runs nothing
    return module


LINT = _load_lint()


def test_the_checks_are_make_lints():
    makefile = (ROOT / "Makefile").read_text()
    assert "tools/lint" in makefile.split("\nlint:", 1)[1].split("\n\n", 1)[0]
    assert list(LINT.CHECKS) == ["ruff check", "ruff format --check", "snakefmt --check", "snakemake --lint"]


@pytest.mark.parametrize("name", list(LINT.CHECKS))
def test_lint_check_passes(name):
    passed, output = LINT.CHECKS[name]()
    assert passed, f"{name} (fix, or `make lint` to see all):\n{output}"
