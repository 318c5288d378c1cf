"""``schedbench compare``: a comparison without a config file, through the pipeline's own stage
functions (docs/plugins.md, "Scaffold, check, compare").

:func:`plan` checks a comparison as the pipeline checks an experiment
(:func:`schedbench.scheduling.stage.config.check_experiment`, with the command line's names in
the messages) and settles its problem; :func:`compare` then runs it exactly as the pipeline runs
an experiment named ``compare``: :func:`~schedbench.scheduling.stage.experiment.make_instances`
(or :func:`~schedbench.scheduling.stage.experiment.run_adversary` for an adversary's games),
:func:`~schedbench.scheduling.stage.experiment.solve_offline`,
:func:`~schedbench.scheduling.stage.experiment.run_online_batch` and
:func:`~schedbench.scheduling.stage.results.assemble`, so its rows are the rows a config with
the same settings would give. :func:`summary` reduces them to one row per algorithm (with
parameters) and ε: mean ALG/OPT with a 95 % bootstrap CI over the instances
(:func:`schedbench.hall.stats.bootstrap_ci`), the OPT statuses, rejected fractions and seconds.
"""

from __future__ import annotations

import math
import re
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from schedbench.hall.config import ConfigError
from schedbench.hall.effort import DEFAULT_TIME_LIMIT, DEFAULT_WORK_LIMIT
from schedbench.hall.grids import algorithm_grid
from schedbench.hall.limits import PLUGIN_RUN_SECONDS
from schedbench.hall.params import ParameterError
from schedbench.hall.stats import bootstrap_ci
from schedbench.scheduling.problems import problem_names
from schedbench.scheduling.registry import get_adversary, get_algorithm, get_family
from schedbench.scheduling.stage.config import check_experiment
from schedbench.scheduling.stage.metrics import add_labels, format_value

__all__ = ["Comparison", "CompareError", "plan", "compare", "summary", "format_summary", "EXPERIMENT"]

#: the experiment name the comparison's rows carry (and its seeds are keyed by)
EXPERIMENT = "compare"


class CompareError(ParameterError):
    """A comparison the command line describes cannot run; the message names the argument."""


@dataclass
class Comparison:
    """A checked comparison: the algorithms (name → parameter grid, lists swept), the instance
    source (a family with its parameters and instance count, or an adversary with its
    parameters and games per combination), the ε grid and the problem."""

    algorithms: dict[str, dict[str, Any]]
    eps: list[float]
    problem: str
    family: str | None = None
    adversary: str | None = None
    params: dict[str, Any] = field(default_factory=dict)
    instances: int = 5
    seed: int = 0
    time_limit: float = DEFAULT_TIME_LIMIT
    work_limit: float = DEFAULT_WORK_LIMIT
    plugin_time_limit: float = PLUGIN_RUN_SECONDS

    def experiment(self) -> dict[str, Any]:
        """The comparison as a config experiment (what the pipeline's functions read)."""
        exp: dict[str, Any] = {"eps": list(self.eps), "algorithms": self.algorithms, "problem": self.problem}
        if self.family is not None:
            exp.update(family=self.family, params=self.params, instances=self.instances)
        else:
            exp.update(adversary=self.adversary, params=self.params, seeds=self.instances)
        return exp


#: config key paths of check_experiment's messages -> the command-line arguments they come from
_ARGUMENTS = [
    (re.compile(rf"^{EXPERIMENT}\.algorithms\.([^:]+):"), r"-a \1:"),
    (re.compile(rf"^{EXPERIMENT}\.algorithms:"), "-a:"),
    (re.compile(rf"^{EXPERIMENT}\.params:"), "-p:"),
    (re.compile(rf"^{EXPERIMENT}\.eps:"), "--eps:"),
    (re.compile(rf"^{EXPERIMENT}\.family:"), "-f:"),
    (re.compile(rf"^{EXPERIMENT}\.adversary:"), "--adversary:"),
    (re.compile(rf"^{EXPERIMENT}\.problem:"), "--problem:"),
    (re.compile(rf"^{EXPERIMENT}\.instances:"), "--instances:"),
    (re.compile(rf"^{EXPERIMENT}\.seeds:"), "--instances:"),
    (re.compile(rf"^{EXPERIMENT}:"), "compare:"),
]


