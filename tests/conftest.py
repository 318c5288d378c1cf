"""Shared fixtures and helpers for the test suite, and the tiers' markers (pyproject.toml):
``needs_latex`` and ``needs_browser`` tests skip with the reason when their tools are missing.
Collecting and running the tests installs nothing: `make test` installs the Debian packages first
(`make test-debs`)."""

from __future__ import annotations

import itertools
import os
import shutil
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, settings

from schedbench.scheduling.model import Instance
from tests.xdist_groups import make_scheduler

settings.register_profile("ci", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ci" if os.environ.get("CI") else "dev")

ROOT = Path(__file__).resolve().parents[1]
# the Makefile's LATEX_DEBS and BROWSER_DEBS (`make test-debs` installs them before the tests)
LATEX_DEBS = ("latexmk", "texlive-latex-recommended", "texlive-fonts-recommended", "texlive-latex-extra")
BROWSER_DEBS = ("chromium",)
PDF_TEXT_DEBS = ("poppler-utils",)


def tools_missing(purpose: str, packages: tuple[str, ...], tools: tuple[str, ...]) -> str | None:
    """Why ``tools`` cannot be used here (None: they are on PATH). Tests install nothing:
    `make test` first runs `make test-debs` (tools/ensure-debian-packages: as root, with apt-get)."""
    missing = [t for t in tools if not shutil.which(t)]
    if not missing:
        return None
    return (
        f"{purpose}: {' and '.join(missing)} not installed (`make test-debs` installs the Debian packages "
        f"{' '.join(packages)} as root)"
    )


def latex_missing() -> str | None:
    """Why the PDF cannot be built here (None: it can)."""
    return tools_missing("the paper's PDF", LATEX_DEBS, ("latexmk", "pdflatex"))


def pdf_text_missing() -> str | None:
    """Why the PDF's text cannot be read here (None: it can)."""
    return tools_missing("the PDF text test", PDF_TEXT_DEBS, ("pdftotext",))


def browser_missing() -> str | None:
    """Why the report cannot be opened in a headless browser here (None: it can)."""
    return tools_missing("the report test (a headless browser)", BROWSER_DEBS, ("chromium",))


# `make test` (pytest -n 2 --dist loadgroup): the tests of a group run in one worker, in file order —
# the local end-to-end modules share one smoke run, the SLURM module one cluster; every other test
# is scheduled on its own (tests/xdist_groups.py: a crashed worker does not hang the session).
# (pytest-xdist 3.8's own loadgroup reads `xdist_group` marks by renaming
# items through an attribute pytest 9 no longer uses, so the groups are named here, by module.)
XDIST_GROUPS = {
    "tests/e2e/test_pipeline.py": "e2e-local",
    "tests/e2e/test_paper.py": "e2e-local",
    "tests/e2e/test_plan.py": "e2e-local",  # reads the same smoke run (else a second worker runs it again)
    "tests/e2e/test_site.py": "e2e-local",  # the site and run record of the same smoke run
    "tests/e2e/test_slurm.py": "slurm",
}


def pytest_xdist_make_scheduler(config, log):
    return make_scheduler(config, log, XDIST_GROUPS)


def pytest_runtest_setup(item):
    for marker, missing in (("needs_latex", latex_missing), ("needs_browser", browser_missing)):
        if item.get_closest_marker(marker) is not None:
            reason = missing()
            if reason:
                pytest.skip(reason)


def brute_force_makespan(inst: Instance) -> int:
    """Optimal restricted-assignment makespan by enumerating every assignment (tiny n only)."""
    best = None
    for choice in itertools.product(*(inst.eligible(j).tolist() for j in range(inst.n))):
        load = np.zeros(inst.m, dtype=np.int64)
        np.add.at(load, np.asarray(choice), inst.size)
        value = int(load.max())
        best = value if best is None else min(best, value)
    return best


@pytest.fixture
def memory_headroom():
    """At most 2 GiB more address space for the test (RLIMIT_AS, restored after): a refusal
    that comes after a huge allocation fails the test with a MemoryError instead of letting the
    kernel kill the worker (a 16 GiB array did, in CI, and xdist then waited forever)."""
    import resource

    vm_kib = next(
        int(line.split()[1])
        for line in Path("/proc/self/status").read_text().splitlines()
        if line.startswith("VmSize:")
    )
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    cap = vm_kib * 1024 + 2 * 2**30
    resource.setrlimit(resource.RLIMIT_AS, (cap if hard == resource.RLIM_INFINITY else min(cap, hard), hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


@pytest.fixture
def tiny_instance() -> Instance:
    # OPT = 2: job 0 only on machine 0, job 2 only on machine 1, job 1 anywhere.
    return Instance.from_lists(2, [0, 0, 1], [1, 1, 1], [[0], [0, 1], [1]])


@pytest.fixture
def isolated_registry(monkeypatch):
    """The registry and the plug-in environment variable as they were before the test (a test that
    loads plug-ins leaves none behind)."""
    from schedbench.scheduling import registry

    registry._load_plugins()
    monkeypatch.delenv(registry.PLUGIN_ENV, raising=False)
    tables = (registry._ALGORITHMS, registry._ADVERSARIES, registry._FAMILIES, registry._ORIGIN, registry._PLUGIN_FILES)
    saved = [dict(t) for t in tables]
    yield
    for table, before in zip(tables, saved):
        table.clear()
        table.update(before)


@pytest.fixture(autouse=True)
def _registry_environment_restored():
    """Loading plug-ins or wings sets the variables the pipeline's jobs register them from
    (``SCHEDBENCH_PLUGINS``, ``SCHEDBENCH_WINGS``): each test's values are undone after it, so a
    later test's subprocess never inherits another test's plug-ins (a plug-in that loops at import
    once failed a check-config run of the toy-wing tests in the same worker)."""
    from schedbench.hall.wing import WINGS_ENV
    from schedbench.scheduling.registry import PLUGIN_ENV

    saved = {name: os.environ.get(name) for name in (PLUGIN_ENV, WINGS_ENV)}
    yield
    for name, value in saved.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value
