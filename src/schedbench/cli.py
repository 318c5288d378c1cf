"""Command line: ``schedbench list | generate | opt | run | check-config``.

Examples::

    schedbench list
    schedbench generate random-restricted inst.npz --seed 1 --param m=8 --param n=100 --param d=2
    schedbench opt inst.npz --time-limit 30                  # makespan; --problem maxflow for max flow
    schedbench check-config my.yaml                          # YAML line, schema key, cross-field rules
    schedbench run lb-unit-reject inst.npz --eps 0.25 --param alpha_rule=safe
    schedbench run greedy inst.npz --opt --time-limit 10

A bad input (an unreadable or malformed instance file, an unknown name, a bad parameter, an
instance beyond a solver's limits) is reported as one line ``schedbench: error: <what>`` on
stderr (for a file: ``schedbench: error: <file>: <what>``) with exit code 2; bad command-line
syntax is argparse's usage error, also exit code 2. Any other exception is a bug and keeps its
traceback.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from typing import Any

from schedbench.api import run
from schedbench.scheduling.algorithms.base import ParameterError
from schedbench.scheduling.instances.base import FamilyParameterError
from schedbench.scheduling.model import Instance, InstanceError
from schedbench.pipeline.config import ConfigError
from schedbench.scheduling.offline import solve_opt
from schedbench.scheduling.problems import problem_names
from schedbench.scheduling.offline.makespan import SolverLimitError
from schedbench.scheduling.registry import (UnknownNameError, adversary_names, algorithm_names, family_names,
                                            get_algorithm, get_family)


class CommandError(ValueError):
    """A command-line input the parser cannot check (a ``--param`` without ``=``, an unwritable
    output file)."""


#: The errors a user's input causes: one line on stderr, exit code 2. Everything else is a bug.
USER_ERRORS = (InstanceError, ParameterError, UnknownNameError, FamilyParameterError, SolverLimitError,
               CommandError, ConfigError)


def _time_limit(text: str) -> float:
    """argparse type of ``--time-limit``: a finite number of seconds > 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"must be a finite number of seconds > 0, got {text!r}")
    return value


def _value(text: str) -> Any:
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    return {"true": True, "false": False}.get(text.lower(), text)


def _params(items: list[str]) -> dict[str, Any]:
    out = {}
    for item in items:
        if "=" not in item:
            raise CommandError(f"--param expects NAME=VALUE, got {item!r}")
        key, value = item.split("=", 1)
        out[key] = _value(value)
    return out


def _list(_: argparse.Namespace) -> int:
    rows = [get_algorithm(n).describe() for n in algorithm_names()]
    print(f"{'algorithm':<18} {'problem':<8} {'model':<10} {'rule':<5} {'T*':<4} parameters")
    for d in rows:
        params = ", ".join(f"{k}={v}" for k, v in d["parameters"].items()) or "-"
        print(f"{d['name']:<18} {d['problem']:<8} {d['model']:<10} {d['rule']:<5} "
              f"{'yes' if d['needs_opt'] else 'no':<4} {params}")
    print("\nrule: Q = quoted from the source, R = reconstructed, R✓ = reconstructed and checked")
    also = [f"{d['name']} ({', '.join(d['problems'][1:])})" for d in rows if len(d["problems"]) > 1]
    if also:
        print("also solves (give 'problem' in the experiment): " + "; ".join(also))
    print("\nfamilies: " + ", ".join(family_names()))
    print("adversaries: " + ", ".join(adversary_names()))
    return 0


def _generate(args: argparse.Namespace) -> int:
    inst = get_family(args.family).make(args.index, args.seed, **_params(args.param))
    try:
        inst.save(args.output)
    except OSError as exc:
        raise CommandError(f"{args.output}: cannot write the instance ({exc.strerror or exc})") from None
    print(json.dumps({"path": args.output, "n": inst.n, "m": inst.m, **inst.meta}))
    return 0


def _opt(args: argparse.Namespace) -> int:
    res = solve_opt(Instance.load(args.instance), args.problem, time_limit=args.time_limit)
    print(json.dumps(res.as_dict()))
    return 0


