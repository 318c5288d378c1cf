"""The results explorer's builder (schedbench.hall.site) on a small synthetic runs table: the
site is complete or absent, a missing runs table is one error naming it, and — in a headless
Chromium — the CSV of a filtered view holds exactly the matching rows of the table."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import schedbench.hall.site
from schedbench.hall.site import PAGES, SiteError, SiteView, build_site, encode_table
from tests.csv_rows import assert_csv_rows_equal


def _runs() -> pd.DataFrame:
    """Every kind of cell the runs table has: text with commas, quotes and line breaks, missing
    values, booleans, large integers, floats that print long, ε missing for plain algorithms."""
    n = 12
    rng = np.random.default_rng(3)
    return pd.DataFrame(
        {
            "experiment": [f"exp_{i % 3}" for i in range(n)],
            "family": ["fam-a" if i % 2 else "fam-b" for i in range(n)],
            "instance": [f"exp_{i % 3}/{i:04d}" for i in range(n)],
            "algorithm": ["greedy", "lb-unit-reject", "speedy"] * 4,
            "problem": ["load" if i < 8 else "maxflow" for i in range(n)],
            "model": ["plain", "rejection", "speed"] * 4,
            "eps": [np.nan, 0.25, 0.5] * 4,
            "seed": [3639916983 + i for i in range(n)],
            "p_c": [None, 'say "hi", then\nleave', None] * 4,
            "migratory": [False, True, False] * 4,
            "objective": rng.random(n) * 10,
            "rejected_frac": [0.0, 0.1 + 0.2, 0.0] * 4,
            "budget_used": [np.nan, 1 / 3, np.nan] * 4,
            "status": ["ok"] * n,
            "ratio": 1 + rng.random(n),
            "opt_status": ["optimal", "bound"] * 6,
            "packages": ['{"numpy": "2.0", "pandas": "2.2"}'] * n,
        }
    )


def test_encode_table_keeps_every_cell():
    df = _runs()
    enc = encode_table(df)
    assert enc["columns"] == list(df.columns) and enc["rows"] == len(df)
    text = json.loads(json.dumps(enc, allow_nan=False))  # valid JSON: no NaN
    pc = text["data"][list(df.columns).index("p_c")]
    assert [None if c < 0 else pc["values"][c] for c in pc["codes"]] == df["p_c"].tolist()
    eps = text["data"][list(df.columns).index("eps")]
    assert eps[0] is None and eps[1] == 0.25
    assert len(text["data"][list(df.columns).index("packages")]["values"]) == 1  # one string for 12 rows


def test_the_site_is_every_page_and_its_assets(tmp_path):
    index = build_site(tmp_path / "site", {"runs": _runs()})
    names = {p.name for p in index.parent.iterdir()}
    assert names == {f"{p}.html" for p in PAGES} | {"data.js", "app.js", "style.css"}
    for page in PAGES:  # no page reaches for the network
        html = (index.parent / f"{page}.html").read_text()
        assert "http://" not in html and "https://" not in html and "//" not in html.replace("<!DOCTYPE html>", "")
    assert list(tmp_path.iterdir()) == [tmp_path / "site"]  # no temporary directory left


def test_a_failed_build_leaves_the_old_site_whole(tmp_path, monkeypatch):
    build_site(tmp_path / "site", {"runs": _runs()})
    before = {p.name: p.read_bytes() for p in (tmp_path / "site").iterdir()}

    def broken(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(shutil, "copyfile", broken)
    with pytest.raises(OSError, match="disk full"):
        build_site(tmp_path / "site", {"runs": _runs().head(3)})
    assert {p.name: p.read_bytes() for p in (tmp_path / "site").iterdir()} == before
    assert list(tmp_path.iterdir()) == [tmp_path / "site"]


def test_a_missing_runs_table_is_one_error_naming_it(tmp_path):
    with pytest.raises(SiteError, match="'runs'"):
        build_site(tmp_path / "site", {"claims": pd.DataFrame({"claim_id": ["a"]})})
    assert not (tmp_path / "site").exists()


@pytest.mark.needs_browser
@pytest.mark.parametrize(
    "fragment, keep",
    [
        ("problem=load&class=rejection%20policy", lambda d: (d.problem == "load") & (d.model == "rejection")),
        ("eps=none", lambda d: d.eps.isna()),
        ("opt=bound&family=fam-a", lambda d: (d.opt_status == "bound") & (d.family == "fam-a")),
    ],
)
def test_the_csv_of_a_filtered_view_is_the_matching_rows(tmp_path, fragment, keep):
    from tests.e2e.browser import Browser, chromium_executable

    runs = _runs()
    index = build_site(tmp_path / "site", {"runs": runs})
    browser = Browser(chromium_executable())
    try:
        browser.navigate((index.parent / "runs.html").as_uri() + "#" + fragment)
        button = "document.querySelector('#count button.csv')"
        shown = int(browser.evaluate(f"{button}.dataset.rows"))
        # the text the button hands to its Blob download (the e2e test downloads it for real)
        browser.evaluate("window.download = (name, text) => { window.csvText = text; }")
        browser.evaluate(f"{button}.click()")
        csv = browser.evaluate("window.csvText")
        assert browser.errors() == []
    finally:
        browser.close()
    expected = runs[keep(runs)].reset_index(drop=True)
    assert shown == len(expected) > 0
    assert_csv_rows_equal(csv, expected)


@pytest.mark.needs_browser
def test_the_summary_table_sorts_by_the_header_clicked(tmp_path):
    from tests.e2e.browser import Browser, chromium_executable

    index = build_site(tmp_path / "site", {"runs": _runs()})
    browser = Browser(chromium_executable())
    try:
        browser.navigate((index.parent / "runs.html").as_uri())
        column = "[...document.querySelectorAll('#view th')].findIndex((th) => th.dataset.key === 'max_ratio')"
        cells = f"[...document.querySelectorAll('#view tbody tr')].map((r) => +r.children[{column}].innerText)"
        browser.evaluate("document.querySelector('#view th[data-key=max_ratio]').click()")
        ascending = browser.evaluate(cells)
        browser.evaluate("document.querySelector('#view th[data-key=max_ratio]').click()")
        descending = browser.evaluate(cells)
        assert browser.errors() == []
    finally:
        browser.close()
    assert len(ascending) == 3 and ascending == sorted(ascending) and descending == ascending[::-1]


def _counted_runs() -> pd.DataFrame:
    """One algorithm at three ε: 10 instances with a proven OPT at ε = 1/4, 9 at ε = 1/2, and at
    ε = 1/8 ten instances of which one only has a bound (9 proven)."""
    rows = []
    for eps, n_proven, n_bound in ((0.25, 10, 0), (0.5, 9, 0), (0.125, 9, 1)):
        for k in range(n_proven + n_bound):
            rows.append(
                {
                    "experiment": "exp",
                    "family": "fam",
                    "instance": f"exp/{eps}/{k:04d}",
                    "algorithm": "mine",
                    "problem": "maxflow",
                    "model": "rejection",
                    "eps": eps,
                    "objective": 3.0 + k,
                    "rejected_frac": eps / 2,
                    "status": "ok",
                    "ratio": 1.5 + k / 100,
                    "budget_used": 0.5,
                    "opt_status": "optimal" if k < n_proven else "bound",
                }
            )
    return pd.DataFrame(rows)


@pytest.mark.needs_browser
def test_a_mean_or_band_is_drawn_over_ten_instances_with_a_proven_optimum_or_not_at_all(tmp_path):
    """The explorer's rule (docs/explorer.md): ALG/OPT against ε draws an ε only where ≥ 10
    instances have a proven OPT (a ratio to a bound is never averaged in); the budget plot only
    where ≥ 10 instances ran."""
    from tests.e2e.browser import Browser, chromium_executable

    index = build_site(tmp_path / "site", {"runs": _counted_runs()})
    browser = Browser(chromium_executable())
    try:
        browser.navigate((index.parent / "runs.html").as_uri())
        points = (
            "Object.fromEntries([...document.querySelectorAll('figure.plot')].map((f) =>"
            " [f.dataset.title.split(' ')[0], f.querySelectorAll('g.series circle').length]))"
        )
        drawn = browser.evaluate(f"JSON.stringify({points})")
        titles = browser.evaluate(
            "JSON.stringify([...document.querySelectorAll('figure.plot')].map((f) => f.dataset.title))"
        )
        assert browser.errors() == []
    finally:
        browser.close()
    drawn, titles = json.loads(drawn), json.loads(titles)
    assert drawn["ALG/OPT"] == 1  # ε = 1/4 only
    assert drawn["Rejection"] == 2  # ε = 1/4 and 1/8 (ten instances each)
    assert any("1 runs over a bound left out" in t for t in titles), titles


def _toy_points() -> pd.DataFrame:
    """A wing's table the explorer's code has never heard of: two experiments, two settings of
    ``d`` in the first (α constant), one point with a zero ``y`` (not drawable on a log axis)."""
    rows = []
    for exp, ds in (("T1", (1, 2)), ("T2", (3,))):
        for d in ds:
            for n in (10, 100, 1000):
                rows.append(
                    {"experiment": exp, "n": n, "d": d, "alpha": 0.5, "y": 0.0 if (d, n) == (2, 1000) else 1 / n}
                )
    return pd.DataFrame(rows)


def test_a_view_naming_a_column_its_table_lacks_is_one_error_naming_it(tmp_path):
    view = SiteView("toy_points", "Toy", x="n", y="mean", lines=(("d", "d"),))
    with pytest.raises(SiteError, match="toy_points has no column mean"):
        build_site(tmp_path / "site", {"runs": _runs(), "toy_points": _toy_points()}, views=[view])
    assert not (tmp_path / "site").exists()
    # a view of a table the run did not make is left out, not an error
    index = build_site(tmp_path / "site", {"runs": _runs()}, views=[view])
    assert "toy_points" not in (index.parent / "data.js").read_text()


@pytest.mark.needs_browser
def test_the_sweeps_page_draws_a_wings_table_from_its_view_alone(tmp_path):
    """A table app.js never names is drawn as its wing's SiteView says: one plot per experiment,
    one line per setting named by the columns that vary within the plot, a point with a zero y
    left off the log axis, then the table with the view's columns."""
    from tests.e2e.browser import Browser, chromium_executable

    view = SiteView(
        "toy_points",
        "Toy model: y against n",
        columns=("experiment", "n", "d", "y"),
        x="n",
        y="y",
        lines=(("d", "d"), ("alpha", "α")),
        logx=True,
        logy=True,
    )
    assert "toy_points" not in (Path(schedbench.hall.site.__file__).parent / "app.js").read_text()
    index = build_site(tmp_path / "site", {"runs": _runs(), "toy_points": _toy_points()}, views=[view])
    browser = Browser(chromium_executable())
    try:
        browser.navigate((index.parent / "sweeps.html").as_uri())
        plots = browser.evaluate(
            "JSON.stringify([...document.querySelectorAll('figure.plot')].map((f) => [f.dataset.title,"
            " [...f.querySelectorAll('g.series')].map((g) => [g.dataset.name, g.querySelectorAll('circle').length])]))"
        )
        header = browser.evaluate(
            "JSON.stringify([...document.querySelectorAll('main table th')].map((t) => t.textContent))"
        )
        overview = (index.parent / "index.html").as_uri()
        assert browser.errors() == []
        browser.navigate(overview)
        link = browser.evaluate("document.querySelector('main a[href=\"sweeps.html\"]').textContent")
    finally:
        browser.close()
    assert json.loads(plots) == [
        ["T1: y against n", [["d=1", 3], ["d=2", 2]]],
        ["T2: y against n", [["all", 3]]],
    ]
    assert [h.strip(" ▲▼") for h in json.loads(header)] == ["experiment", "n", "d", "y"]
    assert link == "Toy model: y against n"
