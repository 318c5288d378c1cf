"""The worst-case search swept over ε and over m (config section ``search.eps_sweep``): how the
worst ratio an algorithm can be pushed to grows as ε shrinks, or as machines are added at a fixed
ε, against the growth its proven bound allows.

The section holds **series** (``series``: name → settings; without it, one series
``m_inverse_eps`` of the section's own settings). Every key of the section other than ``seed`` and
``series`` is a default a series may override:

* an **ε series** (``m`` a number or ``1/eps``) sweeps the ``eps`` list at that m;
* an **m series** (``m`` a list) sweeps those machine counts at one ``eps`` (a number).

Sizes. ``m: 1/eps`` is m = ⌈1/ε⌉ rounded up to a power of two, so the adversaries' m = 2^K
constructions fit (the LoadBalancing lower bound Ω(log 1/ε) needs m ≥ 1/ε machines) — such a
series grows m and ε together, so it measures the two at once. A fixed-m series separates them:
at a fixed m every ratio is capped by an m-dependent constant, so growth there is growth in 1/ε.
``min_jobs_per_inverse_eps: k`` makes every candidate hold at least ⌈k/ε⌉ jobs (seeds shorter
than that are repeated, :func:`~schedbench.scheduling.search.blackbox.pad_jobs`), so the
rejection budget allows at least k rejections and a rejection policy's budget is really in play;
at most ``n = max(3m, ⌈jobs_per_inverse_eps/ε⌉, the minimum)`` jobs. ``n`` fixes the most instead.

One pipeline job per (series, problem, algorithm) runs the black-box search
(:func:`~schedbench.scheduling.search.search_worst`) at every point of its series in chain order
(largest ε first; smallest m first). At each point the search starts from

* the hand-made adversaries that fit (:func:`~schedbench.scheduling.search.starts.default_seeds`),
  played against the algorithm at this very point — what they force is kept (``adversary_best``),
* the previous point's worst case (label :data:`CHAINED`), so a bad structure found at a larger ε
  (or fewer machines) is pushed further at the next point.

Every find is replayed through the real plug-in and the real offline solver (the search does it
before returning); its OPT is proven optimal (the black-box search discards candidates whose OPT
is not), so each ratio is ALG/OPT with OPT exact.

What a finite search shows (docs/worst-case-search.md): each point is a **lower bound** on the
algorithm's worst ratio at that (m, ε) — an instance that exists; a flat curve means the search
did not find growth within its budget, not that there is none; a fitted exponent below the
proven bound's is consistent with the theorem and says nothing about tightness.

The growth fits, the paper's table and the finding are in
:mod:`~schedbench.scheduling.stage.eps_sweep_report`.

Deterministic: the search of a point is seeded by :func:`derived_seed` of the section's seed, the
series, problem, algorithm, ε and m, and stops at ``max_evals`` evaluations (``budget_seconds``
is a wall-clock safety limit; a point cut by it says so: ``limit_hit`` = "clock").
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any, Sequence

import pandas as pd

from schedbench.hall.seeds import derived_seed
from schedbench.scheduling.budget import ceil_log2, ceil_over_eps
from schedbench.scheduling.stage.section_checks import check_eps_values, check_known_keys, is_eps

__all__ = [
    "SWEEP_KEYS",
    "SERIES_KEYS",
    "DEFAULT_EPS",
    "DEFAULT_SERIES",
    "CHAINED",
    "EpsSweepConfigError",
    "check_eps_sweep",
    "sweep_series",
    "series_kind",
    "series_points",
    "sweep_jobs",
    "sweep_pairs",
    "sweep_eps",
    "sweep_size",
    "sweep_min_jobs",
    "sweep_limits",
    "sweep_summary",
    "point_name",
    "point_files",
    "sweep_directories",
    "run_sweep",
    "collect_sweep",
]

#: What a series sets (each defaults to the section's own value).
SERIES_KEYS = (
    "problems",
    "eps",
    "m",
    "n",
    "jobs_per_inverse_eps",
    "min_jobs_per_inverse_eps",
    "max_evals",
    "budget_seconds",
)
#: The keys of ``search.eps_sweep`` (problems is required, in the section or in every series).
SWEEP_KEYS = (*SERIES_KEYS, "seed", "series")
#: The ε values when the section gives none.
DEFAULT_EPS = (0.5, 0.25, 0.125, 0.0625)
DEFAULT_MAX_EVALS = 200
DEFAULT_BUDGET_SECONDS = 600.0
DEFAULT_JOBS_PER_INVERSE_EPS = 4
#: The one series of a section without ``series`` (its machines grow with 1/ε by default).
DEFAULT_SERIES = "m_inverse_eps"
#: ``m`` given as this string: machines grow with 1/ε (see the module docstring).
M_INVERSE_EPS = "1/eps"
#: The seed label of the previous point's worst case (kept apart from the adversaries' scores).
CHAINED = "previous point"
#: The models whose worst case depends on ε (a plain rule has no ε).
SWEPT_MODELS = ("rejection", "speed")
_SERIES_NAME = re.compile(r"[a-z][a-z0-9_]*")


class EpsSweepConfigError(ValueError):
    """``search.eps_sweep`` is malformed (the message names the key)."""


def _where(key: str = "", series: str | None = None) -> str:
    head = "search.eps_sweep" + (f".series.{series}" if series is not None else "")
    return head + (f".{key}" if key else "")


def _int_or_none(value: Any) -> bool:
    return value is None or (not isinstance(value, bool) and isinstance(value, int) and value >= 1)


def check_eps_sweep(section: Any) -> None:
    """Check the section before any job: known keys, well-formed series, problems the offline
    solver proves exactly, algorithms that solve the problem and have an ε, numbers in range, and
    every point's arguments through the search's own check."""
    if section is None:
        return
    if not isinstance(section, dict):
        raise EpsSweepConfigError(f"{_where()}: a mapping with the key 'problems', got {section!r}")
    check_known_keys(section, SWEEP_KEYS, _where(), EpsSweepConfigError)
    v = section.get("seed")
    if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < 0):
        raise EpsSweepConfigError(f"{_where('seed')}: an integer >= 0, got {v!r}")
    raw = section.get("series")
    if raw is not None:
        if not isinstance(raw, dict) or not raw:
            raise EpsSweepConfigError(f"{_where('series')}: a mapping of series names to their settings, got {raw!r}")
        for name, entry in raw.items():
            if not isinstance(name, str) or not _SERIES_NAME.fullmatch(name):
                raise EpsSweepConfigError(
                    f"{_where('series')}: a series name is lower case letters, digits and _, got {name!r}"
                )
            if entry is None:
                continue
            if not isinstance(entry, dict):
                raise EpsSweepConfigError(
                    f"{_where(series=name)}: a mapping of {', '.join(SERIES_KEYS)}, got {entry!r}"
                )
            unknown = sorted(set(entry) - set(SERIES_KEYS))
            if unknown:
                raise EpsSweepConfigError(
                    f"{_where(unknown[0], name)}: unknown key (a series sets {', '.join(SERIES_KEYS)})"
                )
    for name, series in sweep_series(section).items():
        _check_series(series, None if raw is None else name)


def _check_series(series: dict, name: str | None) -> None:
    """One merged series (the section's defaults with the series' own keys)."""
    from schedbench.scheduling.registry import algorithm_names, get_algorithm
    from schedbench.scheduling.search.starts import EXACT_PROBLEMS

    def where(key: str) -> str:
        """The key as the user wrote it: in the series when the series sets it, else in the section."""
        if name is None:
            return _where(key)
        if key.split(".")[0] in series.get("_own", ()):
            return _where(key, name)
        return f"{_where(key)} (as used by series {name})"

    problems = series.get("problems")
    if not isinstance(problems, dict) or not problems:
        raise EpsSweepConfigError(
            f"{where('problems')}: required, a mapping of problems ({', '.join(EXACT_PROBLEMS)}) to lists "
            f"of algorithms, got {problems!r}"
        )
    for problem, algorithms in problems.items():
        at = where(f"problems.{problem}")
        if problem not in EXACT_PROBLEMS:
            raise EpsSweepConfigError(f"{at}: not a problem with an exact OPT ({', '.join(EXACT_PROBLEMS)})")
        if not isinstance(algorithms, list) or not algorithms:
            raise EpsSweepConfigError(f"{at}: a non-empty list of algorithm names, got {algorithms!r}")
        if len(set(map(str, algorithms))) != len(algorithms):
            raise EpsSweepConfigError(f"{at}: an algorithm is listed twice: {algorithms!r}")
        for algorithm in algorithms:
            if not isinstance(algorithm, str) or algorithm not in algorithm_names():
                raise EpsSweepConfigError(f"{at}: {algorithm!r} is not a registered algorithm")
            cls = get_algorithm(algorithm)
            if problem not in cls.solved_problems():
                raise EpsSweepConfigError(
                    f"{at}: {algorithm!r} solves {', '.join(cls.solved_problems())}, not {problem}"
                )
            if cls.model not in SWEPT_MODELS:
                raise EpsSweepConfigError(
                    f"{at}: {algorithm!r} is a plain rule (model {cls.model!r}): it has no ε to sweep"
                )
    m, eps = series.get("m", M_INVERSE_EPS), series.get("eps", list(DEFAULT_EPS))
    if isinstance(m, list):
        if (
            len(m) < 2
            or any(isinstance(v, bool) or not isinstance(v, int) or v < 1 for v in m)
            or len(set(m)) != len(m)
        ):
            raise EpsSweepConfigError(
                f"{where('m')}: an m series lists at least two distinct machine counts >= 1, got {m!r}"
            )
        if name is not None and "eps" not in series.get("_own", ()):
            raise EpsSweepConfigError(
                f"{_where('eps', name)}: an m series (m a list) gives its one ε here, a number in (0, 1)"
            )
        if not is_eps(eps):
            raise EpsSweepConfigError(
                f"{where('eps')}: an m series (m a list) runs at one ε, a number in (0, 1), got {eps!r}"
            )
    else:
        if m != M_INVERSE_EPS and (isinstance(m, bool) or not isinstance(m, int) or m < 1):
            raise EpsSweepConfigError(
                f"{where('m')}: a positive integer, {M_INVERSE_EPS!r}, or a list of them (an m series), got {m!r}"
            )
        if not isinstance(eps, list) or len(eps) < 2:
            raise EpsSweepConfigError(f"{where('eps')}: a list of at least two ε values in (0, 1), got {eps!r}")
        check_eps_values(eps, where("eps"), EpsSweepConfigError)
    for key in ("n", "jobs_per_inverse_eps", "min_jobs_per_inverse_eps", "max_evals"):
        if not _int_or_none(series.get(key)):
            raise EpsSweepConfigError(f"{where(key)}: a positive integer, got {series.get(key)!r}")
    v = series.get("budget_seconds")
    if v is not None and (isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v <= 0):
        raise EpsSweepConfigError(f"{where('budget_seconds')}: a number of seconds > 0, got {v!r}")
    _check_search_arguments(series, where)


def _check_search_arguments(series: dict, where) -> None:
    """Every point's arguments through the search's own argument check (machines, jobs, ε of the
    algorithm), without playing anything."""
    from schedbench.hall.params import ParameterError
    from schedbench.scheduling.registry import get_algorithm
    from schedbench.scheduling.search.blackbox import check_search_worst

    # a derived n too large is the fault of the key that made it (n itself when it is set)
    to_key = {"min_jobs": "min_jobs_per_inverse_eps"}
    if series.get("n") is None:
        to_key["n"] = "min_jobs_per_inverse_eps" if series.get("min_jobs_per_inverse_eps") else "jobs_per_inverse_eps"
    for problem, algorithms in series["problems"].items():
        for algorithm in algorithms:
            for eps, m in series_points(series):
                _, n = sweep_size(series, eps, m)
                try:
                    get_algorithm(algorithm).check_eps(eps)
                    check_search_worst(
                        algorithm,
                        m,
                        n=n,
                        eps=eps,
                        problem=problem,
                        min_jobs=sweep_min_jobs(series, eps),
                        **sweep_limits(series),
                    )
                except (ParameterError, ValueError) as exc:
                    key = to_key.get(getattr(exc, "argument", None), getattr(exc, "argument", None))
                    at = where(key) if key in SERIES_KEYS else where(f"problems.{problem}")
                    raise EpsSweepConfigError(f"{at}: {algorithm} at ε = {eps:g}, m = {m}: {exc}") from None


def sweep_series(section: dict | None) -> dict[str, dict]:
    """Name → merged settings of every series (the section's keys as defaults, the series' own
    over them; ``_own`` lists the keys the series set itself), in config order."""
    if not section:
        return {}
    defaults = {k: v for k, v in section.items() if k in SERIES_KEYS}
    raw = section.get("series")
    if raw is None:
        return {DEFAULT_SERIES: {**defaults, "_own": ()}}
    return {name: {**defaults, **(entry or {}), "_own": tuple(entry or ())} for name, entry in raw.items()}


def series_kind(series: dict) -> str:
    """``m`` when the series sweeps machine counts at one ε, else ``eps``."""
    return "m" if isinstance(series.get("m"), list) else "eps"


def sweep_eps(series: dict) -> list[float]:
    """The ε values of a series, largest first (the order the chain runs in); one for an m series."""
    if series_kind(series) == "m":
        return [float(series["eps"])]
    return sorted((float(e) for e in series.get("eps", DEFAULT_EPS)), reverse=True)


def series_points(series: dict) -> list[tuple[float, int]]:
    """(ε, m) of every point of a series in chain order: largest ε first, or fewest machines first."""
    if series_kind(series) == "m":
        eps = float(series["eps"])
        return [(eps, int(m)) for m in sorted(series["m"])]
    return [(eps, sweep_size(series, eps)[0]) for eps in sweep_eps(series)]


def sweep_min_jobs(series: dict, eps: float) -> int:
    """The fewest jobs a candidate holds at ``eps``: ⌈min_jobs_per_inverse_eps/ε⌉ (1 without)."""
    k = series.get("min_jobs_per_inverse_eps")
    return 1 if k is None else ceil_over_eps(int(k), eps)


def sweep_size(series: dict, eps: float, m: int | None = None) -> tuple[int, int]:
    """(m, n) of the search at ``eps`` (``m`` given for an m series; see the module docstring)."""
    if m is None:
        m = series.get("m", M_INVERSE_EPS)
        if m == M_INVERSE_EPS:
            m = 1 << ceil_log2(1.0 / eps)
    n = series.get("n")
    if n is None:
        per = int(series.get("jobs_per_inverse_eps") or DEFAULT_JOBS_PER_INVERSE_EPS)
        n = max(3 * int(m), ceil_over_eps(per, eps), sweep_min_jobs(series, eps))
    return int(m), int(n)


def sweep_limits(series: dict) -> dict:
    """The stop of every point's search: `max_evals` candidates, `budget_seconds` of wall clock
    (a key missing or null: its default, as for `n` and `m`)."""
    evals, seconds = series.get("max_evals"), series.get("budget_seconds")
    return {
        "max_evals": DEFAULT_MAX_EVALS if evals is None else int(evals),
        "budget_seconds": DEFAULT_BUDGET_SECONDS if seconds is None else float(seconds),
    }


def sweep_jobs(section: dict | None) -> list[tuple[str, str, str]]:
    """(series, problem, algorithm) of every pipeline job, in config order."""
    return [
        (name, p, a)
        for name, series in sweep_series(section).items()
        for p, algorithms in series["problems"].items()
        for a in algorithms
    ]


def sweep_pairs(section: dict | None) -> list[tuple[str, str]]:
    """(problem, algorithm) of every sweep over all series, each once, in config order."""
    return list(dict.fromkeys((p, a) for _, p, a in sweep_jobs(section)))


def sweep_summary(section: dict | None) -> dict | None:
    """What the paper quotes of the sweep, defaults applied: every ε of its ε series, the
    candidates per point (each value used), and its series in words (plain text, by their machines
    and ε, not their config names); None without a sweep."""
    if not section:
        return None
    series = sweep_series(section)
    words = []
    for s in series.values():
        pts = series_points(s)
        k = s.get("min_jobs_per_inverse_eps")
        jobs = f", at least {int(k)}/ε jobs" if k else ""
        if series_kind(s) == "m":
            words.append(f"ε = {pts[0][0]:g} with m from {pts[0][1]} to {pts[-1][1]}{jobs}")
        else:
            ms = sorted({m for _, m in pts})
            machines = f"m = {ms[0]}" if len(ms) == 1 else "m = 1/ε"
            words.append(f"{machines} with {len(pts)} values of ε{jobs}")
    return {
        "eps": sorted({e for s in series.values() if series_kind(s) == "eps" for e in sweep_eps(s)}, reverse=True),
        "max_evals": sorted({sweep_limits(s)["max_evals"] for s in series.values()}),
        "series_text": "; ".join(words),
    }


def point_name(eps: float, m: int, kind: str) -> str:
    """The file stem of one point: ``eps_0.125`` in an ε series, ``m_64`` in an m series."""
    return f"m_{int(m)}" if kind == "m" else f"eps_{float(eps):g}"


def point_files(directory: str | Path, section: dict, series: str) -> list[Path]:
    """The worst-case files of one (series, problem, algorithm) job in its output ``directory``
    (``results/eps_sweep/<series>/<problem>/<algorithm>``), one per point in chain order."""
    s = sweep_series(section)[series]
    kind = series_kind(s)
    return [Path(directory) / f"{point_name(e, m, kind)}.json" for e, m in series_points(s)]


def sweep_directories(root: str | Path, section: dict | None) -> list[str]:
    """The output directory of every job of the sweep under ``root`` (:func:`sweep_jobs` order)."""
    return [str(Path(root) / s / p / a) for s, p, a in sweep_jobs(section)]


def run_sweep(
    series: str,
    problem: str,
    algorithm: str,
    section: dict,
    base_seed: int,
    outputs: Sequence[str | Path],
    run_seconds: float | None = None,
) -> list[dict]:
    """Run one (series, problem, algorithm) sweep; write each point's replayed worst case to its
    output (the outputs in :func:`series_points` order). Returns the table rows. ``run_seconds``
    (the config's ``plugin_time_limit``): each run of a plug-in; past it the sweep ends with an
    error naming the plug-in and the point."""
    from schedbench.scheduling.play import RunTimeLimitError
    from schedbench.scheduling.search import search_worst
    from schedbench.scheduling.search.result import instance_from_dict, instance_to_dict
    from schedbench.scheduling.search.starts import default_seeds

    settings = sweep_series(section)[series]
    points = series_points(settings)
    if len(outputs) != len(points):
        raise ValueError(f"{len(outputs)} outputs for {len(points)} points")
    rows, previous = [], None
    for (eps, m), out in zip(points, outputs):
        Path(out).parent.mkdir(parents=True, exist_ok=True)
        _, n = sweep_size(settings, eps, m)
        seeds: list[Any] = list(default_seeds(algorithm, m, eps, problem))
        if previous is not None:
            # the search reads a seed with fewer machines as the same jobs on m machines
            seeds.append(instance_from_dict(instance_to_dict(previous.instance), meta={"label": CHAINED}))
        seed = derived_seed(base_seed, "eps_sweep", series, problem, algorithm, f"{eps:g}", str(m)) % (2**31 - 1)
        try:
            wc = search_worst(
                algorithm,
                m=m,
                n=n,
                eps=eps,
                problem=problem,
                seed=seed,
                seeds_from=seeds,
                min_jobs=sweep_min_jobs(settings, eps),
                run_seconds=run_seconds,
                **sweep_limits(settings),
            )
        except RunTimeLimitError as exc:
            raise RunTimeLimitError(f"{exc}; eps sweep {series}/{problem} at eps {eps:g}, m {m}") from None
        wc.extra["sweep"] = {
            "series": series,
            "kind": series_kind(settings),
            "problem": problem,
            "points": [list(p) for p in points],
            "chained": previous is not None,
        }
        wc.extra["limit_hit"] = "clock" if int(wc.extra.get("evals", 0)) < sweep_limits(settings)["max_evals"] else ""
        wc.save(out)
        rows.append(point_row(wc))
        previous = wc
    return rows


def point_row(wc) -> dict[str, Any]:
    """One row of the sweep table: the worst ratio found at one ε, the best the hand-made
    adversaries force there, and the proven bound at the instance's OPT."""
    from schedbench.scheduling.registry import get_algorithm

    cls = get_algorithm(wc.algorithm)
    bound = cls.ratio_bound(wc.eps, cls.resolve_params(dict(wc.params)), opt=wc.opt)
    seeds = wc.extra.get("seed_scores") or {}
    adversary = [float(s["ratio"]) for label, s in seeds.items() if label != CHAINED]
    chained = seeds.get(CHAINED)
    sweep = wc.extra.get("sweep") or {}
    return {
        "series": str(sweep.get("series", DEFAULT_SERIES)),
        "sweep": str(sweep.get("kind", "eps")),
        "problem": wc.problem,
        "algorithm": wc.algorithm,
        "model": cls.model,
        "eps": float(wc.eps),
        "inv_eps": 1.0 / float(wc.eps),
        "m": int(wc.m),
        "n": int(wc.n),
        "min_jobs": int((wc.space or {}).get("min_jobs", 1)),
        "budget_jobs": float(wc.eps) * int(wc.n),
        "ratio": float(wc.ratio),
        "objective": float(wc.objective),
        "opt": float(wc.opt),
        "opt_status": "optimal",  # the black-box search keeps proven optima only
        "replayed": bool(wc.replayed),
        "adversary_best": max(adversary, default=math.nan),
        "chained_start": math.nan if chained is None else float(chained["ratio"]),
        "ratio_bound": math.nan if bound is None else float(bound),
        "rejected_frac_max_prefix": float(wc.rejected_frac_max_prefix),
        "evals": int(wc.extra.get("evals", 0)),
        "limit_hit": str(wc.extra.get("limit_hit", "")),
        "seconds": float(wc.seconds),
    }


#: Columns of the sweep table, for an empty one (a test holds them equal to :func:`point_row`'s keys).
POINT_COLUMNS = [
    "series",
    "sweep",
    "problem",
    "algorithm",
    "model",
    "eps",
    "inv_eps",
    "m",
    "n",
    "min_jobs",
    "budget_jobs",
    "ratio",
    "objective",
    "opt",
    "opt_status",
    "replayed",
    "adversary_best",
    "chained_start",
    "ratio_bound",
    "rejected_frac_max_prefix",
    "evals",
    "limit_hit",
    "seconds",
]


def collect_sweep(paths: Sequence[str | Path]) -> pd.DataFrame:
    """The sweep table from the points' JSON files."""
    from schedbench.scheduling.search import WorstCase

    rows = [point_row(WorstCase.load(p)) for p in paths]
    table = pd.DataFrame(rows) if rows else pd.DataFrame(columns=POINT_COLUMNS)  # a row's keys are its columns
    return table.sort_values(
        ["series", "problem", "algorithm", "eps", "m"], ascending=[True, True, True, False, True], ignore_index=True
    )
