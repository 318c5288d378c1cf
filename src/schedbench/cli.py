"""Command line: ``schedbench list | generate | opt | run``.

Examples::

    schedbench list
    schedbench generate random-restricted inst.npz --seed 1 --param m=8 --param n=100 --param d=2
    schedbench opt inst.npz --time-limit 30
    schedbench run lb-unit-reject inst.npz --eps 0.25 --param alpha_rule=safe
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from schedbench.api import run
from schedbench.scheduling.model import Instance, InstanceError
from schedbench.scheduling.offline import opt_makespan
from schedbench.scheduling.registry import adversary_names, algorithm_names, family_names, get_algorithm, get_family


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
            raise SystemExit(f"--param expects NAME=VALUE, got {item!r}")
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
    print("\nfamilies: " + ", ".join(family_names()))
    print("adversaries: " + ", ".join(adversary_names()))
    return 0


def _generate(args: argparse.Namespace) -> int:
    inst = get_family(args.family).make(args.index, args.seed, **_params(args.param))
    inst.save(args.output)
    print(json.dumps({"path": args.output, "n": inst.n, "m": inst.m, **inst.meta}))
    return 0


def _opt(args: argparse.Namespace) -> int:
    res = opt_makespan(Instance.load(args.instance), time_limit=args.time_limit)
    print(json.dumps(res.as_dict()))
    return 0


def _run(args: argparse.Namespace) -> int:
    res = run(args.algorithm, Instance.load(args.instance), eps=args.eps, seed=args.seed,
              **_params(args.param))
    print(json.dumps({
        "algorithm": res.algorithm, "eps": res.eps, "params": res.params,
        "objective": res.objective, "ratio": res.ratio,
        "opt": None if res.opt is None else res.opt.as_dict(),
        "rejected_frac": res.rejected_frac, "rejected_frac_max_prefix": res.rejected_frac_max_prefix,
        "valid": res.valid, "status": res.status, "errors": res.errors,
    }))
    return 0 if res.valid else 1


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
    o = sub.add_parser("opt", help="offline optimum (makespan) of an instance file")
    o.add_argument("instance")
    o.add_argument("--time-limit", type=float, default=60.0)
    o.set_defaults(func=_opt)
    r = sub.add_parser("run", help="run and validate one algorithm on an instance file")
    r.add_argument("algorithm")
    r.add_argument("instance")
    r.add_argument("--eps", type=float, default=None)
    r.add_argument("--seed", type=int, default=0)
    r.add_argument("--param", action="append", default=[], metavar="NAME=VALUE")
    r.set_defaults(func=_run)
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except (InstanceError, ValueError, KeyError) as exc:
        print(f"schedbench: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
