"""The worst-case search as a pipeline stage: one task per config entry
(``search.tasks``), the collected table, and its LaTeX table.

A task is the exact CP-SAT search (``method: exact``, :func:`schedbench.scheduling.search.
worst_case`) or the black-box search (``method: blackbox``, :func:`~schedbench.scheduling.
search.search_worst`). Both replay what they find through the real plug-in and the real offline
solver before returning. For a reproducible table a task is deterministic: the exact search runs
one CP-SAT worker with the task's seed and stops at ``work_limit`` deterministic units (default
:data:`EXACT_WORK_LIMIT`; a proved value never depends on it), the black-box search stops after
``max_evals`` candidates; ``budget_seconds`` / ``time_limit`` are wall-clock safety limits, and
a task cut by them says so (``limit_hit`` = "clock"), since its result then depends on the
machine; a task cut by its work limit has ``limit_hit`` = "work" and is reproducible.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pandas as pd

from schedbench.hall.latex import fmt_cell, tabular, tex_text
from schedbench.scheduling.registry import get_algorithm
from schedbench.hall.seeds import derived_seed

__all__ = ["TASK_KEYS", "check_search", "run_task", "collect_search", "search_table_tex"]

#: The deterministic work limit of an exact task that gives none (CP-SAT units, hall/effort.py).
EXACT_WORK_LIMIT = 60.0

#: What a task's optional keys default to (the only place: the ``search`` section is checked here,
#: not by the config schema; :func:`task_setting` reads them, so do the run planner and the job).
TASK_DEFAULTS = {
    "objective": "ratio",
    "opt": 1,
    "time_limit": 60.0,
    "work_limit": EXACT_WORK_LIMIT,
    "budget_seconds": 600.0,
}

#: Keys of a task and whether they are required.
TASK_KEYS = {
    "algorithm": True,
    "method": True,
    "m": True,
    "n": False,
    "eps": False,
    "params": False,
    "problem": False,
    "opt": False,
    "objective": False,
    "sizes": False,
    "release_window": False,
    "time_limit": False,
    "work_limit": False,
    "max_evals": False,
    "budget_seconds": False,
}
#: Task keys whose null means what leaving them out means (a plain algorithm's ε, no parameters,
#: the search's own job count); any other key given as null is an error naming it.
NULLABLE_TASK_KEYS = ("eps", "params", "n", "problem")


def task_setting(task: dict, key: str):
    """A search task's ``key``, its :data:`TASK_DEFAULTS` value when not given."""
    return task.get(key, TASK_DEFAULTS[key])


class SearchConfigError(ValueError):
    """A search task of the config is malformed (the message names the key)."""


def check_search(section: dict | None) -> None:
    """Check the ``search`` section before any job: known keys, known algorithms, an exact model
    for ``method: exact``, numbers in range."""
    if not section:
        return
    from schedbench.scheduling.search import exact_algorithms

    if not isinstance(section, dict):
        raise SearchConfigError(f"search: a mapping with the key 'tasks', got {section!r}")
    tasks = section.get("tasks") or {}
    if not isinstance(tasks, dict):
        raise SearchConfigError(f"search.tasks: a mapping of task names to tasks, got {tasks!r}")
    for name, task in tasks.items():
        where = f"search.tasks.{name}"
        if not isinstance(task, dict):
            raise SearchConfigError(f"{where}: a mapping of keys ({', '.join(TASK_KEYS)}), got {task!r}")
        unknown = sorted(set(task) - set(TASK_KEYS))
        if unknown:
            raise SearchConfigError(f"{where}: unknown key '{unknown[0]}' (keys: {', '.join(TASK_KEYS)})")
        for key, required in TASK_KEYS.items():
            if required and key not in task:
                raise SearchConfigError(f"{where}.{key}: required")
            if key in task and task[key] is None and key not in NULLABLE_TASK_KEYS:
                default = "required" if required else "leave the key out for its default"
                raise SearchConfigError(f"{where}.{key}: needs a value, got null ({default})")
        if not isinstance(task["algorithm"], str):
            raise SearchConfigError(f"{where}.algorithm: a registered algorithm name, got {task['algorithm']!r}")
        if not isinstance(task["method"], str):
            raise SearchConfigError(f"{where}.method: 'exact' or 'blackbox', got {task['method']!r}")
        if task.get("params") is not None and not isinstance(task["params"], dict):
            raise SearchConfigError(f"{where}.params: a mapping of the algorithm's parameters, got {task['params']!r}")
        try:
            cls = get_algorithm(task["algorithm"])
        except KeyError as exc:
            raise SearchConfigError(f"{where}: {exc}") from None
        try:
            cls.resolve_params(dict(task.get("params") or {}))
        except ValueError as exc:
            raise SearchConfigError(f"{where}.params: {exc}") from None
        try:
            cls.check_eps(task.get("eps"))
        except ValueError as exc:
            raise SearchConfigError(f"{where}.eps: {exc}") from None
        if task["method"] not in ("exact", "blackbox"):
            raise SearchConfigError(f"{where}.method: 'exact' or 'blackbox', got {task['method']!r}")
        if task["method"] == "exact" and task["algorithm"] not in exact_algorithms():
            raise SearchConfigError(
                f"{where}.algorithm: no exact model for {task['algorithm']!r} "
                f"(exact models: {', '.join(exact_algorithms())}); use method: blackbox"
            )
        if task["method"] == "blackbox" and "max_evals" not in task:
            raise SearchConfigError(f"{where}.max_evals: required for method: blackbox (a reproducible stop)")
        for key in ("m", "n", "opt", "release_window", "max_evals"):
            v = task.get(key)
            if v is not None and (
                isinstance(v, bool) or not isinstance(v, int) or v < (0 if key == "release_window" else 1)
            ):
                what = "an integer >= 0" if key == "release_window" else "a positive integer"
                raise SearchConfigError(f"{where}.{key}: {what}, got {v!r}")
        for key in ("time_limit", "budget_seconds", "work_limit"):
            v = task.get(key)
            if v is not None and (
                isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v <= 0
            ):
                unit = "work units" if key == "work_limit" else "seconds"
                raise SearchConfigError(f"{where}.{key}: a number of {unit} > 0, got {v!r}")
        if task["method"] == "exact" and task.get("problem") is not None:
            raise SearchConfigError(
                f"{where}.problem: applies to method: blackbox only (the exact models score load or maxflow)"
            )
        if task["method"] == "blackbox" and "work_limit" in task:
            raise SearchConfigError(
                f"{where}.work_limit: applies to method: exact only (a black-box task stops at max_evals)"
            )
        _check_job_arguments(where, task)


