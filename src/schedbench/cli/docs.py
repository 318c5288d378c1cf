"""``schedbench docs-tables``: the registry tables of config/README.md, regenerated between its
``<!-- BEGIN GENERATED: KEY -->`` / ``<!-- END GENERATED: KEY -->`` markers from
:mod:`.introspect` (``--check`` only compares)."""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import Any

from schedbench.cli.common import CHECKOUT, CommandError
from schedbench.cli.introspect import builtin_names, compact_params, plugin_info
from schedbench.scheduling.registry import names
from schedbench.scheduling.registry import get_algorithm


def add_commands(sub: argparse._SubParsersAction) -> None:
    """Register ``docs-tables``."""
    dt = sub.add_parser(
        "docs-tables",
        help="regenerate the registry tables of config/README.md (between its "
        "GENERATED markers); --check only compares",
    )
    dt.add_argument(
        "file", nargs="?", default=None, help="the markdown file (default: config/README.md of the checkout)"
    )
    dt.add_argument("--check", action="store_true", help="exit 1 if the file differs from the generated tables")
    dt.set_defaults(func=_docs_tables)


_BLOCK = re.compile(
    r"(<!-- BEGIN GENERATED: (?P<key>[^>]*?) -->\n)(?P<body>.*?)(<!-- END GENERATED: (?P=key) -->)", re.S
)
_ALG_GROUPS = {"load": ("load",), "maxflow": ("maxflow",), "weighted": ("wtdmaxflow", "genwtd", "stretch")}


def _cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def _param_rows(info: dict[str, Any]) -> list[str]:
    rows = ["| param | type | default | range | meaning |", "|---|---|---|---|---|"]
    for p in info["parameters"]:
        rows.append(
            f"| `{p['name']}` | {p['type']} | {_cell(p['default'])} | {_cell(p['range'])} | {_cell(p['doc'])} |"
        )
    return rows if info["parameters"] else ["No parameters."]


def _render_block(key: str) -> list[str]:
    kind, _, arg = key.partition(" ")
    if kind == "algorithms":
        if arg not in _ALG_GROUPS:
            raise CommandError(f"generated block {key!r}: the algorithm groups are {', '.join(_ALG_GROUPS)}")
        rows = [
            "| name | problems | model | rule | parameters (default): meaning | source |",
            "|---|---|---|---|---|---|",
        ]
        for n in builtin_names("algorithm"):
            if get_algorithm(n).problem not in _ALG_GROUPS[arg]:
                continue
            d = plugin_info("algorithm", n)
            params = (
                "; ".join(
                    f"`{p['name']}` ({p['default']})" + (f": {p['doc']}" if p["doc"] else "") for p in d["parameters"]
                )
                or "none"
            )
            rows.append(
                f"| `{n}` | {', '.join(d['problems'])} | {_cell(d['model'])} | {_cell(d['label'])} | "
                f"{_cell(params)} | {_cell(d['source'])} |"
            )
        return rows
    if kind == "adversaries":
        rows = ["| name | problem | rule | parameters | source |", "|---|---|---|---|---|"]
        for n in builtin_names("adversary"):
            d = plugin_info("adversary", n)
            rows.append(
                f"| `{n}` | {d['problems'][0]} | {_cell(d['label'])} | {_cell(compact_params(d))} | "
                f"{_cell(d['source'])} |"
            )
        return rows
    if kind in ("adversary", "family"):
        if arg not in names(kind):
            raise CommandError(f"generated block {key!r}: no registered {kind} {arg!r}")
        return _param_rows(plugin_info(kind, arg))
    raise CommandError(
        f"generated block {key!r}: unknown kind {kind!r} (algorithms GROUP, adversaries, adversary NAME, family NAME)"
    )


def docs_tables(text: str) -> str:
    """``text`` with every block between ``<!-- BEGIN GENERATED: KEY -->`` and ``<!-- END
    GENERATED: KEY -->`` regenerated from the registry. Every registered adversary and family
    must have its own block (a new plug-in is documented or this fails)."""
    keys = [m.group("key") for m in _BLOCK.finditer(text)]
    missing = [f"{k} {n}" for k in ("adversary", "family") for n in builtin_names(k) if f"{k} {n}" not in keys]
    missing += [f"algorithms {g}" for g in _ALG_GROUPS if f"algorithms {g}" not in keys]
    if missing:
        raise CommandError(
            "no generated block for "
            + ", ".join(missing)
            + " (add '<!-- BEGIN GENERATED: KEY -->' / '<!-- END GENERATED: KEY -->' lines)"
        )
    return _BLOCK.sub(lambda m: m.group(1) + "\n".join(_render_block(m.group("key"))) + "\n" + m.group(4), text)


def _docs_tables(args: argparse.Namespace) -> int:
    path = Path(args.file) if args.file else CHECKOUT / "config" / "README.md"
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise CommandError(f"{path}: cannot read ({exc.strerror or exc})") from None
    new = docs_tables(text)
    if args.check:
        if new != text:
            print(
                f"{path}: the generated tables are out of date; run: schedbench docs-tables {args.file or ''}".rstrip(),
                file=sys.stderr,
            )
            return 1
        print(f"{path}: generated tables up to date")
        return 0
    if new != text:
        from schedbench.hall.io import atomic_write_text

        atomic_write_text(str(path), new)
    print(f"{path}: {'updated' if new != text else 'unchanged'}")
    return 0
