"""A library of damaged and foreign runs and archives for the hostile-input harness
(tests/unit/test_hostile_harness.py, tools/hostile-table; docs/hostile-input.md).

A *run* is a pipeline's working directory (``results/runs.parquet`` with its config) holding an
archive of itself (``results/archive/a1``). Each entry of :data:`DAMAGES` breaks one file of a
fresh copy; each command of :data:`COMMANDS` then reads it. Every outcome must be an answer or
one line naming the damaged file — never a traceback, a hang, a file read or written outside
the folders given (an ``outside/`` folder beside the run holds a canary table and a canary
text that symlinks and crafted paths point at; neither may show up in any output)."""

from __future__ import annotations

import atexit
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Callable

import yaml

#: the text of the canary files outside the run: found in an output, a file outside was read
CANARY = "canary-outside-the-run-7f3a"
ARCHIVE = "results/archive/a1"
MANIFEST = f"{ARCHIVE}/manifest.json"
RUNS = "results/runs.parquet"


def make_run(root: Path) -> Path:
    """A small finished run in ``root`` (real tables from the pipeline's own functions, its config
    file, an archive ``a1`` of it) and ``root/../outside`` with the canaries; returns ``root``."""
    import pandas as pd

    from schedbench.hall.archive import archive
    from schedbench.hall.config import config_hash
    from schedbench.hall.io import provenance, write_parquet
    from schedbench.hall.run_config import config_of_files
    from schedbench.scheduling.stage.experiment import make_instances, run_online_batch, solve_offline
    from schedbench.scheduling.stage.results import assemble

    family = {"family": "random-restricted", "params": {"m": 3, "n": 8, "d": 2, "sizes": "unit"}, "instances": 2}
    cfg = {"seed": 7, "eps": [0.5], "experiments": {"ru": {**family, "algorithms": {"greedy": None}}}}
    (root / "config").mkdir(parents=True)
    (root / "config/run.yaml").write_text(yaml.safe_dump(cfg, sort_keys=False))
    h = config_hash(config_of_files([root / "config/run.yaml"], root))
    paths = make_instances("ru", family, 7, range(2), root / "work/instances")
    opt = solve_offline(paths, "load", 10.0, 7)
    runs = run_online_batch(paths, opt, {"greedy": None}, cfg["eps"], 7)
    write_parquet(assemble([runs], [opt], provenance(h)), root / RUNS)
    shutil.rmtree(root / "work")
    archive("a1", root=root)
    outside = root.parent / "outside"
    outside.mkdir(exist_ok=True)
    # a valid table outside, its experiment named by the canary: read, it would pass every check
    write_parquet(pd.read_parquet(root / RUNS).assign(experiment=CANARY), outside / "runs.parquet")
    (outside / "secret.txt").write_text(CANARY + "\n")
    (outside / "secret.json").write_text(json.dumps({"seed": CANARY}))
    return root