def _run(args: argparse.Namespace) -> int:
    params = _params(args.param)
    cls = get_algorithm(args.algorithm)
    cls.resolve_params(params)  # a bad parameter fails before a long OPT solve
    inst = Instance.load(args.instance)
    problem = cls.check_problem(args.problem)
    opt = solve_opt(inst, problem, time_limit=args.time_limit) if args.opt else None
    res = run(cls, inst, eps=args.eps, seed=args.seed, opt=opt, time_limit=args.time_limit, problem=problem, **params)
    ratio = res.ratio if math.isfinite(res.ratio) else None  # strict JSON: no NaN (no OPT without --opt)
    print(json.dumps({
        "algorithm": res.algorithm, "eps": res.eps, "params": res.params,
        "objective": res.objective, "ratio": ratio,
        "opt": None if res.opt is None else res.opt.as_dict(),
        "rejected_frac": res.rejected_frac, "rejected_frac_max_prefix": res.rejected_frac_max_prefix,
        "valid": res.valid, "status": res.status, "errors": res.errors,
    }))
    return 0 if res.valid else 1


def _check_config(args: argparse.Namespace) -> int:
    """What the Snakefile checks before any job, for one file (Snakemake itself reports a YAML
    syntax error in a ``--configfile`` without its line: this names it)."""
    from pathlib import Path

    from schedbench.pipeline.config import check_config, check_schema, load_config_file

    config = load_config_file(args.config)
    schema = Path(__file__).resolve().parents[2] / "workflow" / "schemas" / "config.schema.yaml"
    if not schema.is_file():
        raise CommandError(f"the workflow's config schema is not at {schema} (check-config needs a source checkout)")
    check_schema(config, str(schema))
    check_config(config)
    print(f"{args.config}: ok")
    return 0


def _status(args: argparse.Namespace) -> int:
    """A running or finished pipeline: jobs done, running (with their last progress line),
    failed, and the slowest rules (schedbench.pipeline.status)."""
    from pathlib import Path

    from schedbench.pipeline.status import format_status, read_status

    if not Path(args.directory).is_dir():
        raise CommandError(f"directory: {args.directory} is not a directory")
    if args.top < 1:
        raise CommandError(f"--top: must be >= 1, got {args.top}")
    print(format_status(read_status(args.directory, top=args.top)))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="schedbench", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="registered algorithms and families").set_defaults(func=_list)
    g = sub.add_parser("generate", help="write one instance of a family to an .npz file")
    g.add_argument("family")
    g.add_argument("output")
    g.add_argument("--seed", type=int, default=0)
    g.add_argument("--index", type=int, default=0)
    g.add_argument("--param", action="append", default=[], metavar="NAME=VALUE")
    g.set_defaults(func=_generate)
    o = sub.add_parser("opt", help="offline optimum of an instance file (makespan by default)")
    o.add_argument("instance")
    o.add_argument("--problem", default="load", choices=problem_names(),
                   help="the objective: load (makespan, default), maxflow, ... (schedbench.solve_opt)")
    o.add_argument("--time-limit", type=_time_limit, default=60.0, metavar="SECONDS",
                   help="covers the whole solve, bound included (default 60); on expiry status 'timeout'")
    o.set_defaults(func=_opt)
    r = sub.add_parser("run", help="run and validate one algorithm on an instance file")
    r.add_argument("algorithm")
    r.add_argument("instance")
    r.add_argument("--eps", type=float, default=None)
    r.add_argument("--seed", type=int, default=0)
    r.add_argument("--param", action="append", default=[], metavar="NAME=VALUE")
    r.add_argument("--problem", default=None, choices=problem_names(),
                   help="the problem of the run, one the algorithm solves (default: its own)")
    r.add_argument("--opt", action="store_true",
                   help="compute OPT (schedbench.solve_opt) so that 'ratio' is objective / OPT")
    r.add_argument("--time-limit", type=_time_limit, default=60.0, metavar="SECONDS",
                   help="time limit of an OPT solve (--opt, or an algorithm that assumes T*); default 60")
    r.set_defaults(func=_run)
    c = sub.add_parser("check-config", help="check a pipeline config file as the workflow does (file and "
                       "line of a YAML error, the failing key of a schema or cross-field error)")
    c.add_argument("config")
    c.set_defaults(func=_check_config)
    st = sub.add_parser("status", help="a running or finished pipeline: jobs done, running (with progress), "
                        "failed, and the slowest rules")
    st.add_argument("directory", nargs="?", default=".", help="the pipeline's working directory (default .)")
    st.add_argument("--top", type=int, default=5, help="how many of the slowest rules and jobs (default 5)")
    st.set_defaults(func=_status)
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except BrokenPipeError:  # e.g. `schedbench status | head`: the reader left, nothing is wrong
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except USER_ERRORS as exc:
        print("schedbench: error: " + " ".join(str(exc).split()), file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
