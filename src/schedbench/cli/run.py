"""``schedbench generate`` (one instance of a family to an .npz file), ``schedbench opt`` (its
offline optimum) and ``schedbench run`` (one algorithm on it, validated)."""

from __future__ import annotations

import argparse
import json
import math
import os
from pathlib import Path

from schedbench.cli.common import CommandError, add_problem_option, add_solve_limits, nonneg_int, parse_params
from schedbench.hall.params import ParameterError
from schedbench.scheduling.model import Instance
from schedbench.scheduling.problems import problem_names
from schedbench.scheduling.registry import adversary_names, algorithm_names, get_adversary, get_algorithm, get_family


def add_commands(sub: argparse._SubParsersAction) -> None:
    """Register ``generate``, ``opt`` and ``run``."""
    g = sub.add_parser("generate", help="write one instance of a family to an .npz file")
    g.add_argument("family")
    g.add_argument("output")
    g.add_argument("--seed", type=nonneg_int, default=0)
    g.add_argument("--index", type=nonneg_int, default=0)
    g.add_argument("--param", action="append", default=[], metavar="NAME=VALUE")
    add_problem_option(
        g, "record the problem the instance is for in its meta (schedbench opt then solves it by default)"
    )
    g.set_defaults(func=_generate)
    o = sub.add_parser(
        "opt",
        help="offline optimum of an instance file, for the problem it records (else makespan); "
        "the output's 'problem' and 'problem_from' say which was solved and why",
    )
    o.add_argument("instance")
    add_problem_option(
        o,
        "the objective (schedbench.solve_opt); default: the problem the instance's meta records "
        "(its 'problem', or the adversary that realised it), else load (makespan)",
    )
    add_solve_limits(o, "the solve")
    o.set_defaults(func=_opt)
    r = sub.add_parser("run", help="run and validate one algorithm on an instance file")
    r.add_argument("algorithm")
    r.add_argument("instance")
    r.add_argument("--eps", type=float, default=None)
    r.add_argument("--seed", type=nonneg_int, default=0)
    r.add_argument("--param", action="append", default=[], metavar="NAME=VALUE")
    add_problem_option(r, "the problem of the run, one the algorithm solves (default: its own)")
    r.add_argument(
        "--opt", action="store_true", help="compute OPT (schedbench.solve_opt) so that 'ratio' is objective / OPT"
    )
    add_solve_limits(r, "an OPT solve (--opt, or an algorithm that assumes T*)")
    r.set_defaults(func=_run)


def _generate(args: argparse.Namespace) -> int:
    inst = get_family(args.family).make(args.index, args.seed, **parse_params(args.param))
    if args.problem is not None:
        inst.meta["problem"] = args.problem  # `schedbench opt` and `run` read it
    try:
        inst.save(args.output)
    except OSError as exc:
        raise CommandError(f"{args.output}: cannot write the instance ({exc.strerror or exc})") from None
    print(json.dumps({"path": args.output, "n": inst.n, "m": inst.m, **inst.meta}))
    return 0


def _experiment_runs_problem(path: str | os.PathLike, experiment: str) -> str | None:
    """The problem the pipeline's run tables record for ``experiment``, read beside an instance
    file of it (``results/<experiment>/instances/batch-*/NNNN.npz`` → ``results/<experiment>/
    online/**.parquet``, else ``results/runs.parquet``): None if there are none or they disagree."""
    import pyarrow.parquet as pq

    here = Path(path).resolve()
    exp_dir = next((p for p in here.parents if p.name == experiment), None)
    if exp_dir is None:
        return None
    tables = sorted((exp_dir / "online").rglob("*.parquet"))[:1] or [exp_dir.parent / "runs.parquet"]
    for table in tables:
        try:
            data = pq.read_table(table, columns=["experiment", "problem"]).to_pandas()
        except Exception:  # absent, unreadable or another layout: the instance records nothing usable
            continue
        found = set(data.loc[data["experiment"] == experiment, "problem"].dropna())
        if len(found) == 1:
            return str(found.pop())
    return None


def instance_problem(inst: Instance, path: str | os.PathLike | None = None) -> tuple[str | None, str]:
    """The problem an instance file belongs to, from its own ``meta``, and where that was read:
    ``meta["problem"]`` (written by ``schedbench generate --problem``), else the problem of the
    adversary that realised it (``meta["adversary"]`` with its parameters), else the problem of
    the algorithm it was realised against, else — for a pipeline instance (``meta["experiment"]``)
    — the problem its experiment's run tables record beside the file. (None, why) when nothing
    records one: a family instance serves every problem."""
    meta = inst.meta
    problem = meta.get("problem")
    if isinstance(problem, str) and problem in problem_names():
        return problem, "the instance's meta (problem)"
    adversary = meta.get("adversary")
    if isinstance(adversary, str) and adversary in adversary_names():
        adv = get_adversary(adversary)
        try:
            params = adv.resolve_params(dict(meta.get("adversary_params") or {}), eps=meta.get("eps"))
            return adv.problem_for(params), f"the instance's meta (adversary {adversary})"
        except ParameterError:
            return adv.problem, f"the instance's meta (adversary {adversary})"
    algorithm = meta.get("algorithm")
    if isinstance(algorithm, str) and algorithm in algorithm_names():
        return get_algorithm(algorithm).problem, f"the instance's meta (played by algorithm {algorithm})"
    experiment = meta.get("experiment")
    if isinstance(experiment, str) and path is not None:
        problem = _experiment_runs_problem(path, experiment)
        if problem in problem_names():
            return problem, f"the run tables of its experiment {experiment}"
    return None, "the instance records no problem"


def _opt(args: argparse.Namespace) -> int:
    inst = Instance.load(args.instance)
    if args.problem is not None:
        problem, source = args.problem, "--problem"
    else:
        problem, source = instance_problem(inst, args.instance)
        if problem is None:
            problem, source = "load", source + "; default load (makespan): give --problem for another"
    from schedbench.scheduling.offline import solve_opt

    res = solve_opt(inst, problem, time_limit=args.time_limit, work_limit=args.work_limit)
    print(json.dumps({**res.as_dict(), "problem": problem, "problem_from": source}))
    return 0


def _run(args: argparse.Namespace) -> int:
    params = parse_params(args.param)
    cls = get_algorithm(args.algorithm)
    cls.resolve_params(params)  # a bad parameter fails before a long OPT solve
    inst = Instance.load(args.instance)
    problem = cls.check_problem(args.problem)
    limits = {"time_limit": args.time_limit, "work_limit": args.work_limit}
    from schedbench.api import run

    res = run(cls, inst, eps=args.eps, seed=args.seed, solve=args.opt, problem=problem, **limits, **params)
    ratio = res.ratio if math.isfinite(res.ratio) else None  # strict JSON: no NaN (no OPT without --opt)
    print(
        json.dumps(
            {
                "algorithm": res.algorithm,
                "eps": res.eps,
                "params": res.params,
                "objective": res.objective,
                "ratio": ratio,
                "opt": None if res.opt is None else res.opt.as_dict(),
                "rejected_frac": res.rejected_frac,
                "rejected_frac_max_prefix": res.rejected_frac_max_prefix,
                "valid": res.valid,
                "status": res.status,
                "errors": res.errors,
            }
        )
    )
    return 0 if res.valid else 1