def _argument_names(message: str) -> str:
    for pattern, repl in _ARGUMENTS:
        message, hits = pattern.subn(repl, message)
        if hits:
            break
    return (
        message.replace("give 'problem'", "give --problem")
        .replace("with these params", "with these -p values")
        .replace("the experiment's problem is", "the comparison's problem is")
    )


def plan(
    algorithms: dict[str, dict[str, Any]],
    eps: list[float],
    family: str | None = None,
    adversary: str | None = None,
    params: dict[str, Any] | None = None,
    instances: int | None = None,
    problem: str | None = None,
    seed: int = 0,
    time_limit: float = DEFAULT_TIME_LIMIT,
    work_limit: float = DEFAULT_WORK_LIMIT,
    accept_cost: bool = False,
    plugin_time_limit: float = PLUGIN_RUN_SECONDS,
) -> Comparison:
    """Check a comparison and settle its problem: ``problem`` if given (every algorithm must
    solve it; an adversary must build it), else the adversary's, else the algorithms' common
    default problem — algorithms whose default problems differ are an error naming each with
    its problem. ``instances``: family instances (default 5) or games per parameter
    combination against an adversary (default 1). Every error names the argument. A comparison
    the run planner estimates beyond the pipeline's cost gate is refused unless ``accept_cost``.
    A run of a plug-in past ``plugin_time_limit`` seconds stops the comparison, naming it."""
    params = dict(params or {})
    if not algorithms:
        raise CompareError("-a: give at least one algorithm (-a NAME, repeatable)")
    if (family is None) == (adversary is None):
        raise CompareError("give exactly one instance source: -f FAMILY or --adversary NAME")
    if instances is None:
        instances = 5 if family is not None else 1
    if isinstance(instances, bool) or not isinstance(instances, int) or instances < 1:
        raise CompareError(f"--instances: must be an integer >= 1, got {instances!r}")
    if not eps:
        raise CompareError("--eps: give at least one value")
    if isinstance(plugin_time_limit, bool) or not (
        isinstance(plugin_time_limit, (int, float)) and math.isfinite(plugin_time_limit) and plugin_time_limit > 0
    ):
        raise CompareError(f"--plugin-time-limit: seconds, a finite number > 0, got {plugin_time_limit!r}")
    for e in eps:
        if not (isinstance(e, (int, float)) and math.isfinite(e) and 0 < e < 1):
            raise CompareError(f"--eps: every value must be in (0, 1), got {e!r}")
    if problem is not None and problem not in problem_names():
        raise CompareError(f"--problem: unknown problem {problem!r}; one of {', '.join(problem_names())}")
    for name in algorithms:
        try:
            get_algorithm(name)
        except KeyError as exc:
            raise CompareError(f"-a {name}: {exc}") from None
    try:
        if family is not None:
            get_family(family)
        else:
            adv = get_adversary(adversary)
    except KeyError as exc:
        raise CompareError(f"{'-f' if family is not None else '--adversary'}: {exc}") from None
    if problem is None and adversary is not None:
        try:
            problem = adv.problem_for(adv.resolve_params(algorithm_grid(params)[0]))
        except ParameterError as exc:
            raise CompareError(f"-p: {exc}") from None
    if problem is None:
        defaults = {name: get_algorithm(name).problem for name in algorithms}
        if len(set(defaults.values())) > 1:
            raise CompareError(
                "-a: the algorithms solve different problems by default ("
                + ", ".join(f"{n}: {p}" for n, p in sorted(defaults.items()))
                + "); give --problem, one every algorithm solves"
            )
        problem = next(iter(defaults.values()))
    comparison = Comparison(
        algorithms={k: dict(v) for k, v in algorithms.items()},
        eps=[float(e) for e in eps],
        problem=problem,
        family=family,
        adversary=adversary,
        params=params,
        instances=instances,
        seed=int(seed),
        time_limit=float(time_limit),
        work_limit=float(work_limit),
        plugin_time_limit=float(plugin_time_limit),
    )
    try:
        check_experiment(EXPERIMENT, comparison.experiment(), comparison.eps)
    except ConfigError as exc:
        raise CompareError(_argument_names(str(exc))) from None
    if not accept_cost:
        _check_cost(comparison)
    return comparison


