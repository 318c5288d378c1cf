"""What every command module of ``schedbench`` shares: the user-error types (one line on stderr,
exit code 2), the argparse types of numbers and seeds, ``--work-limit``/``--time-limit``,
``--param NAME=VALUE`` and checked output file names."""

from __future__ import annotations

import argparse
import json
import math
import os
from pathlib import Path
from typing import Any, Callable

from schedbench.hall.config import ConfigError
from schedbench.hall.effort import DEFAULT_TIME_LIMIT, DEFAULT_WORK_LIMIT
from schedbench.hall.params import ParameterError
from schedbench.scheduling.instances.base import FamilyParameterError
from schedbench.scheduling.model import InstanceError
from schedbench.scheduling.problems import problem_names
from schedbench.scheduling.registry import PluginError, UnknownNameError
from schedbench.scheduling.scaffold import ScaffoldError

#: the source checkout (config/README.md, workflow/schemas/): src/schedbench/cli/ is three below it
CHECKOUT = Path(__file__).resolve().parents[3]


class CommandError(ValueError):
    """A command-line input the parser cannot check (a ``--param`` without ``=``, an unwritable
    output file)."""


#: The errors a user's input causes: one line on stderr, exit code 2. Everything else is a bug.
#: (The solver's limit error joins them in :func:`user_errors`: the solvers are imported only by
#: the commands that solve, so that ``--help``, ``list`` and ``describe`` start fast.)
USER_ERRORS = (
    InstanceError,
    ParameterError,
    UnknownNameError,
    FamilyParameterError,
    CommandError,
    ConfigError,
    PluginError,
    ScaffoldError,
)


def user_errors() -> tuple[type[BaseException], ...]:
    from schedbench.scheduling.offline.makespan import SolverLimitError

    return USER_ERRORS + (SolverLimitError,)


PLUGINS_HELP = (
    "an out-of-tree plug-in file or folder (algorithms, adversaries, families; repeatable; "
    "also the SCHEDBENCH_PLUGINS environment variable and installed 'schedbench.plugins' entry points)"
)


