"""``schedbench new`` (a documented plug-in file and its test, :mod:`schedbench.scheduling.scaffold`)
and ``schedbench check`` (the conformance checks of a plug-in file or folder)."""

from __future__ import annotations

import argparse

from schedbench.cli.common import add_problem_option
from schedbench.scheduling.registry import KINDS


def add_commands(sub: argparse._SubParsersAction) -> None:
    """Register ``new`` and ``check``."""
    nw = sub.add_parser(
        "new",
        help="write a documented plug-in file (NAME with - -> _) and its test (test_NAME.py, running "
        "schedbench check through the Python API) that pass schedbench check as written",
        description="Write DIR/<name>.py (an algorithm: least-loaded eligible machine, never rejects; an "
        "adversary: a pairing trap with OPT = 1; a family: random restricted assignment) and "
        "DIR/test_<name>.py. Never overwrites a file; refuses a name already registered as that kind.",
    )
    nw.add_argument("kind", choices=KINDS)
    nw.add_argument("name", help="the registry name, e.g. my-srpt (letters, digits, single - or _)")
    add_problem_option(nw, "algorithm or adversary: the problem it solves / builds (default load); not for a family")
    nw.add_argument(
        "--model",
        default=None,
        choices=("plain", "rejection", "speed"),
        help="algorithm only: plain (no eps, default), rejection (may reject an eps fraction) or speed "
        "(machines at speed 1+eps)",
    )
    nw.add_argument(
        "--compiled",
        action="store_true",
        help="algorithm only: a rule with a compiled path on the suite's machine core next to its step path "
        "(a flow-time problem; default maxflow), as fast as the built-ins; schedbench check compares the two",
    )
    nw.add_argument("--dir", default=".", help="the folder to write into (default .; created if missing)")
    nw.set_defaults(func=_new)
    ck = sub.add_parser(
        "check",
        help="conformance checks of a plug-in file or folder: one PASS/FAIL/SKIP line per check; "
        "exit 1 if any fails, 2 on a usage error",
        description="Load PATH as plug-ins and check each algorithm (contract, parameters, runs on small "
        "instances of its problems, validator, deterministic for a seed, ALG >= OPT at speed 1 "
        "without rejections, fast path = step path), adversary (contract, parameters, plays, "
        "validator, deterministic, claimed OPT = the solver's) and family (contract, parameters, "
        "builds, deterministic, sizes as declared, a built-in runs on it) it registers.",
    )
    ck.add_argument("path", help="a plug-in .py file or a folder of them")
    ck.set_defaults(func=_check)


def _new(args: argparse.Namespace) -> int:
    """A documented plug-in file and its test (schedbench.scheduling.scaffold)."""
    from schedbench.scheduling.scaffold import new_plugin

    plugin, test = new_plugin(
        args.kind, args.name, args.dir, problem=args.problem, model=args.model, with_compiled=args.compiled
    )
    print(f"wrote {plugin}")
    print(f"wrote {test}")
    print(f"next: schedbench check {plugin}    (or: python -m pytest {test})")
    return 0


def _check(args: argparse.Namespace) -> int:
    """The conformance checks of every plug-in a file or folder registers: one line per check,
    exit 1 if any fails (schedbench.scheduling.conformance)."""
    from schedbench.scheduling.conformance import check_path

    report = check_path(args.path)
    print(report.text())
    return 0 if report.ok else 1
