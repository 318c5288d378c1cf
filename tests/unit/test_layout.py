"""The house's layout (docs/architecture.md): three wings — scheduling, loss, bipartite — each
with its pipeline stage in ``<wing>/stage/``, and one hall (``schedbench.hall``) that imports no
wing. No wing imports another; only the faces (``api``, ``cli``, ``checks``) and the workflow
span wings. Read from the imports of every source file (``ast``), not by hand."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src" / "schedbench"
WINGS = ("scheduling", "loss", "bipartite")


def _imports(path: Path) -> set[str]:
    mods = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            mods.add(node.module)
        elif isinstance(node, ast.Import):
            mods.update(a.name for a in node.names)
    return {m for m in mods if m.startswith("schedbench.")}


def _named(path: Path) -> set[str]:
    """:func:`_imports` plus the modules imported by name from a package (``from a import b``: a.b)."""
    mods = _imports(path)
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            mods.update(f"{node.module}.{a.name}" for a in node.names)
    return mods


def _part(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def _files(part: str) -> list[Path]:
    return sorted((SRC / part).rglob("*.py"))


def test_the_top_level_holds_only_the_wings_the_hall_and_the_faces():
    folders = {p.name for p in SRC.iterdir() if p.is_dir() and p.name != "__pycache__"}
    modules = {p.stem for p in SRC.glob("*.py")}
    assert folders - {"schemas"} == {*WINGS, "hall", "cli"}  # the command line is a package of command modules
    assert modules == {"__init__", "api", "checks"}


def test_the_hall_holds_no_command_line():
    """The faces parse arguments; the hall (shared machinery) holds no argparse."""
    bad = [str(f.relative_to(SRC)) for f in _files("hall") if "argparse" in _imports_all(f)]
    assert not bad, bad


def _imports_all(path: Path) -> set[str]:
    mods = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            mods.add(node.module)
        elif isinstance(node, ast.Import):
            mods.update(a.name for a in node.names)
    return mods


@pytest.mark.parametrize("wing", WINGS)
def test_every_wing_owns_its_stage(wing):
    stage = SRC / wing / "stage"
    assert (stage / "__init__.py").exists() and (stage / "config.py").exists()
    assert any(stage.glob("figures.py")) and any(stage.glob("tables.py")), wing


def test_no_hall_source_names_a_wing():
    """The hall knows the wings only through the registry (``hall/wing.py``): no Python file of
    it names one, in code, strings, comments or docstrings alike. (The explorer's hand-written
    ``site/app.js`` still draws the queueing wings' sweeps page by their table names: not a
    Python source, not yet covered.)"""
    names = re.compile(r"\b(" + "|".join(WINGS) + r")\b", re.IGNORECASE)
    hits = [
        f"{f.relative_to(SRC)}:{n}: {line.strip()}"
        for f in _files("hall")
        for n, line in enumerate(f.read_text().splitlines(), 1)
        if names.search(line)
    ]
    assert not hits, hits


@pytest.mark.parametrize("wing", WINGS)
def test_every_wing_is_registered_and_exports_its_description(wing):
    """Each wing's stage exports one ``WING`` named as its folder, and the package registers it
    (``schedbench.WINGS``, one line per wing): the hall finds every wing and only through it."""
    import importlib

    import schedbench
    from schedbench.hall.wing import Wing, wings

    module = f"schedbench.{wing}.stage"
    assert module in schedbench.WINGS
    described = importlib.import_module(module).WING
    assert isinstance(described, Wing) and described.name == wing
    assert described in wings()


def test_the_hall_imports_no_wing():
    bad = {f"{f.relative_to(SRC)} -> {m}" for f in _files("hall") for m in _imports(f) if _part(m) != "hall"}
    assert not bad, sorted(bad)


@pytest.mark.parametrize("wing", WINGS)
def test_a_wing_imports_only_itself_and_the_hall(wing):
    bad = {f"{f.relative_to(SRC)} -> {m}" for f in _files(wing) for m in _imports(f) if _part(m) not in (wing, "hall")}
    assert not bad, sorted(bad)


def test_the_machine_core_sits_below_the_rules_and_the_validator_imports_neither():
    """``scheduling/machines.py`` (how machines process) imports no rule, engine or run path;
    the engine (the step path) and the compiled flow rules drive it; the validator, the
    independent check, imports neither the core nor the engine."""
    core = _named(SRC / "scheduling" / "machines.py")
    above = ("schedbench.scheduling.algorithms", "schedbench.scheduling.engine", "schedbench.scheduling.play")
    assert not {m for m in core if m.startswith(above)}, sorted(core)
    assert "schedbench.scheduling.machines" in _named(SRC / "scheduling" / "engine.py")
    users = {f.stem for f in _files("scheduling/algorithms") if "schedbench.scheduling.machines" in _named(f)}
    flow_rules = {"ll_fifo", "ll_fifo_drop", "mft_unit", "drop_every_k_flow", "random_two_flow", "anand_batch"}
    assert flow_rules | {"edf", "imd", "lwf", "class_ll_srpt", "wmft_a", "wmft_b"} <= users
    assert not (SRC / "scheduling" / "algorithms" / "_class_kernels.py").exists()  # B is a policy on the core
    calendar = _named(SRC / "scheduling" / "event_calendar.py")  # the core's events: below the rules too
    assert not {m for m in calendar if m.startswith(above)}, sorted(calendar)
    checker = _named(SRC / "scheduling" / "validate.py")
    assert not {m for m in checker if m.endswith((".machines", ".engine"))}, sorted(checker)


def test_wings_are_named_by_their_models_not_by_project_history():
    """No "seed 000/002/003" (the order the source documents came in) in the code, docs, workflow,
    config or README: a reader knows the wings as the rejection model, the loss system and
    bipartite load balancing."""
    root = SRC.parent.parent
    hits = []
    for top in ("src", "docs", "workflow", "config", "README.md"):
        base = root / top
        for path in [base] if base.is_file() else base.rglob("*"):
            if path.is_file() and path.suffix in {".py", ".md", ".smk", ".yaml", ".rst", ".tex", ""}:
                if any(p.endswith(".egg-info") or p == "__pycache__" for p in path.parts):
                    continue
                text = path.read_text(errors="replace").lower()
                hits += [f"{path.relative_to(root)}" for token in ("seed 000", "seed 002", "seed 003") if token in text]
    assert hits == []
