"""The worst-case search swept over ε (config section ``search.eps_sweep``): how the worst ratio
an algorithm can be pushed to grows as ε shrinks, against the growth its proven bound allows.

One pipeline job per (problem, algorithm) runs the black-box search
(:func:`~schedbench.scheduling.search.search_worst`) at every ε of the sweep, largest ε first.
At each ε the search starts from

* the hand-made adversaries that fit (:func:`~schedbench.scheduling.search.starts.default_seeds`),
  played against the algorithm at this very ε — what they force is kept per ε
  (``adversary_best``), and
* the previous ε's worst case (label :data:`CHAINED`), so a bad structure found at a larger ε is
  pushed further at the smaller one.

Every find is replayed through the real plug-in and the real offline solver (the search does it
before returning); its OPT is proven optimal (the black-box search discards candidates whose OPT
is not), so each ratio is ALG/OPT with OPT exact.

Machines and jobs grow with 1/ε by default: ``m: 1/eps`` (m = ⌈1/ε⌉ rounded up to a power of two,
so the adversaries' m = 2^K constructions fit; the LoadBalancing lower bound Ω(log 1/ε) needs
m ≥ 1/ε machines, and at a fixed m every ratio is capped by an m-dependent constant) and at most
``n = max(3m, ⌈jobs_per_inverse_eps/ε⌉)`` jobs (a rejection budget ε·n below one job rejects
nothing). Both can be fixed instead (``m: 8``, ``n: 64``).

What a finite search shows (docs/worst-case-search.md): each point is a **lower bound** on the
algorithm's worst ratio at that (m, ε) — an instance that exists; a flat curve means the search
did not find growth within its budget, not that there is none; a fitted exponent below the
proven bound's is consistent with the theorem and says nothing about tightness.

Deterministic: the search of (problem, algorithm, ε) is seeded by :func:`derived_seed` of the
section's seed and those three keys and stops at ``max_evals`` evaluations (``budget_seconds``
is a wall-clock safety limit; a point cut by it says so: ``limit_hit`` = "clock").
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any, Sequence

import numpy as np
import pandas as pd

from schedbench.hall.latex import fmt_cell, tex_text
from schedbench.hall.seeds import derived_seed

__all__ = [
    "SWEEP_KEYS",
    "DEFAULT_EPS",
    "CHAINED",
    "EpsSweepConfigError",
    "check_eps_sweep",
    "sweep_pairs",
    "sweep_eps",
    "sweep_size",
    "sweep_limits",
    "sweep_summary",
    "point_file",
    "run_sweep",
    "collect_sweep",
    "growth_table",
    "growth_exponent",
    "growth_fit",
    "bound_kind",
    "increment_per_halving",
    "growth_table_tex",
    "sweep_finding",
]

#: The keys of ``search.eps_sweep`` (problems is required).
SWEEP_KEYS = ("problems", "eps", "m", "n", "jobs_per_inverse_eps", "max_evals", "budget_seconds", "seed")
#: The ε values when the section gives none (the issue's sweep; 1/32 where affordable).
DEFAULT_EPS = (0.5, 0.25, 0.125, 0.0625)
DEFAULT_MAX_EVALS = 200
DEFAULT_BUDGET_SECONDS = 600.0
DEFAULT_JOBS_PER_INVERSE_EPS = 4
#: ``m`` given as this string: machines grow with 1/ε (see the module docstring).
M_INVERSE_EPS = "1/eps"
#: The seed label of the previous ε's worst case (kept apart from the adversaries' scores).
CHAINED = "previous eps"
#: The models whose worst case depends on ε (a plain rule has no ε).
SWEPT_MODELS = ("rejection", "speed")


class EpsSweepConfigError(ValueError):
    """``search.eps_sweep`` is malformed (the message names the key)."""


def _where(key: str = "") -> str:
    return "search.eps_sweep" + (f".{key}" if key else "")


def check_eps_sweep(section: Any) -> None:
    """Check the section before any job: known keys, problems the offline solver proves exactly,
    algorithms that solve the problem and have an ε, numbers in range, the searches' arguments."""
    if section is None:
        return
    from schedbench.scheduling.registry import algorithm_names, get_algorithm
    from schedbench.scheduling.search.starts import EXACT_PROBLEMS

    if not isinstance(section, dict):
        raise EpsSweepConfigError(f"{_where()}: a mapping with the key 'problems', got {section!r}")
    unknown = sorted(set(section) - set(SWEEP_KEYS))
    if unknown:
        raise EpsSweepConfigError(f"{_where(unknown[0])}: unknown key (keys: {', '.join(SWEEP_KEYS)})")
    problems = section.get("problems")
    if not isinstance(problems, dict) or not problems:
        raise EpsSweepConfigError(
            f"{_where('problems')}: required, a mapping of problems ({', '.join(EXACT_PROBLEMS)}) to lists "
            f"of algorithms, got {problems!r}"
        )
    for problem, algorithms in problems.items():
        where = _where(f"problems.{problem}")
        if problem not in EXACT_PROBLEMS:
            raise EpsSweepConfigError(f"{where}: not a problem with an exact OPT ({', '.join(EXACT_PROBLEMS)})")
        if not isinstance(algorithms, list) or not algorithms:
            raise EpsSweepConfigError(f"{where}: a non-empty list of algorithm names, got {algorithms!r}")
        if len(set(map(str, algorithms))) != len(algorithms):
            raise EpsSweepConfigError(f"{where}: an algorithm is listed twice: {algorithms!r}")
        for name in algorithms:
            if not isinstance(name, str) or name not in algorithm_names():
                raise EpsSweepConfigError(f"{where}: {name!r} is not a registered algorithm")
            cls = get_algorithm(name)
            if problem not in cls.solved_problems():
                raise EpsSweepConfigError(f"{where}: {name!r} solves {', '.join(cls.solved_problems())}, not {problem}")
            if cls.model not in SWEPT_MODELS:
                raise EpsSweepConfigError(
                    f"{where}: {name!r} is a plain rule (model {cls.model!r}): it has no ε to sweep"
                )
    eps = section.get("eps", list(DEFAULT_EPS))
    if not isinstance(eps, list) or len(eps) < 2:
        raise EpsSweepConfigError(f"{_where('eps')}: a list of at least two ε values in (0, 1), got {eps!r}")
    for e in eps:
        if isinstance(e, bool) or not isinstance(e, (int, float)) or not math.isfinite(e) or not 0 < e < 1:
            raise EpsSweepConfigError(f"{_where('eps')}: every ε must be a number in (0, 1), got {e!r}")
    if len(set(eps)) != len(eps):
        raise EpsSweepConfigError(f"{_where('eps')}: a value is listed twice: {eps!r}")
    m = section.get("m", M_INVERSE_EPS)
    if m != M_INVERSE_EPS and (isinstance(m, bool) or not isinstance(m, int) or m < 1):
        raise EpsSweepConfigError(f"{_where('m')}: a positive integer or {M_INVERSE_EPS!r}, got {m!r}")
    for key in ("n", "jobs_per_inverse_eps", "max_evals"):
        v = section.get(key)
        if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < 1):
            raise EpsSweepConfigError(f"{_where(key)}: a positive integer, got {v!r}")
    v = section.get("seed")
    if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < 0):
        raise EpsSweepConfigError(f"{_where('seed')}: an integer >= 0, got {v!r}")
    v = section.get("budget_seconds")
    if v is not None and (isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v <= 0):
        raise EpsSweepConfigError(f"{_where('budget_seconds')}: a number of seconds > 0, got {v!r}")
    _check_search_arguments(section)


