"""The results explorer: a static site over the results tables (docs/explorer.md).

``build_site`` writes ``index.html`` and the pages beside it, the tables as JSON in ``data.js``,
and the hand-written ``app.js`` and ``style.css`` of this package: every page opens from the file
system with no server and no network. The tables are read generically (any columns); what only a
wing knows (an algorithm's rule and bound, its source file) comes in ``meta`` from the caller, and
how a wing's own tables are shown on the sweeps page in its :class:`SiteView`\\ s
(``Wing.site_views``): app.js names none of them."""

from __future__ import annotations

import json
import math
import os
import shutil
import tempfile
from collections.abc import Sequence
from dataclasses import asdict
from html import escape
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from schedbench.hall.io import ordinary_permissions
from schedbench.hall.wing import SiteView

__all__ = ["ASSETS", "PAGES", "SiteView", "asset_files", "encode_table", "site_data", "build_site", "SiteError"]

_HERE = Path(__file__).resolve().parent
#: the hand-written files copied into the site as they are
ASSETS = ("app.js", "style.css")
#: page file stem -> its title; app.js draws each from ``<body data-page=...>``
PAGES = {
    "index": "Overview",
    "runs": "Explore the runs",
    "algorithm": "Algorithm",
    "family": "Family",
    "experiment": "Experiment",
    "sweeps": "Sweeps",
    "claims": "Claims",
    "run": "Pipeline record",
}


class SiteError(ValueError):
    """A table the site cannot show; the message names it."""


def _view_data(views: Sequence[SiteView], tables: dict[str, pd.DataFrame]) -> list[dict]:
    """The views whose table the site holds, checked against its columns, for data.js."""
    out = []
    for view in views:
        if not isinstance(view, SiteView):
            raise SiteError(f"views: a SiteView, not {view!r}")
        if view.table not in tables:
            continue
        missing = [c for c in view.plotted() if c not in tables[view.table].columns]
        if missing:
            raise SiteError(f"view {view.title!r}: the table {view.table} has no column {', '.join(missing)}")
        out.append(asdict(view))
    return out


def asset_files() -> list[str]:
    """The files the site copies (a pipeline rule declares them as inputs)."""
    return [str(_HERE / name) for name in ASSETS]


def _number(x: Any) -> Any:
    """A float as JSON: None for NaN, the strings "inf"/"-inf" for infinities (app.js reads them)."""
    x = float(x)
    if math.isnan(x):
        return None
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return x


def _cell(v: Any) -> Any:
    if v is None or v is pd.NA or v is pd.NaT:
        return None
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, (int, np.integer)):
        return int(v)
    if isinstance(v, (float, np.floating)):
        return _number(v)
    return str(v)


def encode_table(df: pd.DataFrame, name: str = "table") -> dict:
    """``df`` column by column: ``{"columns", "kinds", "data", "rows"}``. Numbers and booleans as
    JSON arrays (NaN as null); any other column dictionary-coded (``{"values", "codes"}``, code
    -1 for a missing cell) — a provenance column of 13k equal strings costs one string."""
    kinds, data = [], []
    for col in df.columns:
        s = df[col]
        if pd.api.types.is_bool_dtype(s):
            kinds.append("b")
            data.append([_cell(v) for v in s.tolist()])
        elif pd.api.types.is_integer_dtype(s):
            kinds.append("i")
            data.append([_cell(v) for v in s.tolist()])
        elif pd.api.types.is_float_dtype(s):
            kinds.append("f")
            data.append([_number(v) for v in s.to_numpy(dtype=float)])
        else:
            kinds.append("s")
            index: dict[tuple, int] = {}
            values, codes = [], []
            for v in s.tolist():
                c = _cell(v)
                if c is None:
                    codes.append(-1)
                    continue
                key = (type(c).__name__, c)
                if key not in index:
                    index[key] = len(values)
                    values.append(c)
                codes.append(index[key])
            data.append({"values": values, "codes": codes})
    if len(set(df.columns)) != len(df.columns):
        raise SiteError(f"{name}: duplicate column names")
    return {"columns": [str(c) for c in df.columns], "kinds": kinds, "data": data, "rows": len(df)}


def site_data(
    tables: dict[str, pd.DataFrame],
    meta: dict | None = None,
    record: dict | None = None,
    views: Sequence[SiteView] = (),
) -> dict:
    """What data.js holds: every table encoded, the wing's ``meta``, the run ``record`` and the
    wings' ``views`` of the tables it holds."""
    if "runs" not in tables:
        raise SiteError("tables: 'runs' (results/runs.parquet) is required")
    return {
        "tables": {name: encode_table(df, name) for name, df in tables.items()},
        "meta": meta or {},
        "record": record,
        "views": _view_data(views, tables),
    }


def _page(stem: str, title: str) -> str:
    nav = " ".join(
        f'<a href="{s}.html">{escape(t)}</a>'
        for s, t in PAGES.items()
        if s not in ("algorithm", "family", "experiment")
    )
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>schedbench · {escape(title)}</title>"
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<link rel="stylesheet" href="style.css"></head>\n'
        f'<body data-page="{stem}"><header><b>schedbench results</b> <nav>{nav}</nav></header>\n'
        '<main id="app"><p class="note">Loading… (this page needs JavaScript)</p></main>\n'
        '<script src="data.js"></script><script src="app.js"></script>\n</body></html>\n'
    )


def build_site(
    out_dir: str | os.PathLike,
    tables: dict[str, pd.DataFrame],
    meta: dict | None = None,
    record: dict | None = None,
    views: Sequence[SiteView] = (),
) -> Path:
    """Write the site to ``out_dir``: complete or not at all (written in a temporary directory
    beside it, then renamed over it). ``views``: how the sweeps page shows the wings' tables
    (:class:`SiteView`). Returns the path of ``index.html``."""
    out = Path(out_dir)
    data = site_data(tables, meta, record, views)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(dir=out.parent, prefix=f".{out.name}.", suffix=".tmp"))
    try:
        text = json.dumps(data, separators=(",", ":"), allow_nan=False, ensure_ascii=False)
        (tmp / "data.js").write_text(f"window.SB = {text};\n", encoding="utf-8")
        for name in ASSETS:
            shutil.copyfile(_HERE / name, tmp / name)
        for stem, title in PAGES.items():
            (tmp / f"{stem}.html").write_text(_page(stem, title), encoding="utf-8")
        for p in tmp.iterdir():
            ordinary_permissions(p)
        ordinary_permissions(tmp)
        os.chmod(tmp, os.stat(tmp).st_mode | 0o111)  # a directory: searchable
        old = None
        if out.exists():
            old = Path(tempfile.mkdtemp(dir=out.parent, prefix=f".{out.name}.", suffix=".old"))
            os.replace(out, old / out.name)
        os.replace(tmp, out)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return out / "index.html"
