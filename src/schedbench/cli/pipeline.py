"""The pipeline's commands: ``schedbench check-config`` (a config checked as the workflow checks
it), ``schedbench plan`` (its cost, docs/run-planner.md) and ``schedbench status`` (a running or
finished pipeline)."""

from __future__ import annotations

import argparse
from pathlib import Path

from schedbench.cli.common import CHECKOUT, CommandError


def add_commands(sub: argparse._SubParsersAction) -> None:
    """Register ``check-config``, ``plan`` and ``status``."""
    for name, func, help in (  # the commands of one config file
        (
            "check-config",
            _check_config,
            "check a pipeline config file as the workflow does (file and "
            "line of a YAML error, the failing key of a schema or cross-field error)",
        ),
        (
            "plan",
            _plan,
            "estimate a pipeline config's cost before running it: per experiment and stage the jobs, "
            "runs, work, CPU time on this machine and the largest job's memory (docs/run-planner.md)",
        ),
    ):
        p = sub.add_parser(name, help=help)
        p.add_argument("config")
        p.set_defaults(func=func)
    st = sub.add_parser(
        "status",
        help="a running or finished pipeline: jobs done, running (with progress), failed, and the slowest rules",
    )
    st.add_argument("directory", nargs="?", default=".", help="the pipeline's working directory (default .)")
    st.add_argument("--top", type=int, default=5, help="how many of the slowest rules and jobs (default 5)")
    st.set_defaults(func=_status)


def _checked_plan(path: str, command: str):
    """A config file checked as the Snakefile checks it (file and line of a YAML error, schema,
    cross-field rules), with its run plan and the planner's objection ('' if none)."""
    from schedbench.checks import check_config, plan_config
    from schedbench.hall.config import ConfigError, load_config, read_config
    from schedbench.hall.plan import check_cost
    from schedbench.hall.wing import WingError, section_schemas, use_wings

    schema = CHECKOUT / "workflow" / "schemas" / "config.schema.yaml"
    if not schema.is_file():
        raise CommandError(f"the workflow's config schema is not at {schema} ({command} needs a source checkout)")
    try:  # the wings the config adds from a folder (`wings:`), registered as the Snakefile does
        use_wings(read_config([path]).get("wings"), source="wings")
    except WingError as exc:
        raise ConfigError(str(exc)) from None
    config = load_config([path], schema, section_schemas())
    check_config(config)
    plan = plan_config(config)
    return plan, check_cost(plan, bool(config["accept_cost"])) or ""


def _check_config(args: argparse.Namespace) -> int:
    """What the Snakefile checks before any job, for one file (Snakemake itself reports a YAML
    syntax error in a ``--configfile`` without its line: this names it)."""
    plan, problem = _checked_plan(args.config, "check-config")
    if problem:
        raise CommandError(f"{args.config}: {problem}")
    print(f"{args.config}: ok")
    print(plan.summary())
    return 0


def _plan(args: argparse.Namespace) -> int:
    """The run planner: per experiment and stage, jobs, runs, work, CPU time on this machine
    and the largest job's memory (schedbench.hall.plan, docs/run-planner.md)."""
    from schedbench.hall.plan import format_plan

    plan, problem = _checked_plan(args.config, "plan")
    print(format_plan(plan))
    if problem:
        print(f"the pipeline would refuse this config: {problem}")
    return 0


def _status(args: argparse.Namespace) -> int:
    """A running or finished pipeline: jobs done, running (with their last progress line),
    failed, and the slowest rules (schedbench.hall.status)."""
    from schedbench.hall.status import format_status, read_status

    if not Path(args.directory).is_dir():
        raise CommandError(f"directory: {args.directory} is not a directory")
    if args.top < 1:
        raise CommandError(f"--top: must be >= 1, got {args.top}")
    print(format_status(read_status(args.directory, top=args.top)))
    return 0