def _check_search_arguments(section: dict) -> None:
    """Every point's arguments through the search's own argument check (machines, jobs, ε of the
    algorithm), without playing anything."""
    from schedbench.hall.params import ParameterError
    from schedbench.scheduling.registry import get_algorithm
    from schedbench.scheduling.search.blackbox import check_search_worst

    for problem, algorithm in sweep_pairs(section):
        for eps in sweep_eps(section):
            m, n = sweep_size(section, eps)
            where = _where(f"problems.{problem}")
            try:
                get_algorithm(algorithm).check_eps(eps)
                check_search_worst(algorithm, m, n=n, eps=eps, problem=problem, **sweep_limits(section))
            except (ParameterError, ValueError) as exc:
                key = getattr(exc, "argument", None)
                where = _where(key) if key in SWEEP_KEYS else where
                raise EpsSweepConfigError(f"{where}: {algorithm} at ε = {eps:g}: {exc}") from None


def sweep_limits(section: dict) -> dict:
    """The stop of every point's search: `max_evals` candidates, `budget_seconds` of wall clock
    (a key missing or null: its default, as for `n` and `m`)."""
    evals, seconds = section.get("max_evals"), section.get("budget_seconds")
    return {
        "max_evals": DEFAULT_MAX_EVALS if evals is None else int(evals),
        "budget_seconds": DEFAULT_BUDGET_SECONDS if seconds is None else float(seconds),
    }


