"""The config's defaults exist once: in the schema (workflow/schemas/config.schema.yaml).

(a) The one loader (:func:`schedbench.hall.config.load_config`) fills every schema default into
the config, nested sections and per-experiment entries included, so code indexes those keys.
(b) No source file restates one: ``.get("<key>", <literal>)`` for a key the schema defaults is
an error naming the file and line.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from schedbench.hall.config import CONFIG_SCHEMA, config_hash, load_config, schema_defaults

ROOT = Path(__file__).resolve().parents[2]

#: A config giving only what the schema requires, with one entry of every mapping whose entries
#: have defaults (a bipartite experiment with a ``load``), so every default has a place.
MINIMAL = """
seed: 1
eps: [0.5]
experiments:
  e:
    family: random-restricted
    params: {m: 2, n: 4, d: 2, sizes: unit, arrivals: zero}
    instances: 1
    algorithms: {greedy: }
loss:
  seed: 1
  arrivals_per_server: 1
  experiments:
    a:
      figure: A1
      n: [4]
      d: 1
      alpha: 0.5
      beta: 1.0
      k: [{rule: full}]
bipartite:
  seed: 1
  arrivals_per_server: 1
  experiments:
    b:
      figures: [B1]
      N: [4]
      classes: {mu: [1.0], fractions: [1.0]}
      load: {alpha: 0.5}
      degree: [{rule: full}]
      policies: [jsq]
"""


def _values_at(node, path: list[str]):
    """The values at a schema default's path (``*``: every entry of a mapping)."""
    if not path:
        yield node
        return
    head, rest = path[0], path[1:]
    if head == "*":
        for value in node.values():
            yield from _values_at(value, rest)
    elif head == "[]":
        for value in node:
            yield from _values_at(value, rest)
    else:
        assert head in node, f"missing: {head}"
        yield from _values_at(node[head], rest)


def test_the_loader_fills_every_schema_default(tmp_path):
    path = tmp_path / "minimal.yaml"
    path.write_text(MINIMAL)
    config = load_config([path])
    defaults = schema_defaults()
    assert len(defaults) > 20  # the schema's defaults were found at all
    for key, default in defaults.items():
        try:
            values = list(_values_at(config, key.split(".")))
        except AssertionError as exc:
            pytest.fail(f"{key}: not in the loaded config ({exc})")
        assert values, f"{key}: no entry to carry it"
        for value in values:
            if isinstance(default, dict):  # a section: its own keys' defaults are filled too
                assert isinstance(value, dict) and set(default) <= set(value), key
            else:
                assert value == default, f"{key}: {value!r}, the schema says {default!r}"


def test_a_given_value_wins_and_loading_twice_changes_nothing(tmp_path):
    path = tmp_path / "c.yaml"
    data = yaml.safe_load(MINIMAL)
    data["loss"]["points_per_job"] = 3
    path.write_text(yaml.safe_dump(data))
    config = load_config([path])
    assert config["loss"]["points_per_job"] == 3 and config["batch_size"] == 10
    assert config_hash(load_config([path])) == config_hash(config)


def test_the_shipped_configs_load_as_the_snakefile_loads_them():
    """The archive's run configs and ``check-config`` load through the same loader."""
    from schedbench.hall.run_config import config_of_files

    for name in ("config.yaml", "smoke.yaml", "search.yaml", "large.yaml"):
        path = ROOT / "config" / name
        assert config_of_files([path], ROOT) == load_config([path])


# ---- (b) no restatement of a schema default in code ----

#: The keys the schema defaults (the last part of each default's path).
DEFAULTED_KEYS = sorted({key.rsplit(".", 1)[-1] for key in schema_defaults()})

_LITERAL = r"""(?:[-+]?(?:\d[\d_]*\.?\d*(?:[eE][-+]?\d+)?|\.\d+)|"[^"\n]*"|'[^'\n]*'|True|False)"""
_RESTATEMENT = re.compile(
    r"""\.get\(\s*["'](?P<key>"""
    + "|".join(map(re.escape, DEFAULTED_KEYS))
    + r""")["']\s*,\s*"""
    + _LITERAL
    + r"""\s*\)"""
)

#: Restatements left on purpose, each with its reason: (path, key) -> why.
ALLOWED = {
    # Owned by another change in flight (one owner per file): the scheduling engine's files.
    # None restates a schema default today; listed so that the owner's files are named here.
    # ("src/schedbench/scheduling/stage/experiment.py", "<key>"): "owned by the engine change",
}


def restatements(text: str, name: str) -> list[str]:
    """``file:line: .get(...)`` of every restatement of a schema default in ``text``."""
    out = []
    for match in _RESTATEMENT.finditer(text):
        if (name, match.group("key")) in ALLOWED:
            continue
        line = text.count("\n", 0, match.start()) + 1
        out.append(f"{name}:{line}: {' '.join(match.group(0).split())}")
    return out


