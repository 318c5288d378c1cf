"""``schedbench list`` (every registered algorithm, adversary and family, one line each) and
``schedbench describe NAME`` (one of them in full), from :mod:`.introspect`."""

from __future__ import annotations

import argparse
import json

from schedbench.cli.introspect import compact_params, plugin_info
from schedbench.scheduling.registry import KINDS, names
from schedbench.hall.params import did_you_mean
from schedbench.scheduling.registry import (
    UnknownNameError,
    adversary_names,
    algorithm_names,
    family_names,
    get_algorithm,
)


def add_commands(sub: argparse._SubParsersAction) -> None:
    """Register ``list`` and ``describe``."""
    sub.add_parser("list", help="registered algorithms, adversaries and families with their parameters").set_defaults(
        func=_list
    )
    de = sub.add_parser(
        "describe",
        help="one algorithm, adversary or family: its rule, problems, model, parameters "
        "(type, range, default, meaning), paper section and docs",
    )
    de.add_argument("name")
    de.add_argument("--kind", choices=KINDS, default=None, help="only this kind (a name may be several)")
    de.add_argument("--json", action="store_true", help="print JSON instead of text")
    de.set_defaults(func=_describe)


def _list(_: argparse.Namespace) -> int:
    rows = [get_algorithm(n).describe() for n in algorithm_names()]
    print(f"{'algorithm':<18} {'problem':<8} {'model':<10} {'rule':<5} {'T*':<4} parameters")
    for d in rows:
        params = ", ".join(f"{k}={v}" for k, v in d["parameters"].items()) or "-"
        print(
            f"{d['name']:<18} {d['problem']:<8} {d['model']:<10} {d['rule']:<5} "
            f"{'yes' if d['needs_opt'] else 'no':<4} {params}"
        )
    print("\nrule: Q = quoted from the source, R = reconstructed, R✓ = reconstructed and checked")
    also = [f"{d['name']} ({', '.join(d['problems'][1:])})" for d in rows if len(d["problems"]) > 1]
    if also:
        print("also solves (give 'problem' in the experiment): " + "; ".join(also))
    advs = [plugin_info("adversary", n) for n in adversary_names()]
    print(f"\n{'adversary':<18} {'problem':<11} {'rule':<5} parameters (a name alone: required)")
    for d in advs:
        print(f"{d['name']:<18} {d['problems'][0]:<11} {d['label']:<5} {compact_params(d)}")
    print(f"\n{'family':<18} parameters (a name alone: required)")
    for d in (plugin_info("family", n) for n in family_names()):
        print(f"{d['name']:<18} {compact_params(d)}")
    print("\nschedbench describe NAME: one algorithm, adversary or family in full (rule, parameters, docs)")
    return 0


def _describe(args: argparse.Namespace) -> int:
    """One plug-in in full; a name registered as several kinds (e.g. anr-tree) shows each."""
    kinds = [args.kind] if args.kind else list(KINDS)
    infos = [plugin_info(k, args.name) for k in kinds if args.name in names(k)]
    if not infos:
        what = " or ".join(kinds)
        every = [n for k in kinds for n in names(k)]
        raise UnknownNameError(
            f"unknown name {args.name!r}: no registered {what} has it{did_you_mean(args.name, every)} see schedbench list"
        )
    if args.json:
        print(json.dumps(infos if len(infos) > 1 else infos[0], ensure_ascii=False))
        return 0
    for n, d in enumerate(infos):
        if n:
            print()
        print(f"{d['name']} ({d['kind']})")
        for key in ("rule", "problems", "model", "label", "source", "docs"):
            value = ", ".join(d[key]) if isinstance(d[key], list) else d[key]
            print(f"  {key + ':':<11}{value}")
        print("  parameters:" + ("" if d["parameters"] else " none"))
        for p in d["parameters"]:
            print(
                f"    {p['name']}: {p['type']}, {p['range']}, default {p['default']}"
                + (f" — {p['doc']}" if p["doc"] else "")
            )
    print("\nlabels: Q quoted from the paper, R reconstructed, R✓ reconstructed and checked (docs/models/README.md)")
    return 0
