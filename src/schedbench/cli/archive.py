"""The command line of ``archive``, ``diff`` and ``merge`` (``docs/comparing-runs.md``), wired into
``schedbench.cli`` by :func:`add_commands`. The work is in the hall (:mod:`~schedbench.hall.archive`, :mod:`~schedbench.hall.run_diff`,
:mod:`~schedbench.hall.diff_text`, :mod:`~schedbench.hall.merge`), imported
only when one of these commands runs (it needs pandas: ``schedbench --help`` should not)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

__all__ = ["add_commands", "DEST_HELP"]

#: ``--dest`` unset means :data:`schedbench.hall.archive.DEFAULT_DEST` (named here for the help text
#: only: the work module is not imported to build the parser; a test keeps the two equal).
DEST_HELP = "where archives are kept, relative to --root (default results/archive)"


def _archive_command(args: argparse.Namespace) -> int:
    from schedbench.hall.archive import DEFAULT_DEST, MANIFEST, archive, archive_dir, list_archives

    args.dest = args.dest or DEFAULT_DEST
    if args.list:
        table = list_archives(args.root, args.dest)
        print(
            table.to_string(index=False)
            if not table.empty
            else f"no archives in {archive_dir(Path(args.root), args.dest)}"
        )
        return 0
    path = archive(args.name, root=args.root, dest=args.dest, configfiles=args.configfile)
    m = json.loads((path / MANIFEST).read_text())
    cfg = m["config"]
    where = ", ".join(e["stored"] for e in cfg["files"]) or "no config file"
    print(f"archived {path} ({len(m['files'])} files; config {where}, hash {cfg['hash']})")
    if cfg["note"]:
        print(f"note: {cfg['note']}")
    for t, info in m["tables"].items():
        if info.get("stale"):
            print(f"note: {t} has config hash {', '.join(info['config_hash'])}: left over from another run")
    return 0


def _diff_command(args: argparse.Namespace) -> int:
    from schedbench.hall.archive import DEFAULT_DEST
    from schedbench.hall.run_diff import diff

    args.dest = args.dest or DEFAULT_DEST
    d = diff(args.a, args.b, root=args.root, dest=args.dest, n_boot=args.n_boot, match=args.match)
    print(json.dumps(d.to_dict(), indent=1, default=str) if args.json else d.report(full=args.full))
    return 1 if args.exit_code and not d.unchanged else 0


def _merge_command(args: argparse.Namespace) -> int:
    from schedbench.hall.merge import merge

    df = merge(args.parts, args.out, table=args.table, schema=args.schema, force=args.force)
    print(f"merged {len(args.parts)} parts into {args.out}: {len(df)} rows")
    return 0


def add_commands(subparsers: argparse._SubParsersAction) -> None:
    """Register ``archive``, ``diff`` and ``merge`` on the ``schedbench`` command line."""
    root_help = "the pipeline's working directory (default .)"

    a = subparsers.add_parser(
        "archive",
        help="store a finished pipeline run (results tables, config, provenance, figures, LaTeX tables) under a name",
    )
    a.add_argument("name", nargs="?", default=None, help="default: <run date>-<short commit>-<config hash[:8]>")
    a.add_argument("--root", default=".", help=root_help)
    a.add_argument("--dest", default=None, help=DEST_HELP)
    a.add_argument(
        "--configfile",
        action="append",
        default=None,
        metavar="FILE",
        help="the run's config file(s), if it cannot be found (checked against the tables' config hash)",
    )
    a.add_argument("--list", action="store_true", help="list the archives instead")
    a.set_defaults(func=_archive_command)
    d = subparsers.add_parser(
        "diff",
        help="what changed between two runs beyond the noise (bootstrap CIs), what appeared and "
        "disappeared, and whether code, config or packages differ",
    )
    d.add_argument("a", help="an archive name or path, a run directory, or 'current'")
    d.add_argument("b", nargs="?", default="current", help="the same (default: current, the results in --root)")
    d.add_argument("--root", default=".", help=root_help)
    d.add_argument("--dest", default=None, help=DEST_HELP)
    d.add_argument(
        "--match",
        default=None,
        metavar="KEY[,KEY]",
        help="match the runs' groups on these keys only (experiment, algorithm, eps, a parameter's name), so that "
        "a group whose other keys changed is paired a → b",
    )
    d.add_argument("--full", action="store_true", help="list every group, identical ones and all noise too")
    d.add_argument("--json", action="store_true", help="print JSON instead of text")
    d.add_argument("--n-boot", type=int, default=2000, help="bootstrap resamples per CI (default 2000)")
    d.add_argument("--exit-code", action="store_true", help="exit 1 when something changed (as git diff --exit-code)")
    d.set_defaults(func=_diff_command)
    m = subparsers.add_parser(
        "merge", help="merge the results of one config's run split over machines into one table (schema-checked)"
    )
    m.add_argument("parts", nargs="+", help="tables, or run/archive directories holding results/<table>")
    m.add_argument("-o", "--out", required=True, help="the merged table (.parquet)")
    m.add_argument("--table", default="runs.parquet", help="which table of a directory part (default runs.parquet)")
    m.add_argument("--schema", default=None, help="the schema to check (default: workflow/schemas/ of the checkout)")
    m.add_argument("--force", action="store_true", help="replace an existing --out")
    m.set_defaults(func=_merge_command)