def _check_cost(comparison: Comparison) -> None:
    """The pipeline's cost gate for one comparison, before any work (docs/run-planner.md): the
    run planner's estimate of its instances, optima and runs on this machine; over the limit
    (CPU hours, or the largest job's memory) it is refused, naming what to reduce."""
    from schedbench.hall.plan import MAX_CPU_HOURS, Plan, calibration, machine_memory_bytes
    from schedbench.scheduling.stage.plan import plan_scheduling

    config = {
        "eps": comparison.eps,
        "batch_size": comparison.instances,  # compare runs its instances in one batch
        "opt": {"work_limit": comparison.work_limit},
        "experiments": {EXPERIMENT: comparison.experiment()},
    }
    estimate = Plan(plan_scheduling(config), calibration(), machine_memory_bytes())
    problems = []
    if estimate.cpu_hours > MAX_CPU_HOURS:
        problems.append(f"about {estimate.cpu_hours:.3g} h of CPU on this machine (more than {MAX_CPU_HOURS:g} h)")
    if estimate.peak_bytes > 0.8 * estimate.memory:
        problems.append(
            f"about {estimate.peak_bytes / 2**30:.3g} GiB of memory (more than 80 % of this machine's "
            f"{estimate.memory / 2**30:.3g} GiB)"
        )
    if problems:
        raise CompareError(
            "the comparison is estimated at "
            + " and ".join(problems)
            + ": give fewer --instances, a smaller n (-p n=...) or fewer -a/--eps values; "
            "--accept-cost runs it anyway"
        )


def compare(comparison: Comparison, workdir: str | Path | None = None, n_jobs: int = 1) -> pd.DataFrame:
    """Run a checked comparison as the pipeline runs an experiment; return its tidy results
    table (one row per run, OPT joined, ``ratio`` = objective / OPT or its bound). The
    instances are written to ``workdir`` (a temporary folder by default, removed after)."""
    if workdir is None:
        with tempfile.TemporaryDirectory(prefix="schedbench-compare-") as tmp:
            return compare(comparison, tmp, n_jobs)
    from schedbench.scheduling.stage.experiment import make_instances, run_adversary, run_online_batch, solve_offline
    from schedbench.scheduling.stage.results import assemble

    workdir = Path(workdir)
    exp = comparison.experiment()
    c = comparison
    if c.family is not None:
        paths = make_instances(
            EXPERIMENT,
            exp,
            c.seed,
            range(c.instances),
            workdir / "instances",
            problem=c.problem,
            run_seconds=c.plugin_time_limit,
        )
        opt = solve_offline(paths, c.problem, c.time_limit, c.seed, n_jobs=n_jobs, work_limit=c.work_limit)
        runs = [
            run_online_batch(
                paths,
                opt,
                c.algorithms,
                c.eps,
                c.seed,
                n_jobs=n_jobs,
                problem=c.problem,
                run_seconds=c.plugin_time_limit,
            )
        ]
    else:
        runs = []
        for name, grid in sorted(c.algorithms.items()):
            realised = workdir / "realised" / name
            runs.append(run_adversary(EXPERIMENT, exp, name, grid, c.eps, c.seed, realised, c.plugin_time_limit))
        paths = sorted((workdir / "realised").glob("*/*.npz"))
        opt = solve_offline(paths, c.problem, c.time_limit, c.seed, n_jobs=n_jobs, work_limit=c.work_limit)
    return assemble(runs, [opt], {})


def summary(table: pd.DataFrame, n_boot: int = 2000, seed: int = 0) -> pd.DataFrame:
    """One row per algorithm (labelled with the parameters that vary, as the figures do) and
    ε: runs, valid runs, mean ALG/OPT over the valid runs with its 95 % bootstrap CI, the OPT
    statuses of the instances (optimal / bound / timeout), the mean rejected fraction and the
    largest prefix rejected fraction, and the mean seconds per run."""
    data = add_labels(table)
    data["eps_key"] = data["eps"].astype(float).fillna(-1.0)  # plain algorithms: no ε
    rows = []
    for (label, eps), g in data.groupby(["label", "eps_key"], sort=True):
        ok = g[g["status"] == "ok"]
        mean, lo, hi = bootstrap_ci(ok["ratio"].to_numpy(), n_boot=n_boot, seed=seed)
        status = g["opt_status"].value_counts()
        rows.append(
            {
                "algorithm": label,
                "model": g["model"].iloc[0],
                "eps": None if eps < 0 else float(eps),
                "runs": len(g),
                "valid": len(ok),
                "ratio": mean,
                "ratio_lo": lo,
                "ratio_hi": hi,
                "optimal": int(status.get("optimal", 0)),
                "bound": int(status.get("bound", 0)),
                "timeout": int(status.get("timeout", 0)),
                "rejected": float(g["rejected_frac"].mean()),
                "rejected_max_prefix": float(g["rejected_frac_max_prefix"].max()),
                "seconds": float(g["seconds"].mean()),
                "not_valid": ", ".join(
                    f"{n} {s}" for s, n in g.loc[g["status"] != "ok", "status"].value_counts().items()
                ),
                "first_error": _first_error(g),
            }
        )
    return pd.DataFrame(rows)