def _sources():
    for path in sorted([ROOT / "Snakefile", *(ROOT / "src").rglob("*.py"), *(ROOT / "workflow").rglob("*")]):
        if path.is_file() and (path.suffix in (".py", ".smk") or path.name == "Snakefile"):
            yield path.relative_to(ROOT).as_posix(), path.read_text(encoding="utf-8")


def test_the_scan_finds_a_restatement():
    """The scan can fail: the restatements this test replaced are found, line and all."""
    before = 'x = 1\nchunks = balanced_chunks(points, int(section.get("points_per_job", 12)))\n'
    assert restatements(before, "plan.py") == ['plan.py:2: .get("points_per_job", 12)']
    assert restatements("n = LOSS.get(\n    'fit_min_n', 1_000\n)", "loss.smk") == [
        "loss.smk:1: .get( 'fit_min_n', 1_000 )"
    ]
    assert restatements('config.get("accept_cost", False)', "c.smk")
    assert restatements('cfg["figures"].get("rounds_parameter", "K")', "p.smk")
    assert not restatements('task.get("objective", TASK_DEFAULTS["objective"])', "s.py")  # a named constant


def test_no_source_restates_a_schema_default():
    assert {"points_per_job", "fit_min_n", "batches", "n_boot", "batch_size", "plugin_time_limit"} <= set(
        DEFAULTED_KEYS
    )
    found = [hit for name, text in _sources() for hit in restatements(text, name)]
    assert not found, "schema defaults restated in code (index the loaded config instead):\n" + "\n".join(found)
    stale = [name for name, _ in ALLOWED if not (ROOT / name).is_file()]
    assert not stale, f"allow-list entries for missing files: {stale}"


def test_the_schema_is_the_one_the_loader_reads():
    assert CONFIG_SCHEMA == ROOT / "workflow" / "schemas" / "config.schema.yaml"


def test_the_readme_s_default_columns_are_the_schema_s():
    """config/README.md's tables of the top-level keys, the loss and the bipartite sections
    quote each schema default: they agree with the schema."""
    defaults = schema_defaults()
    section, checked = "", []
    for line in (ROOT / "config" / "README.md").read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            section = {
                "## The loss system (`loss`)": "loss.",
                "## Bipartite load balancing (`bipartite`)": "bipartite.",
            }.get(line, "" if line == "## Top-level keys" else None)
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if section is None or len(cells) < 3 or not cells[0].startswith("`"):
            continue
        key = section + cells[0].strip("`")
        if key in defaults and not isinstance(defaults[key], dict):
            quoted = cells[2] if section == "" else cells[1]  # key | type | default | ..., or key | default | ...
            assert yaml.safe_load(quoted.strip("`")) == defaults[key], f"config/README.md, {key}: {quoted}"
            checked.append(key)
    assert {"batch_size", "figures.n_boot", "loss.points_per_job", "bipartite.check_arrivals"} <= set(checked)


def test_the_pipeline_s_limits_are_the_library_s():
    """The library's API and CLI have their own defaults for the same limits (no config there):
    the same numbers as the schema's."""
    from schedbench.hall.effort import DEFAULT_TIME_LIMIT, DEFAULT_WORK_LIMIT
    from schedbench.hall.limits import PLUGIN_RUN_SECONDS

    defaults = schema_defaults()
    assert defaults["opt.work_limit"] == DEFAULT_WORK_LIMIT and defaults["opt.time_limit"] == DEFAULT_TIME_LIMIT
    assert defaults["plugin_time_limit"] == PLUGIN_RUN_SECONDS


@pytest.mark.parametrize("wing", ["loss", "bipartite"])
def test_batch_means_intervals_rest_on_at_least_min_summary_n_batches(wing, tmp_path):
    """A point's 95 % CI of the queueing wings is over its batch means: the schema's minimum is
    the figures' MIN_SUMMARY_N, and a config below it is refused naming the key."""
    from schedbench.hall.stats import MIN_SUMMARY_N

    schema = yaml.safe_load(Path(CONFIG_SCHEMA).read_text())
    assert schema["properties"][wing]["properties"]["batches"]["minimum"] == MIN_SUMMARY_N
    data = yaml.safe_load(MINIMAL)
    for batches, refused in ((MIN_SUMMARY_N - 1, True), (MIN_SUMMARY_N, False)):
        data[wing]["batches"] = batches
        path = tmp_path / f"{wing}-{batches}.yaml"
        path.write_text(yaml.safe_dump(data))
        if refused:
            with pytest.raises(Exception, match="batches"):
                load_config([path])
        else:
            assert load_config([path])[wing]["batches"] == MIN_SUMMARY_N