def _truncate(rel: str) -> Callable[[Path], None]:
    def damage(run: Path) -> None:
        data = (run / rel).read_bytes()
        (run / rel).write_bytes(data[: len(data) // 2])

    return damage


def _write(rel: str, content: str | bytes) -> Callable[[Path], None]:
    def damage(run: Path) -> None:
        (run / rel).unlink(missing_ok=True)
        (run / rel).parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            (run / rel).write_bytes(content)
        else:
            (run / rel).write_text(content)

    return damage


def _symlink(rel: str, target: str) -> Callable[[Path], None]:
    """``rel`` replaced by a symlink to ``target`` (relative to the run's parent folder, or absolute)."""

    def damage(run: Path) -> None:
        path = run / rel
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink(missing_ok=True)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.symlink_to(target if os.path.isabs(target) else run.parent / target)

    return damage


def _fifo(rel: str) -> Callable[[Path], None]:
    def damage(run: Path) -> None:
        (run / rel).unlink(missing_ok=True)
        (run / rel).parent.mkdir(parents=True, exist_ok=True)
        os.mkfifo(run / rel)

    return damage


def _manifest(edit: Callable[[dict], object]) -> Callable[[Path], None]:
    def damage(run: Path) -> None:
        m = json.loads((run / MANIFEST).read_text())
        (run / MANIFEST).write_text(json.dumps(edit(m)))

    return damage


def _drop_column(column: str) -> Callable[[Path], None]:
    def damage(run: Path) -> None:
        import pandas as pd

        from schedbench.hall.io import write_parquet

        write_parquet(pd.read_parquet(run / RUNS).drop(columns=[column]), run / RUNS)

    return damage


def _file_entry(path: str) -> Callable[[dict], dict]:
    return lambda m: {**m, "files": [*m["files"], {"path": path, "sha256": "0" * 64, "bytes": 1}]}


def _resolved(path: str) -> Callable[[dict], dict]:
    return lambda m: {**m, "config": {**m["config"], "resolved": path}}


#: name → (the file it damages, relative to the run — a refusal must name it —, the damage)
DAMAGES: dict[str, tuple[str, Callable[[Path], None]]] = {
    "runs table truncated": (RUNS, _truncate(RUNS)),
    "runs table: text for parquet": (RUNS, _write(RUNS, "experiment,algorithm\nx,y\n")),
    "runs table: zero bytes": (RUNS, _write(RUNS, b"")),
    "runs table without the experiment column": (RUNS, _drop_column("experiment")),
    "runs table a FIFO": (RUNS, _fifo(RUNS)),
    "runs table a folder": (RUNS, lambda run: ((run / RUNS).unlink(), (run / RUNS).mkdir())),
    "runs table a symlink outside": (RUNS, _symlink(RUNS, "outside/runs.parquet")),
    "runs table a symlink to /dev/zero": (RUNS, _symlink(RUNS, "/dev/zero")),
    "results/ a symlink outside": ("results", _symlink("results", "outside")),
    "another table damaged": ("results/loss.parquet", _write("results/loss.parquet", b"PAR1 damaged")),
    "another table a symlink outside": (
        "results/loss.parquet",
        _symlink("results/loss.parquet", "outside/runs.parquet"),
    ),
    "a figure a symlink outside": ("paper/figures/x.png", _symlink("paper/figures/x.png", "outside/secret.txt")),
    "a figure a FIFO": ("paper/figures/x.png", _fifo("paper/figures/x.png")),
    "the config a symlink outside": ("config/run.yaml", _symlink("config/run.yaml", "outside/secret.txt")),
    "the config macros naming a file outside": (
        "paper/macros_config.tex",
        _write("paper/macros_config.tex", "\\newcommand{\\ConfigFile}{\\texttt{../outside/secret.json}}\n"),
    ),
    "the config macros a symlink outside": (
        "paper/macros_config.tex",
        _symlink("paper/macros_config.tex", "outside/secret.txt"),
    ),
    "the run lock a FIFO": (".snakemake/schedbench-run.lock", _fifo(".snakemake/schedbench-run.lock")),
    "a Snakemake log naming a job log outside": (
        ".snakemake/log/2026-01-01T000000.snakemake.log",
        _write(
            ".snakemake/log/2026-01-01T000000.snakemake.log",
            "rule run_online:\n    log: ../outside/secret.txt\n    jobid: 1\n1 of 2 steps (50%) done\n",
        ),
    ),
    "a Snakemake log a FIFO": (
        ".snakemake/log/2026-01-01T000000.snakemake.log",
        _fifo(".snakemake/log/2026-01-01T000000.snakemake.log"),
    ),
    "a benchmark file a symlink outside": (
        "results/benchmarks/run_online/x.tsv",
        _symlink("results/benchmarks/run_online/x.tsv", "outside/secret.txt"),
    ),
    "manifest truncated JSON": (MANIFEST, _truncate(MANIFEST)),
    "manifest a list": (MANIFEST, _write(MANIFEST, "[]")),
    "manifest without files": (MANIFEST, _manifest(lambda m: {k: v for k, v in m.items() if k != "files"})),
    "manifest files not a list": (MANIFEST, _manifest(lambda m: {**m, "files": {"a": 1}})),
    "manifest entry without a digest": (MANIFEST, _manifest(lambda m: {**m, "files": [{"path": RUNS}]})),
    "manifest naming a file with ..": (MANIFEST, _manifest(_file_entry("../../../outside/secret.txt"))),
    "manifest naming an absolute path": (MANIFEST, _manifest(_file_entry("/etc/passwd"))),
    "manifest config.resolved outside": (MANIFEST, _manifest(_resolved("../../../../outside/secret.json"))),
    "manifest config.resolved absolute": (MANIFEST, _manifest(_resolved("/etc/passwd"))),
    "manifest config not an object": (MANIFEST, _manifest(lambda m: {**m, "config": []})),
    "manifest a symlink outside": (MANIFEST, _symlink(MANIFEST, "outside/secret.json")),
    "manifest a FIFO": (MANIFEST, _fifo(MANIFEST)),
    "manifest not UTF-8": (MANIFEST, _write(MANIFEST, b"\xff\xfe{\x00")),
    "archived runs table edited": (f"{ARCHIVE}/{RUNS}", _truncate(f"{ARCHIVE}/{RUNS}")),
    "archived runs table a symlink outside": (
        f"{ARCHIVE}/{RUNS}",
        _symlink(f"{ARCHIVE}/{RUNS}", "outside/runs.parquet"),
    ),
    "archived resolved config damaged": (
        f"{ARCHIVE}/config.resolved.json",
        _write(f"{ARCHIVE}/config.resolved.json", "{not json"),
    ),
}

#: the cases of this library (the harness's rows)
CASES = list(DAMAGES)

#: The commands the harness runs on each damaged run: ``{run}`` the damaged run, ``{good}`` an
#: intact one, ``{out}`` a new file beside them. A new command that reads runs joins by a line here.
COMMANDS: list[list[str]] = [
    ["archive", "new", "--root", "{run}"],
    ["archive", "--list", "--root", "{run}"],
    ["diff", "{run}", "{good}"],
    ["diff", "a1", "current", "--root", "{run}"],
    ["merge", "{run}", "-o", "{out}"],
    ["merge", "{run}/" + ARCHIVE, "-o", "{out}"],
    ["status", "{run}"],
]


def _snapshot(folder: Path) -> dict[str, tuple[int, int]]:
    """Every entry below ``folder`` (not following symlinks): its size and modification time."""
    return {str(p.relative_to(folder)): (p.lstat().st_size, p.lstat().st_mtime_ns) for p in folder.rglob("*")}


_INTACT: list[Path] = []


def intact() -> Path:
    """The intact run the damages are applied to copies of: made once per process (a few seconds)."""
    if not _INTACT:
        home = Path(tempfile.mkdtemp(prefix="hostile-runs-"))
        atexit.register(shutil.rmtree, home, ignore_errors=True)
        _INTACT.append(make_run(home / "intact" / "run"))
    return _INTACT[0]


def outcome(name: str, argv: list[str], work: Path, cli_outcome) -> tuple[str, str]:
    """``("answered" | "refused" | "failed", detail)`` of the command ``argv`` on a copy of the
    :func:`intact` run in ``work`` with the damage ``name``: ``cli_outcome(args, value)`` runs it
    (the harness's, under its time limit). A refusal must name the damaged file; nothing outside
    the run may change, and no canary may reach the output or the run."""
    good = intact()
    rel, damage = DAMAGES[name]
    home = work / "case"
    shutil.rmtree(home, ignore_errors=True)
    shutil.copytree(good.parent, home, symlinks=True)
    run, outside = home / "run", home / "outside"
    damage(run)
    before = _snapshot(outside)
    args = [a.format(run=run, good=good, out=home / "merged.parquet") for a in argv]
    kind, detail = cli_outcome(args, "")
    case = f"{name}: schedbench {' '.join(argv)}"
    if kind == "failed":
        return kind, f"{case}: {detail}"
    if CANARY in detail:
        return "failed", f"{case}: a file outside the run was read: {detail}"
    if _snapshot(outside) != before:
        return "failed", f"{case}: wrote outside the run"
    for f in run.rglob("*"):
        if f.is_file() and not f.is_symlink() and CANARY.encode() in f.read_bytes():
            return "failed", f"{case}: a file outside the run was copied into {f.relative_to(run)}"
    if kind == "refused" and Path(rel).name not in detail:
        return "failed", f"{case}: '{detail}' does not name {rel}"
    return kind, detail
