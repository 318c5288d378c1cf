"""Whether a CSV's rows are exactly a table's rows: every column, in order, each cell read back
as its column's type (a float to the same double, a missing cell as an empty field)."""

from __future__ import annotations

import io
import math

import numpy as np
import pandas as pd


def _same(cell: str, value) -> bool:
    if value is None or value is pd.NA or (isinstance(value, (float, np.floating)) and math.isnan(value)):
        return cell == ""
    if isinstance(value, (bool, np.bool_)):
        return cell == str(bool(value))
    if isinstance(value, (int, np.integer)):
        return cell != "" and int(cell) == int(value)
    if isinstance(value, (float, np.floating)):
        return cell != "" and float(cell) == float(value)
    return cell == str(value)


def assert_csv_rows_equal(csv_text: str, table: pd.DataFrame) -> None:
    """``csv_text`` (a header line, then one line per row) holds exactly the rows of ``table``, in order."""
    got = pd.read_csv(io.StringIO(csv_text), dtype=str, keep_default_na=False)
    assert list(got.columns) == [str(c) for c in table.columns]
    assert len(got) == len(table), f"{len(got)} CSV rows, {len(table)} table rows"
    rows = table.astype(object).to_dict("records")
    for k, (cells, row) in enumerate(zip(got.to_dict("records"), rows)):
        bad = [c for c in table.columns if not _same(cells[str(c)], row[c])]
        assert not bad, f"row {k}: {[(c, cells[str(c)], row[c]) for c in bad[:3]]}"