def _first_error(g: pd.DataFrame) -> str:
    """The first message of a run that did not end ``ok`` (what the validator or the rule's
    error said: the job and the rule broken), on one line; '' if none."""
    if "errors" not in g.columns:
        return ""
    for status, errors in zip(g["status"], g["errors"]):
        if status != "ok" and errors is not None and len(errors):
            text = errors if isinstance(errors, str) else "; ".join(str(e) for e in list(errors)[:1])
            return " ".join(text.split())[:300]
    return ""


def _eps_text(eps, model: str) -> str:
    if eps is None or (isinstance(eps, float) and math.isnan(eps)):  # a plain rule (NaN beside floats)
        return "-"
    return f"{format_value(eps)}" + (" (speed 1)" if model == "speed" and eps == 0 else "")


def _at_eps(eps) -> str:
    return "" if eps is None or (isinstance(eps, float) and math.isnan(eps)) else f" at eps={float(eps):g}"


def format_summary(rows: pd.DataFrame, comparison: Comparison, seconds: float | None = None) -> str:
    """The table ``schedbench compare`` prints, with a header saying what ran."""
    c = comparison
    source = f"family {c.family}" if c.family else f"adversary {c.adversary}"
    given = ", ".join(f"{k}={v}" for k, v in sorted(c.params.items()))
    count = f"{c.instances} instances" if c.family else f"{c.instances} game(s) per combination"
    head = [
        f"{source}" + (f" ({given})" if given else "") + f", problem {c.problem}, {count}, seed {c.seed}",
        "ratio = ALG/OPT over the valid runs (OPT: the proven optimum, else its lower bound), mean [95 % bootstrap CI]",
    ]
    table = []
    for r in rows.to_dict("records"):
        ratio = (
            "n/a" if not math.isfinite(r["ratio"]) else f"{r['ratio']:.3f} [{r['ratio_lo']:.3f}, {r['ratio_hi']:.3f}]"
        )
        table.append(
            [
                r["algorithm"],
                _eps_text(r["eps"], r["model"]),
                f"{r['valid']}/{r['runs']}",
                ratio,
                f"{r['optimal']}/{r['bound']}/{r['timeout']}",
                f"{r['rejected']:.3f}",
                f"{r['rejected_max_prefix']:.3f}",
                f"{r['seconds']:.3f}",
            ]
        )
    titles = ["algorithm", "eps", "valid", "ratio [95% CI]", "OPT opt/bnd/tmo", "rejected", "max prefix", "s/run"]
    widths = [max(len(titles[k]), *(len(row[k]) for row in table)) if table else len(titles[k]) for k in range(8)]
    lines = ["  ".join(t.ljust(w) if k < 2 else t.rjust(w) for k, (t, w) in enumerate(zip(titles, widths)))]
    lines += [
        "  ".join(v.ljust(w) if k < 2 else v.rjust(w) for k, (v, w) in enumerate(zip(row, widths))) for row in table
    ]
    tail = [  # why a run is not counted (budget_violated: rejected past the ε budget; error: it failed)
        f"{r['algorithm']}{_at_eps(r['eps'])}: not counted: {r['not_valid']}"
        + (f" (first: {r['first_error']})" if r.get("first_error") else "")
        for r in rows.to_dict("records")
        if r.get("not_valid")
    ]
    if seconds is not None:
        tail.append(f"wall time {seconds:.1f} s")
    return "\n".join(head + [""] + lines + ([""] + tail if tail else []))


def run_and_format(comparison: Comparison, plot: str | Path | None = None) -> tuple[pd.DataFrame, str]:
    """Run, summarise and format a comparison (and draw its ratio-vs-ε figure to ``plot``)."""
    t0 = time.perf_counter()
    table = compare(comparison)
    rows = summary(table)
    text = format_summary(rows, comparison, seconds=time.perf_counter() - t0)
    if plot is not None:
        from schedbench.scheduling.stage.figures import plot_vs_eps

        plot_vs_eps(table, plot, "ratio", problem=comparison.problem)
    return table, text