def parsed(kind: Callable[[str], Any], text: str, expected: str) -> Any:
    """``kind(text)`` (``int`` or ``float``), or the argparse error "expected <expected>, got
    <text>" that every argparse type here gives for a value it cannot read."""
    try:
        return kind(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {expected}, got {text!r}") from None


def at_least(low: int):
    """An argparse type: an integer >= ``low``."""

    def parse(text: str) -> int:
        value = parsed(int, text, f"an integer >= {low}")
        if value < low:
            raise argparse.ArgumentTypeError(f"expected an integer >= {low}, got {value}")
        return value

    return parse


#: seeds and indices (they key random streams, which take no negative keys)
nonneg_int = at_least(0)
#: counts: servers, arrivals, batches, states
positive_int = at_least(1)


def positive(unit: str):
    """An argparse type: a finite number of ``unit`` > 0 (``--work-limit``, ``--time-limit``)."""

    def parse(text: str) -> float:
        value = parsed(float, text, f"a number of {unit}")
        if not (math.isfinite(value) and value > 0):
            raise argparse.ArgumentTypeError(f"must be a finite number of {unit} > 0, got {text!r}")
        return value

    return parse


work_limit = positive("work units")
time_limit = positive("seconds")


def real(low: float | None = None) -> Callable[[str], float]:
    """An argparse type: a finite number, >= ``low`` if given (``--warmup``, ``--beta``)."""

    def parse(text: str) -> float:
        value = parsed(float, text, "a number")
        if not math.isfinite(value) or (low is not None and value < low):
            bound = "" if low is None else f" >= {low:g}"
            raise argparse.ArgumentTypeError(f"must be a finite number{bound}, got {text!r}")
        return value

    return parse


def numbers(what: str, allow_zero: bool = False) -> Callable[[str], list[float]]:
    """An argparse type: comma-separated finite numbers > 0 (>= 0 with ``allow_zero``), e.g. the
    service rates ``--mu 2,1,1``."""
    sign = ">= 0" if allow_zero else "> 0"

    def parse(text: str) -> list[float]:
        out = []
        for item in text.split(","):
            value = parsed(float, item, f"comma-separated {what} {sign}")
            if not (math.isfinite(value) and (value >= 0 if allow_zero else value > 0)):
                raise argparse.ArgumentTypeError(f"every value must be a finite number {sign}, got {item!r}")
            out.append(value)
        return out

    return parse


def json_ready(value: Any) -> Any:
    """``value`` for strict JSON: numpy scalars and arrays as Python numbers and lists, a
    non-finite number as None (NaN: not defined, e.g. E[jobs] of independent sub-jobs)."""
    if isinstance(value, dict):
        return {k: json_ready(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)) or type(value).__name__ == "ndarray":
        return [json_ready(v) for v in value]
    if hasattr(value, "item") and not isinstance(value, (bool, int, float, str)):
        value = value.item()  # a numpy scalar
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def library_call(func: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Any:
    """``func(*args, **kwargs)`` of a wing's public function, whose documented refusal of a bad
    argument (a ValueError naming it, raised before any work) becomes a :class:`CommandError`."""
    try:
        return func(*args, **kwargs)
    except ValueError as exc:
        raise CommandError(str(exc)) from None


def fields(obj: Any, *names: str) -> dict[str, Any]:
    """``obj``'s attributes ``names``, by name and in that order: a command's options handed on as
    its library function's keywords of the same names, or a result's values for its printed row."""
    return {name: getattr(obj, name) for name in names}


def print_row(row: dict[str, Any]) -> None:
    """Print one result as one line of strict JSON (:func:`json_ready`)."""
    print(json.dumps(json_ready(row), ensure_ascii=False))


def point_commands(
    sub: argparse._SubParsersAction,
    model: str,
    help: str,
    simulate: tuple[Callable[[argparse.Namespace], int], str],
    exact: tuple[Callable[[argparse.Namespace], int], str],
) -> tuple[argparse.ArgumentParser, argparse.ArgumentParser]:
    """The ``<model> simulate`` and ``<model> exact`` commands of one point of a queueing model,
    each running its (function, help): their parsers, for the options."""
    cmds = sub.add_parser(model, help=help).add_subparsers(
        dest=f"{model}_command", required=True, metavar="{simulate,exact}"
    )
    parsers = []
    for name, (func, text) in (("simulate", simulate), ("exact", exact)):
        parser = cmds.add_parser(name, help=text)
        parser.set_defaults(func=func)
        parsers.append(parser)
    return parsers[0], parsers[1]


def add_simulation_options(parser: argparse.ArgumentParser, warmup: float, warmup_unit: str) -> None:
    """``--arrivals``, ``--batches``, ``--warmup`` (default ``warmup``, in ``warmup_unit``) and
    ``--seed`` of a ``simulate`` command."""
    parser.add_argument("--arrivals", type=positive_int, required=True, help="post-warm-up arrivals (>= --batches)")
    parser.add_argument("--batches", type=positive_int, default=20, help="batch means (default 20)")
    parser.add_argument(
        "--warmup", type=real(low=0.0), default=warmup, help=f"warm-up in {warmup_unit} (default {warmup:g})"
    )
    parser.add_argument("--seed", type=nonneg_int, default=0, help="the seed (default 0)")


def add_problem_option(parser: argparse.ArgumentParser, help: str) -> None:
    """``--problem``: one of the problems (:func:`schedbench.scheduling.problems.problem_names`),
    default None; ``help`` says what it decides and what stands when it is not given."""
    parser.add_argument("--problem", default=None, choices=problem_names(), help=help)


def add_solve_limits(parser: argparse.ArgumentParser, what: str) -> None:
    """``--work-limit`` and ``--time-limit`` of the OPT solves of a subcommand (offline.solve_opt)."""
    parser.add_argument(
        "--work-limit",
        type=work_limit,
        default=DEFAULT_WORK_LIMIT,
        metavar="UNITS",
        help=f"deterministic work limit of {what} (default {DEFAULT_WORK_LIMIT:g}; a solve that reaches it "
        "reports status 'bound', the same on every machine)",
    )
    parser.add_argument(
        "--time-limit",
        type=time_limit,
        default=DEFAULT_TIME_LIMIT,
        metavar="SECONDS",
        help=f"wall-clock safety net of {what} (default {DEFAULT_TIME_LIMIT:g}); a solve it stops reports status 'timeout'",
    )


def parse_value(text: str) -> Any:
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    return {"true": True, "false": False}.get(text.lower(), text)


def parse_params(items: list[str], option: str = "--param") -> dict[str, Any]:
    out = {}
    for item in items:
        if "=" not in item:
            raise CommandError(f"{option} expects NAME=VALUE, got {item!r}")
        key, value = item.split("=", 1)
        if key in out:
            raise CommandError(
                f"{option} {key}: given twice ({out[key]!r} and {parse_value(value)!r}); give each parameter once"
            )
        out[key] = parse_value(value)
    return out


def writable_output(option: str, path: str, suffixes: tuple[str, ...]) -> None:
    """An output file name the command can write: the right suffix, its folder made (or there)
    and writable, the name not a folder; else a CommandError naming the option."""
    p = Path(path).expanduser()
    if p.suffix.lower() not in suffixes:
        raise CommandError(f"{option} {path}: the file name must end in {' or '.join(suffixes)}")
    if p.is_dir():
        raise CommandError(f"{option} {path}: a folder, not a file name")
    try:
        p.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise CommandError(f"{option} {path}: cannot make its folder {p.parent} ({exc.strerror or exc})") from None
    if not os.access(p.parent, os.W_OK) or (p.exists() and not os.access(p, os.W_OK)):
        raise CommandError(f"{option} {path}: not writable")