def sweep_pairs(section: dict | None) -> list[tuple[str, str]]:
    """(problem, algorithm) of every sweep, in config order."""
    if not section:
        return []
    return [(p, a) for p, algorithms in section["problems"].items() for a in algorithms]


def sweep_eps(section: dict) -> list[float]:
    """The sweep's ε values, largest first (the order the chain runs in)."""
    return sorted((float(e) for e in section.get("eps", DEFAULT_EPS)), reverse=True)


def sweep_size(section: dict, eps: float) -> tuple[int, int]:
    """(m, n) of the search at ``eps`` (see the module docstring)."""
    m = section.get("m", M_INVERSE_EPS)
    if m == M_INVERSE_EPS:
        m = 1 << max(0, math.ceil(math.log2(1.0 / eps) - 1e-9))
    n = section.get("n")
    if n is None:
        per = int(section.get("jobs_per_inverse_eps", DEFAULT_JOBS_PER_INVERSE_EPS))
        n = max(3 * int(m), math.ceil(per / eps - 1e-9))
    return int(m), int(n)


def sweep_summary(section: dict | None) -> dict | None:
    """What the paper quotes of the sweep (its ε values and candidates per point, defaults
    applied), None without one."""
    if not section:
        return None
    return {"eps": sweep_eps(section), "max_evals": sweep_limits(section)["max_evals"]}


def point_file(root: str | Path, problem: str, algorithm: str, eps: float) -> Path:
    """Where the worst case of one (problem, algorithm, ε) point is written."""
    return Path(root) / problem / algorithm / f"eps_{float(eps):g}.json"


