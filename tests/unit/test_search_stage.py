"""The worst-case search as a pipeline stage: config checks, one task end to end
(exact and black-box, replayed), the table and the figure."""

from __future__ import annotations

import copy

import pytest

from schedbench.hall.config import ConfigError
from schedbench.checks import check_config
from schedbench.scheduling.stage.search import collect_search, run_task, search_table_tex
from schedbench.scheduling.stage.search_figures import worst_case_figure

BASE = {
    "seed": 1,
    "eps": [0.5],
    "experiments": {"e": {"family": "anr-tree", "params": {"K": 2}, "instances": 1, "algorithms": {"greedy": None}}},
}


@pytest.mark.parametrize(
    "task, message",
    [
        ({"algorithm": "greedy", "method": "exact"}, "search.tasks.t.m: required"),
        ({"algorithm": "greedy", "method": "exact", "m": 4, "bogus": 1}, "search.tasks.t: unknown key 'bogus'"),
        ({"algorithm": "nope", "method": "exact", "m": 4}, "search.tasks.t: unknown algorithm 'nope'"),
        (
            {"algorithm": "edf", "method": "exact", "m": 4, "eps": 0.5},
            "search.tasks.t.algorithm: no exact model for 'edf'",
        ),
        ({"algorithm": "edf", "method": "blackbox", "m": 4, "eps": 0.5}, "search.tasks.t.max_evals: required"),
        ({"algorithm": "greedy", "method": "exact", "m": 0}, "search.tasks.t.m: a positive integer"),
        ({"algorithm": "greedy", "method": "exact", "m": 4, "time_limit": -1}, "search.tasks.t.time_limit: a number"),
        ({"algorithm": "greedy", "method": "exact", "m": 4, "eps": 0.5}, "'eps' does not apply"),
        ({"algorithm": "greedy", "method": "magic", "m": 4}, "search.tasks.t.method"),
    ],
)
def test_search_config_errors_name_the_key(task, message):
    cfg = copy.deepcopy(BASE)
    cfg["search"] = {"tasks": {"t": task}}
    with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace(")", r"\)")):
        check_config(cfg)


def test_tasks_run_replay_and_tabulate(tmp_path):
    exact = run_task(
        "g4", {"algorithm": "greedy", "method": "exact", "m": 4, "opt": 1, "time_limit": 30}, 3, tmp_path / "g4.json"
    )
    assert (exact["ratio"], exact["proved"], exact["replayed"]) == (3.0, True, True)  # ANR: ⌈log2 4⌉ + 1
    bb = {"algorithm": "ll-fifo", "method": "blackbox", "m": 4, "eps": 0.25, "max_evals": 20}
    first = run_task("bb", bb, 3, tmp_path / "bb.json")
    again = run_task("bb", bb, 3, tmp_path / "bb2.json")
    assert first["replayed"] and not first["proved"] and first["ratio"] == again["ratio"]  # deterministic
    table = collect_search([tmp_path / "g4.json", tmp_path / "bb.json"])
    assert list(table["task"]) == ["g4", "bb"]
    tex = search_table_tex(table)
    assert "greedy & cp-sat (ratio) & 4 & -- & 3.000 & 1 & proved" in tex
    fig = worst_case_figure(table)
    assert fig.axes[0].get_xlabel() == "machines m"
    assert "no search tasks" in search_table_tex(collect_search([]))