def job_arguments(task: dict[str, Any], seed: int) -> dict[str, Any]:
    """The keyword arguments :func:`run_task` passes to the task's search function
    (``worst_case`` for ``method: exact``, ``search_worst`` for ``blackbox``): one place, so that
    the config check tests exactly what the job will run."""
    args: dict[str, Any] = {
        "m": int(task["m"]),
        "eps": task.get("eps"),
        "params": dict(task.get("params") or {}),
        "objective": task_setting(task, "objective"),
        "seed": seed,
    }
    if task.get("n") is not None:
        args["n"] = task["n"]
    for key in ("sizes", "release_window"):
        if key in task:
            args[key] = task[key]
    if task["method"] == "exact":
        args["opt"] = int(task_setting(task, "opt"))
        args["time_limit"] = float(task_setting(task, "time_limit"))
        args["work_limit"] = float(task_setting(task, "work_limit"))
        args["workers"] = 1
    else:
        args["budget_seconds"] = float(task_setting(task, "budget_seconds"))
        args["max_evals"] = int(task["max_evals"])
        args["problem"] = task.get("problem")
    return args


def _check_job_arguments(where: str, task: dict[str, Any]) -> None:
    """The task's arguments checked by the search function's own argument check (sizes,
    objective, release window, unit sizes, the space's size ...), as :func:`run_task` passes
    them, without building a model or playing anything."""
    from schedbench.hall.params import ParameterError
    from schedbench.scheduling.search.blackbox import check_search_worst
    from schedbench.scheduling.search.exact import check_worst_case

    check = check_worst_case if task["method"] == "exact" else check_search_worst
    try:
        check(task["algorithm"], **job_arguments(task, seed=0))
    except ParameterError as exc:
        key = getattr(exc, "argument", None)
        raise SearchConfigError(f"{where}.{key}: {exc}" if key in TASK_KEYS else f"{where}: {exc}") from None


def run_task(
    name: str, task: dict[str, Any], base_seed: int, out: str | Path, run_seconds: float | None = None
) -> dict[str, Any]:
    """Run one task; save the replayed worst case (JSON, instance included) to ``out``.
    ``run_seconds`` (the config's ``plugin_time_limit``): each run of a plug-in in a black-box
    task; past it the task ends with an error naming the plug-in and the task. (An exact task
    runs built-in code only: exact models and the adversaries of its hint are the package's.)"""
    from schedbench.scheduling.play import RunTimeLimitError
    from schedbench.scheduling.search import search_worst, worst_case

    seed = derived_seed(base_seed, "search", name) % (2**31 - 1)
    args = job_arguments(task, seed)
    if task["method"] == "exact":
        wc = worst_case(task["algorithm"], **args)
        limit_hit = wc.extra["stopped_by"] if not wc.proved else ""
    else:
        try:
            wc = search_worst(task["algorithm"], **args, run_seconds=run_seconds)
        except RunTimeLimitError as exc:
            raise RunTimeLimitError(f"{exc}; search task {name}") from None
        limit_hit = "clock" if int(wc.extra.get("evals", 0)) < int(task["max_evals"]) else ""
    wc.extra["task"] = name
    wc.extra["limit_hit"] = limit_hit
    wc.save(out)
    return summary_row(name, wc)


