"""Command line: ``schedbench list | describe | generate | opt | run | new | check | compare | check-config | plan | status | docs-tables | archive | diff | merge | loss | bipartite``.

Examples::

    schedbench list                                          # algorithms, adversaries, families
    schedbench describe lb-b                                 # rule, parameters, paper section, docs
    schedbench generate random-restricted inst.npz --seed 1 --param m=8 --param n=100 --param d=2
    schedbench opt inst.npz --time-limit 30                  # the instance's problem (else makespan)
    schedbench new algorithm my-srpt --problem maxflow --model speed --dir ../my-baselines
    schedbench check ../my-baselines                         # conformance checks, PASS/FAIL per line
    schedbench compare -a ll-fifo -a mft-unit -f random-restricted -p m=8 -p n=200 --eps 0.25,0.5
    schedbench check-config my.yaml                          # YAML line, schema key, cross-field rules
    schedbench run lb-unit-reject inst.npz --eps 0.25 --param alpha_rule=safe
    schedbench run greedy inst.npz --opt --time-limit 10
    schedbench loss simulate --n 100 --k 10 --d 2 --lam 0.9 --arrivals 200000
    schedbench loss exact --n 12 --k 4 --d 2 --lam 0.9             # the CTMC oracle of that point
    schedbench bipartite simulate --policy jfsq --mu 2,1 --lam 2.1 --arrivals 200000 --ties index
    schedbench bipartite exact --policy jfsq --mu 2,1 --lam 2.1     # its exact value (N <= 4 servers)

A bad input (an unreadable or malformed instance file, an unknown name, a bad parameter, an
instance beyond a solver's limits) is reported as one line ``schedbench: error: <what>`` on
stderr (for a file: ``schedbench: error: <file>: <what>``) with exit code 2; bad command-line
syntax is argparse's usage error, also exit code 2. Any other exception is a bug and keeps its
traceback.

The commands live in one module per concern, each registering its own with ``add_commands``:
:mod:`.describe` (list, describe; the plug-in descriptions in :mod:`.introspect`), :mod:`.run`
(generate, opt, run), :mod:`.plugins` (new, check), :mod:`.compare`, :mod:`.pipeline`
(check-config, plan, status), :mod:`.docs` (docs-tables), :mod:`.archive` (archive, diff, merge),
:mod:`.loss` and :mod:`.bipartite` (one point of the other two models, simulated or exact);
:mod:`.common` holds what they share.
"""

from __future__ import annotations

import argparse
import os
import sys

from schedbench.cli import archive, bipartite, compare, describe, docs, loss, pipeline, plugins, run
from schedbench.cli.common import PLUGINS_HELP, USER_ERRORS, CommandError, user_errors
from schedbench.cli.docs import docs_tables
from schedbench.cli.introspect import DOCS, declared_params, param_info, plugin_info
from schedbench.cli.run import instance_problem
from schedbench.scheduling.engine import AlgorithmError
from schedbench.scheduling.registry import names, use_plugins

__all__ = [
    "main",
    "CommandError",
    "USER_ERRORS",
    "DOCS",
    "docs_tables",
    "instance_problem",
    "param_info",
    "plugin_info",
]

#: the command modules, in the order their commands appear in ``schedbench --help``
COMMANDS = (describe, run, plugins, compare, pipeline, docs, archive, loss, bipartite)

# the names of the single-module CLI (tests and scripts import them)
_declared_params, _names = declared_params, names


#: commands plug-ins do not extend (filled by :func:`build_parser`): ``--plugins`` is refused there
NO_PLUGINS: set[str] = set()


def _parsers_below(parser: argparse.ArgumentParser):
    """``parser`` and every parser below it (``schedbench loss simulate``)."""
    yield parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in action.choices.values():
                yield from _parsers_below(child)


def build_parser() -> argparse.ArgumentParser:
    """The ``schedbench`` parser: every command module's commands, ``--plugins`` on those of the
    rejection model (the only model plug-ins extend; a module says so with ``PLUGINS = False``)."""
    parser = argparse.ArgumentParser(prog="schedbench", description=__doc__.split("\n\n")[0])
    parser.add_argument("--plugins", action="append", default=[], metavar="PATH", help=PLUGINS_HELP)
    sub = parser.add_subparsers(dest="command", required=True)
    for module in COMMANDS:
        before = set(sub.choices)
        module.add_commands(sub)
        if not getattr(module, "PLUGINS", True):
            NO_PLUGINS.update(set(sub.choices) - before)
    for (
        name,
        sp,
    ) in sub.choices.items():  # `schedbench run --plugins DIR ...` as well as `schedbench --plugins DIR run ...`
        if name not in NO_PLUGINS:
            for p in _parsers_below(sp):
                p.add_argument(
                    "--plugins", action="append", default=argparse.SUPPRESS, metavar="PATH", help=PLUGINS_HELP
                )
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.plugins and args.command in NO_PLUGINS:
        print(
            f"schedbench: error: --plugins does not apply to `schedbench {args.command}` "
            "(plug-ins add algorithms, adversaries and families of the rejection model)",
            file=sys.stderr,
        )
        return 2
    try:
        use_plugins(args.plugins, source="--plugins")
        return args.func(args)
    except BrokenPipeError:  # e.g. `schedbench status | head`: the reader left, nothing is wrong
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except user_errors() as exc:
        print("schedbench: error: " + " ".join(str(exc).split()), file=sys.stderr)
        return 2
    except AlgorithmError as exc:  # a rule (a plug-in's, above all) broke the model: one line naming it and the job
        # exit 2 as for any bad input (here: user code's); exit 1 stays an outcome the validator refused
        print("schedbench: algorithm error: " + " ".join(str(exc).split()), file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # Ctrl-C: ended, as asked; no traceback (nothing is half-written: writes are atomic)
        print("schedbench: interrupted", file=sys.stderr)
        return 130
