"""The results explorer and the pipeline record of the smoke run (workflow/rules/site.smk): the site
opened from disk in a headless Chromium with the network off — a filter redraws a plot and a
table, a link leads to an algorithm's page, a CSV download holds exactly the matching rows of
runs.parquet — and a record that lists every rule the run's log shows with its time."""

import json
import re
import time
from pathlib import Path

import pandas as pd
import pytest

from tests.csv_rows import assert_csv_rows_equal

from .conftest import snakemake

pytestmark = pytest.mark.e2e

# the rules the record cannot time: rule all (no job), the record itself and the site (they end
# after it is written), the PDF (the record does not wait for LaTeX, an optional tool)
UNTIMED = {"all", "pipeline_record", "site", "paper_pdf"}


def _jobs_in_log(work: Path) -> dict[str, int]:
    """Rule -> jobs, from Snakemake's log of the smoke run (the oldest log of the directory)."""
    log = sorted((work / ".snakemake/log").glob("*.snakemake.log"))[0]
    rules = re.findall(r"^(?:local)?rule (\w+):$", log.read_text(), re.M)
    return pd.Series(rules).value_counts().to_dict()


def test_the_pipeline_record_lists_every_rule_that_ran_with_its_time(pipeline):
    record = json.loads((pipeline / "results/pipeline_record.json").read_text())
    ran = _jobs_in_log(pipeline)
    assert {"run_online", "collect_runs", "source_manifest", "paper_reproducibility"} <= set(ran)
    rules = {r["rule"]: r for r in record["rules"]}
    for rule, jobs in ran.items():
        if rule in UNTIMED:
            continue
        assert rule in rules, rule
        assert rules[rule]["ran_this_run"] == rules[rule]["jobs"] == jobs, (rule, rules[rule], jobs)
        assert rules[rule]["wall_s"] > 0 and rules[rule]["cpu_s"] >= 0 and rules[rule]["max_rss_mb"] > 0, rule
    assert record["config"]["files"] == ["config/smoke.yaml"]
    assert record["config"]["hash"] == pd.read_parquet(pipeline / "results/runs.parquet")["config_hash"].iloc[0]
    assert "snakemake" in record["command"] and "config/smoke.yaml" in record["command"]
    assert record["started"] < record["ended"]
    assert {"numpy", "pandas", "snakemake", "schedbench sources"} <= set(record["packages"])


def test_a_second_run_reruns_neither_the_record_nor_the_site(pipeline):
    # the record's start and command reach it by environment variables, not params
    proc = snakemake(pipeline, "--configfile", "config/smoke.yaml", "-n")
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "Nothing to be done" in proc.stdout + proc.stderr, (proc.stdout + proc.stderr)[-3000:]


def _count(browser) -> int:
    return int(browser.evaluate("document.querySelector('#count button.csv').dataset.rows"))


@pytest.mark.needs_browser
def test_the_site_opens_offline_filters_links_and_downloads_the_rows(pipeline, tmp_path):
    from tests.e2e.browser import Browser, chromium_executable

    site = pipeline / "results/site"
    runs = pd.read_parquet(pipeline / "results/runs.parquet")
    size = sum(f.stat().st_size for f in site.iterdir())
    assert size < 5e6, f"{size / 1e6:.1f} MB"
    browser = Browser(chromium_executable())
    try:
        s = browser.session
        browser.call("Network.enable", session=s)
        browser.call(
            "Network.emulateNetworkConditions",
            session=s,
            offline=True,
            latency=0,
            downloadThroughput=-1,
            uploadThroughput=-1,
        )
        downloads = tmp_path / "downloads"
        downloads.mkdir()
        browser.call("Browser.setDownloadBehavior", behavior="allow", downloadPath=str(downloads), eventsEnabled=True)

        browser.navigate((site / "index.html").as_uri())
        assert browser.evaluate("document.querySelector('h1').textContent") == "Results"
        assert (
            browser.evaluate("document.querySelectorAll('a[href^=\"algorithm.html\"]').length")
            == runs["algorithm"].nunique()
        )
        browser.navigate((site / "runs.html").as_uri())
        assert _count(browser) == len(runs)

        def view():
            return browser.evaluate(
                "JSON.stringify({plots: [...document.querySelectorAll('figure.plot')].map((f) => f.outerHTML),"
                " drawn: document.querySelectorAll('figure.plot svg').length,"
                " table: document.querySelector('#view table').innerText})"
            )

        before = json.loads(view())
        # a filter: an ε at which some algorithm still has ten instances with a proven optimum
        # (a plot draws a mean over no fewer), as a reader picks it; JS prints ε as Python does
        proven = runs[(runs["status"] == "ok") & (runs["eps"] > 0) & (runs["opt_status"] == "optimal")]
        counts = proven.groupby(["algorithm", "eps"])["instance"].nunique()
        eps = float(counts[counts >= 10].index[0][1])
        browser.evaluate(
            f"(() => {{ const s = document.getElementById('f-eps'); s.value = {json.dumps(repr(eps))};"
            " s.dispatchEvent(new Event('change')); })()"
        )
        after = json.loads(view())
        # the same plots redrawn (a plot draws only means over >= 10 instances: some may be empty)
        assert len(after["plots"]) == len(before["plots"]) and after["drawn"] > 0
        assert after["plots"] != before["plots"] and after["table"] != before["table"]
        expected = runs[runs["eps"] == eps].reset_index(drop=True)
        assert _count(browser) == len(expected)

        browser.evaluate("document.querySelector('#count button.csv').click()")
        deadline = time.monotonic() + 30
        while not [p for p in downloads.iterdir() if p.suffix == ".csv"] and time.monotonic() < deadline:
            time.sleep(0.2)
        (csv,) = [p for p in downloads.iterdir() if p.suffix == ".csv"]
        assert_csv_rows_equal(csv.read_text(), expected)

        # a link to an algorithm's page, followed by a click
        algorithm = browser.evaluate("document.querySelector('#view a[href^=\"algorithm.html\"]').textContent")
        browser.evaluate("document.querySelector('#view a[href^=\"algorithm.html\"]').click()")
        browser.wait_event("Page.loadEventFired")
        assert browser.evaluate("location.pathname").endswith("/algorithm.html")
        assert browser.evaluate("document.querySelector('h1').textContent") == algorithm
        text = browser.evaluate("document.getElementById('app').innerText")
        assert "proven bound" in text and "Its runs" in text
        assert f"{(runs['algorithm'] == algorithm).sum()} runs" in text

        browser.navigate((site / "run.html").as_uri())
        text = browser.evaluate("document.getElementById('app').innerText")
        assert "collect_runs" in text and "config/smoke.yaml" in text

        urls = [
            ev["params"]["request"]["url"] for ev in browser.events if ev.get("method") == "Network.requestWillBeSent"
        ]
        assert urls and all(u.startswith(("file:", "blob:", "data:")) for u in urls), urls
        assert browser.errors() == []
    finally:
        browser.close()