def summary_row(name: str, wc) -> dict[str, Any]:
    """One row of the worst-case table."""
    cls = get_algorithm(wc.algorithm)
    bound = (
        cls.ratio_bound(wc.eps, cls.resolve_params(dict(wc.params)), opt=wc.opt)
        if wc.objective_kind == "ratio"
        else None
    )
    seeds = wc.extra.get("seed_scores") or {}
    key = "ratio" if wc.objective_kind == "ratio" else "rejected_frac_max_prefix"
    seed_best = max((float(s[key]) for s in seeds.values()), default=math.nan)
    return {
        "task": name,
        "algorithm": wc.algorithm,
        "problem": wc.problem,
        "method": wc.method,
        "m": wc.m,
        "n": wc.n,
        "eps": math.nan if wc.eps is None else float(wc.eps),
        "objective_kind": wc.objective_kind,
        "objective": wc.objective,
        "opt": wc.opt,
        "ratio": wc.ratio,
        "value": wc.value,
        "bound": math.nan if wc.bound is None else float(wc.bound),
        "proved": bool(wc.proved),
        "status": wc.status,
        "rejected_frac_max_prefix": wc.rejected_frac_max_prefix,
        "budget_violated": bool(wc.budget_violated),
        "replayed": bool(wc.replayed),
        "limit_hit": _limit_hit(wc.extra.get("limit_hit", "")),
        "ratio_bound": math.nan if bound is None else float(bound),
        "seed_best": seed_best,
        "beats_seeds": bool(wc.extra.get("beats_seeds", False)),
        "seconds": wc.seconds,
    }


def _limit_hit(value) -> str:
    """ "" (none), "work" (deterministic) or "clock" (wall clock); a file of an earlier version
    stored a bool (True: a limit, reported as the clock's, since it may depend on the machine)."""
    if isinstance(value, bool):
        return "clock" if value else ""
    return str(value or "")


def collect_search(paths: list[str | Path]) -> pd.DataFrame:
    """The worst-case table from the tasks' JSON files (re-read, so a rerun of collect needs no search)."""
    from schedbench.scheduling.search import WorstCase

    cases = [WorstCase.load(p) for p in paths]
    rows = [summary_row(wc.extra.get("task", Path(p).stem), wc) for p, wc in zip(paths, cases)]
    return pd.DataFrame(rows) if rows else pd.DataFrame(columns=EMPTY_COLUMNS)


#: The columns of an empty table (a config without search tasks).
EMPTY_COLUMNS = [
    "task",
    "algorithm",
    "problem",
    "method",
    "m",
    "n",
    "eps",
    "objective_kind",
    "objective",
    "opt",
    "ratio",
    "value",
    "bound",
    "proved",
    "status",
    "rejected_frac_max_prefix",
    "budget_violated",
    "replayed",
    "limit_hit",
    "ratio_bound",
    "seed_best",
    "beats_seeds",
    "seconds",
]


def search_table_tex(table: pd.DataFrame, runs: pd.DataFrame | None = None) -> str:
    """Per task: the worst ratio (or prefix rejection) found, certified or not, next to the
    proven upper bound (``ratio_bound``) and to what the hand-made adversaries force — at the
    same m (the black-box search's seeds) and in this config's adversary experiments (largest
    ratio of that algorithm over every adversary run, any m and ε, over proven optima only)."""
    forced = {}
    if runs is not None and not runs.empty:
        adv = runs[runs["claimed_opt"].notna() & (runs["status"] == "ok") & (runs["opt_status"] == "optimal")]
        forced = adv.groupby("algorithm")["ratio"].max().to_dict()
    lines = []
    if table.empty:
        lines.append("\\multicolumn{10}{l}{no search tasks in this config} \\\\")
    for _, r in table.sort_values(["algorithm", "objective_kind", "m", "task"]).iterrows():
        kind = "ratio" if r["objective_kind"] == "ratio" else "prefix rejection"
        found = r["ratio"] if r["objective_kind"] == "ratio" else r["rejected_frac_max_prefix"]
        if r["proved"]:
            cert = "proved"
        elif r["method"] == "cp-sat" and math.isfinite(r["bound"]):
            cert = f"bound {r['bound']:.3g}"
        else:
            hit = {"work": " (work limit)", "clock": " (time limit hit)"}.get(r["limit_hit"], "")
            cert = "best found" + hit
        if r["budget_violated"]:
            cert += ", over budget"
        eps = "--" if not math.isfinite(r["eps"]) else f"{r['eps']:g}"
        cells = [
            tex_text(r["algorithm"]),
            f"{r['method']} ({kind})",
            str(int(r["m"])),
            eps,
            f"{found:.3f}",
            f"{r['opt']:g}",
            cert,
            _num(r["ratio_bound"]),
            _num(r["seed_best"]),
            _num(forced.get(r["algorithm"], math.nan)),
        ]
        lines.append(" & ".join(cells) + " \\\\")
    head = (
        "algorithm & search & $m$ & $\\varepsilon$ & worst found & OPT & certificate & proven bound & "
        "adversary, same $m$ & adversaries (config)"
    )
    return tabular("llrlrrlrrr", head, lines, "pipeline.search.search_table_tex")


def _num(x) -> str:
    return fmt_cell(x, ".3g")
