"""``schedbench compare``: algorithms on a family's instances or an adversary's games, with OPT,
as a table (through the pipeline's own stage functions, :mod:`schedbench.scheduling.stage.compare`)."""

from __future__ import annotations

import argparse
import math
from typing import Any

from schedbench.cli.common import (
    CommandError,
    add_problem_option,
    add_solve_limits,
    fields,
    nonneg_int,
    parse_params,
    parse_value,
    parsed,
    time_limit,
    writable_output,
)
from schedbench.hall.grids import repeated
from schedbench.hall.limits import PLUGIN_RUN_SECONDS


def add_commands(sub: argparse._SubParsersAction) -> None:
    """Register ``compare``."""
    cp = sub.add_parser(
        "compare",
        help="run algorithms on a family's instances (or an adversary's games), solve OPT, print "
        "ratio with a 95%% CI, OPT statuses, rejected fractions and seconds per algorithm and eps",
        description="The problem is --problem, else the adversary's, else the algorithms' common default "
        "problem (algorithms whose default problems differ: an error naming them; give --problem). "
        "Runs go through the pipeline's own stage functions (as an experiment named 'compare'); a "
        "speed-model algorithm also runs at eps = 0 (speed 1), a plain one once (eps -). The ratio "
        "is ALG/OPT over the valid runs, OPT the proven optimum or, when not proven, its lower "
        "bound (the OPT column counts optimal/bound/timeout); 'max prefix' is the largest prefix "
        "rejected fraction over the runs.",
    )
    cp.add_argument(
        "-a",
        "--algorithm",
        action="append",
        default=[],
        required=True,
        metavar="NAME[:KEY=VALUE,...]",
        help="an algorithm with its parameters (repeatable); a VALUE a|b sweeps both, e.g. "
        "-a 'lb-unit-reject:alpha_rule=paper|safe'",
    )
    src = cp.add_mutually_exclusive_group(required=True)
    src.add_argument("-f", "--family", default=None, help="the instance family")
    src.add_argument("--adversary", default=None, help="an adaptive adversary instead of a family")
    cp.add_argument(
        "-p",
        "--param",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a parameter of the family or the adversary (repeatable)",
    )
    cp.add_argument(
        "--eps",
        type=_eps_list,
        default=[0.1, 0.25, 0.5],
        metavar="E1,E2,...",
        help="the eps grid, each in (0, 1) (default 0.1,0.25,0.5)",
    )
    cp.add_argument(
        "--instances",
        type=int,
        default=None,
        help="family instances (default 5), or games per parameter combination against an adversary (default 1)",
    )
    add_problem_option(cp, "the problem (default: see the description)")
    cp.add_argument("--seed", type=nonneg_int, default=0, help="the base seed of instances and runs (default 0)")
    add_solve_limits(cp, "each OPT solve")
    cp.add_argument("--plot", default=None, metavar="FILE", help="also draw ALG/OPT vs eps to FILE (.pdf, .png, .svg)")
    cp.add_argument(
        "--accept-cost",
        action="store_true",
        help="run even when the run planner estimates more than the pipeline's cost gate allows (24 h of CPU, "
        "80%% of memory)",
    )
    cp.add_argument("--csv", default=None, metavar="FILE", help="also write every run (the tidy results rows) to FILE")
    cp.add_argument(
        "--plugin-time-limit",
        type=time_limit,
        default=PLUGIN_RUN_SECONDS,
        metavar="SECONDS",
        help=f"wall-clock limit of each run of a plug-in (default {PLUGIN_RUN_SECONDS:g}); one past it stops the "
        "comparison, naming the plug-in, the algorithm and the instance",
    )
    cp.set_defaults(func=_compare)


def _algorithm_spec(text: str) -> tuple[str, dict[str, Any]]:
    """``-a NAME[:KEY=VALUE[,KEY=VALUE...]]``, a VALUE ``a|b`` sweeping both."""
    name, _, rest = text.partition(":")
    name = name.strip()
    if not name:
        raise CommandError(f"-a {text!r}: expected NAME or NAME:KEY=VALUE,...")
    params: dict[str, Any] = {}
    for item in filter(None, (p.strip() for p in rest.split(","))):
        if "=" not in item:
            raise CommandError(f"-a {text!r}: parameter {item!r} is not KEY=VALUE")
        key, value = (x.strip() for x in item.split("=", 1))
        if key in params:
            raise CommandError(f"-a {text!r}: parameter {key!r} is given twice")
        values = [parse_value(v) for v in value.split("|")]
        dup = repeated(values)
        if dup is not None:
            raise CommandError(f"-a {text!r}: parameter {key!r} lists {dup!r} twice (each value once)")
        params[key] = values if len(values) > 1 else values[0]
    return name, params


def _eps_list(text: str) -> list[float]:
    """argparse type of ``--eps``: comma-separated numbers in (0, 1)."""
    out = []
    for item in text.split(","):
        value = parsed(float, item, "comma-separated numbers in (0, 1)")
        if not (math.isfinite(value) and 0 < value < 1):
            raise argparse.ArgumentTypeError(f"every value must be in (0, 1), got {item!r}")
        if value in out:
            raise argparse.ArgumentTypeError(f"{item!r} is listed twice (each ε once)")
        out.append(value)
    return out


def _compare(args: argparse.Namespace) -> int:
    """Algorithms on a family's instances or an adversary's games, with OPT, as a table
    (schedbench.scheduling.stage.compare)."""
    from schedbench.scheduling.stage.compare import plan, run_and_format

    algorithms: dict[str, dict[str, Any]] = {}
    for text in args.algorithm:
        name, params = _algorithm_spec(text)
        if name in algorithms:
            raise CommandError(
                f"-a {name}: given twice; give its parameter values as one list instead, "
                f"e.g. -a '{name}:KEY=VALUE1|VALUE2'"
            )
        algorithms[name] = params
    for option, path, suffixes in (("--plot", args.plot, (".pdf", ".png", ".svg")), ("--csv", args.csv, (".csv",))):
        if path is not None:
            writable_output(option, path, suffixes)  # before the runs: an unwritable path loses no work
    comparison = plan(
        algorithms,
        args.eps,
        params=parse_params(args.param, option="-p"),
        **fields(
            args,
            "family",
            "adversary",
            "instances",
            "problem",
            "seed",
            "time_limit",
            "work_limit",
            "accept_cost",
            "plugin_time_limit",
        ),
    )
    table, text = run_and_format(comparison, plot=args.plot)
    print(text)
    if args.plot is not None:
        print(f"figure: {args.plot}")
    if args.csv is not None:
        try:
            table.to_csv(args.csv, index=False)
        except OSError as exc:
            raise CommandError(f"--csv {args.csv}: cannot write ({exc.strerror or exc})") from None
        print(f"runs: {args.csv}")
    return 0