def run_sweep(problem: str, algorithm: str, section: dict, base_seed: int, outputs: Sequence[str | Path]) -> list[dict]:
    """Run one (problem, algorithm) sweep; write each ε's replayed worst case to its output (the
    outputs in :func:`sweep_eps` order). Returns the table rows."""
    from schedbench.scheduling.search import search_worst
    from schedbench.scheduling.search.starts import default_seeds
    from schedbench.scheduling.search.result import instance_from_dict, instance_to_dict

    eps_list = sweep_eps(section)
    if len(outputs) != len(eps_list):
        raise ValueError(f"{len(outputs)} outputs for {len(eps_list)} ε values")
    rows, previous = [], None
    for eps, out in zip(eps_list, outputs):
        m, n = sweep_size(section, eps)
        seeds: list[Any] = list(default_seeds(algorithm, m, eps, problem))
        if previous is not None:
            # the search reads a seed with fewer machines as the same jobs on m machines
            seeds.append(instance_from_dict(instance_to_dict(previous.instance), meta={"label": CHAINED}))
        seed = derived_seed(base_seed, "eps_sweep", problem, algorithm, f"{eps:g}") % (2**31 - 1)
        wc = search_worst(
            algorithm, m=m, n=n, eps=eps, problem=problem, seed=seed, seeds_from=seeds, **sweep_limits(section)
        )
        wc.extra["sweep"] = {"problem": problem, "eps_list": eps_list, "chained": previous is not None}
        wc.extra["limit_hit"] = "clock" if int(wc.extra.get("evals", 0)) < sweep_limits(section)["max_evals"] else ""
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
    return {
        "problem": wc.problem,
        "algorithm": wc.algorithm,
        "model": cls.model,
        "eps": float(wc.eps),
        "inv_eps": 1.0 / float(wc.eps),
        "m": int(wc.m),
        "n": int(wc.n),
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
    "problem",
    "algorithm",
    "model",
    "eps",
    "inv_eps",
    "m",
    "n",
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
    return table.sort_values(["problem", "algorithm", "eps"], ascending=[True, True, False], ignore_index=True)


def growth_exponent(inv_eps: Sequence[float], values: Sequence[float]) -> tuple[float, float, float]:
    """(least-squares slope, smallest, largest step slope) of log(value) against log(1/ε): the
    exponent b of value ∝ (1/ε)^b, and its range over consecutive ε steps. NaN when fewer than
    two finite positive points."""
    x, y = np.asarray(inv_eps, dtype=float), np.asarray(values, dtype=float)
    ok = np.isfinite(x) & np.isfinite(y) & (x > 0) & (y > 0)
    x, y = np.log(x[ok]), np.log(y[ok])
    if x.size < 2 or np.ptp(x) == 0:
        return math.nan, math.nan, math.nan
    order = np.argsort(x)
    x, y = x[order], y[order]
    slope = float(np.polyfit(x, y, 1)[0])
    steps = np.diff(y) / np.diff(x)
    return slope, float(steps.min()), float(steps.max())


def increment_per_halving(inv_eps: Sequence[float], values: Sequence[float]) -> float:
    """Least-squares slope of the value against log₂(1/ε): how much the ratio grows each time ε
    halves (constant for Θ(log 1/ε) growth; itself growing for a power of 1/ε). NaN when fewer
    than two finite points."""
    x, y = np.asarray(inv_eps, dtype=float), np.asarray(values, dtype=float)
    ok = np.isfinite(x) & np.isfinite(y) & (x > 0)
    x, y = np.log2(x[ok]), y[ok]
    if x.size < 2 or np.ptp(x) == 0:
        return math.nan
    return float(np.polyfit(x, y, 1)[0])


#: a proven bound of this form grows like a power of log(1/ε) (its fit is against log₂ 1/ε)
_LOG_BOUND = re.compile(r"log\S*\s*1/ε")


def bound_kind(algorithm: str) -> str:
    """``log`` when the algorithm's proven bound is logarithmic in 1/ε (e.g. O(log 1/ε),
    O(log² 1/ε)), else ``power`` (a power of 1/ε, or no bound: the power fit is the default)."""
    from schedbench.scheduling.registry import get_algorithm

    return "log" if _LOG_BOUND.search(get_algorithm(algorithm).bound or "") else "power"


def growth_fit(inv_eps: Sequence[float], values: Sequence[float], kind: str) -> tuple[float, float, float]:
    """The least-squares growth of the worst ratio in the form its bound has, with a 95 % CI
    (Student t, n − 2 degrees of freedom; NaN below three points): ``power``, the exponent b of
    value ∝ (1/ε)^b (slope of log value against log 1/ε); ``log``, the increase per halving of ε
    (slope of the value against log₂ 1/ε)."""
    from scipy import stats

    x, y = np.asarray(inv_eps, dtype=float), np.asarray(values, dtype=float)
    ok = np.isfinite(x) & np.isfinite(y) & (x > 0) & ((y > 0) if kind == "power" else True)
    x, y = x[ok], y[ok]
    x, y = (np.log(x), np.log(y)) if kind == "power" else (np.log2(x), y)
    if x.size < 2 or np.ptp(x) == 0:
        return math.nan, math.nan, math.nan
    fit = stats.linregress(x, y)
    if x.size < 3:
        return float(fit.slope), math.nan, math.nan
    half = float(stats.t.ppf(0.975, x.size - 2) * fit.stderr)
    return float(fit.slope), float(fit.slope - half), float(fit.slope + half)


def growth_table(points: pd.DataFrame) -> pd.DataFrame:
    """Per (problem, algorithm): the fitted growth exponent of the worst ratio found, of what the
    adversaries force, and of the proven bound, with the ratios at the largest and smallest ε."""
    rows = []
    for (problem, algorithm), g in points.groupby(["problem", "algorithm"], sort=True):
        g = g.sort_values("inv_eps")
        found = growth_exponent(g["inv_eps"], g["ratio"])
        adv = growth_exponent(g["inv_eps"], g["adversary_best"])
        bound = growth_exponent(g["inv_eps"], g["ratio_bound"])
        kind = bound_kind(algorithm)
        fit = growth_fit(g["inv_eps"], g["ratio"], kind)
        rows.append(
            {
                "problem": problem,
                "algorithm": algorithm,
                "model": g["model"].iloc[0],
                "points": len(g),
                "inv_eps_min": float(g["inv_eps"].min()),
                "inv_eps_max": float(g["inv_eps"].max()),
                "ratio_first": float(g["ratio"].iloc[0]),
                "ratio_last": float(g["ratio"].iloc[-1]),
                "found_exponent": found[0],
                "found_exponent_min": found[1],
                "found_exponent_max": found[2],
                "increment_per_halving": increment_per_halving(g["inv_eps"], g["ratio"]),
                "fit_kind": kind,
                "fit_slope": fit[0],
                "fit_lo": fit[1],
                "fit_hi": fit[2],
                "adversary_exponent": adv[0],
                "bound_exponent": bound[0],
                "grows": bool(float(g["ratio"].iloc[-1]) > float(g["ratio"].iloc[0]) + 1e-9),
                "clock_limited": int((g["limit_hit"] == "clock").sum()),
            }
        )
    return pd.DataFrame(rows)


def growth_table_tex(growth: pd.DataFrame) -> str:
    """The exponent table: per problem and algorithm, the worst ratio found at the largest and the
    smallest ε, the fitted exponent b (ratio ∝ (1/ε)^b) with its range over consecutive ε steps,
    the ratio's increase per halving of ε (the slope against log₂ 1/ε), the fit in the form of
    the algorithm's proven bound with its 95 % CI (:func:`growth_fit`), the exponent of what
    the adversaries force, and the proven bound's exponent. A dagger marks a sweep with a point
    stopped by the wall clock before its evaluations."""
    lines = [
        "% Generated by schedbench (scheduling.stage.eps_sweep.growth_table_tex); do not edit.",
        "\\begin{tabular}{llrrlrlrr}",
        "\\toprule",
        "problem & algorithm & \\multicolumn{2}{c}{worst found} & exponent found [range] & "
        "per halving & fit in the bound's form & adversaries & proven bound \\\\",
        " & & largest $\\varepsilon$ & smallest $\\varepsilon$ & & of $\\varepsilon$ & [95\\,\\% CI] & exponent & exponent \\\\",
        "\\midrule",
    ]
    if growth.empty:
        lines.append("\\multicolumn{9}{l}{no \\texttt{search.eps\\_sweep} in this config} \\\\")
    for _, r in growth.iterrows():
        found = (
            "--"
            if not math.isfinite(r["found_exponent"])
            else f"{r['found_exponent']:.2f} [{r['found_exponent_min']:.2f}, {r['found_exponent_max']:.2f}]"
        )
        if r["clock_limited"]:
            found += "$^\\dagger$"
        lines.append(
            " & ".join(
                [
                    tex_text(r["problem"]),
                    tex_text(r["algorithm"]),
                    fmt_cell(r["ratio_first"], ".3g"),
                    fmt_cell(r["ratio_last"], ".3g"),
                    found,
                    fmt_cell(r["increment_per_halving"], "+.2f"),
                    _fit_cell(r),
                    fmt_cell(r["adversary_exponent"], ".2f"),
                    fmt_cell(r["bound_exponent"], ".2f"),
                ]
            )
            + " \\\\"
        )
    lines += ["\\bottomrule", "\\end{tabular}"]
    return "\n".join(lines) + "\n"


def _fit_cell(r) -> str:
    """``b = 0.52 [0.31, 0.73]`` (a power of 1/ε) or ``+0.40/halving [0.10, 0.70]`` (a bound
    logarithmic in 1/ε); the interval only from three points on."""
    if not math.isfinite(r["fit_slope"]):
        return "--"
    head = f"$b = {r['fit_slope']:.2f}$" if r["fit_kind"] == "power" else f"${r['fit_slope']:+.2f}$/halving"
    if math.isfinite(r["fit_lo"]):
        head += f" [{r['fit_lo']:.2f}, {r['fit_hi']:.2f}]"
    return head


def sweep_finding(growth: pd.DataFrame | None) -> str:
    """The sweep's finding in one sentence (plain text, generated from the growth table): how many
    sweeps found a worst ratio growing with 1/ε, and the steepest fitted growth."""
    if growth is None or growth.empty:
        return "This config has no ε sweep."
    grows = growth[growth["grows"].astype(bool)]
    text = f"{len(grows)} of {len(growth)} sweeps found a worst ALG/OPT that grows as ε shrinks"
    fitted = growth.dropna(subset=["found_exponent"])
    if len(fitted):
        top = fitted.loc[fitted["found_exponent"].idxmax()]
        bound = top["bound_exponent"]
        text += (
            f"; the steepest is {top['algorithm']} on {top['problem']}, with a fitted exponent of 1/ε of "
            f"{top['found_exponent']:.2f}" + (f" (its proven bound's: {bound:.2f})" if pd.notna(bound) else "")
        )
    return text + "."
