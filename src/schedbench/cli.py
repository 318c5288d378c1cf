"""Command line: ``schedbench list | describe | generate | opt | run | new | check | compare | check-config | plan | status | docs-tables``.

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
import re
import sys
from pathlib import Path
from typing import Any

from schedbench.hall.config import ConfigError
from schedbench.hall.effort import DEFAULT_TIME_LIMIT, DEFAULT_WORK_LIMIT
from schedbench.hall.grids import repeated
from schedbench.hall.limits import PLUGIN_RUN_SECONDS
from schedbench.hall.params import ParameterError, did_you_mean
from schedbench.scheduling.engine import AlgorithmError
from schedbench.scheduling.instances.base import FamilyParameterError
from schedbench.scheduling.model import Instance, InstanceError
from schedbench.scheduling.problems import problem_names
from schedbench.scheduling.registry import (
    PluginError,
    UnknownNameError,
    adversary_names,
    algorithm_names,
    family_names,
    get_adversary,
    get_algorithm,
    get_family,
    is_builtin,
    use_plugins,
)
from schedbench.scheduling.scaffold import ScaffoldError


class CommandError(ValueError):
    """A command-line input the parser cannot check (a ``--param`` without ``=``, an unwritable
    output file)."""


#: The errors a user's input causes: one line on stderr, exit code 2. Everything else is a bug.
#: (The solver's limit error joins them in :func:`_user_errors`: the solvers are imported only by
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


def _user_errors() -> tuple[type[BaseException], ...]:
    from schedbench.scheduling.offline.makespan import SolverLimitError

    return USER_ERRORS + (SolverLimitError,)


_PLUGINS_HELP = (
    "an out-of-tree plug-in file or folder (algorithms, adversaries, families; repeatable; "
    "also the SCHEDBENCH_PLUGINS environment variable and installed 'schedbench.plugins' entry points)"
)


def _nonneg_int(text: str) -> int:
    """An integer >= 0 (seeds and indices key random streams, which take no negative keys)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer >= 0, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected an integer >= 0, got {value}")
    return value


def _positive(unit: str):
    """An argparse type: a finite number of ``unit`` > 0 (``--work-limit``, ``--time-limit``)."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number of {unit}, got {text!r}") from None
        if not (math.isfinite(value) and value > 0):
            raise argparse.ArgumentTypeError(f"must be a finite number of {unit} > 0, got {text!r}")
        return value

    return parse


_work_limit = _positive("work units")
_time_limit = _positive("seconds")


def _add_solve_limits(parser: argparse.ArgumentParser, what: str) -> None:
    """``--work-limit`` and ``--time-limit`` of the OPT solves of a subcommand (offline.solve_opt)."""
    parser.add_argument(
        "--work-limit",
        type=_work_limit,
        default=DEFAULT_WORK_LIMIT,
        metavar="UNITS",
        help=f"deterministic work limit of {what} (default {DEFAULT_WORK_LIMIT:g}; a solve that reaches it "
        "reports status 'bound', the same on every machine)",
    )
    parser.add_argument(
        "--time-limit",
        type=_time_limit,
        default=DEFAULT_TIME_LIMIT,
        metavar="SECONDS",
        help=f"wall-clock safety net of {what} (default {DEFAULT_TIME_LIMIT:g}); a solve it stops reports status 'timeout'",
    )


def _value(text: str) -> Any:
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    return {"true": True, "false": False}.get(text.lower(), text)


def _params(items: list[str], option: str = "--param") -> dict[str, Any]:
    out = {}
    for item in items:
        if "=" not in item:
            raise CommandError(f"{option} expects NAME=VALUE, got {item!r}")
        key, value = item.split("=", 1)
        if key in out:
            raise CommandError(
                f"{option} {key}: given twice ({out[key]!r} and {_value(value)!r}); give each parameter once"
            )
        out[key] = _value(value)
    return out


# ---------------------------------------------------------------- plug-in descriptions
# Read from the registry only, through the classes' public attributes, so that these listings,
# `schedbench describe` and the generated tables of config/README.md cannot go stale. Parameter
# objects are read by attribute name (default, doc, choices, kind, minimum, ...), whatever class
# holds them.

#: where each kind of plug-in is documented when its own docstrings do not say
DOCS = {
    "algorithm": "docs/models/rejection-model.md §7",
    "adversary": "docs/models/rejection-model.md §6",
    "family": "docs/models/rejection-model.md §11",
}
_KINDS = ("algorithm", "adversary", "family")
_MISSING = object()


def _declared_params(obj: Any) -> dict[str, Any]:
    """{name: parameter object} of an algorithm or adversary class or a family object: the first
    of ``params`` / ``parameters`` that holds parameter declarations (objects with a default),
    as a mapping or as a sequence of objects with a ``name``."""
    for attr in ("params", "parameters"):
        value = getattr(obj, attr, None)
        if isinstance(value, dict) and all(hasattr(p, "default") for p in value.values()):
            return dict(value)
        if isinstance(value, (list, tuple)) and value and all(hasattr(p, "name") for p in value):
            return {p.name: p for p in value}
    return {}


def _type_name(kind: Any) -> str:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    names = {bool: "bool", int: "int", float: "number", str: "string"}
    return "/".join(names.get(k, getattr(k, "__name__", str(k))) for k in kinds)


def _fmt(value: Any) -> str:
    return "none" if value is None else str(value)


def param_info(name: str, p: Any, none_means: str = "none") -> dict[str, str]:
    """One parameter as strings: name, type, range, default and doc. A default of None is shown
    as ``none`` (derived or not given, the doc says which) or ``required``: by the parameter's
    ``optional`` flag if it has one, else ``none_means`` unless its doc explains None."""
    choices = getattr(p, "choices", None)
    kind = getattr(p, "kind", None) or getattr(p, "type", None)
    default = getattr(p, "default", None)
    derived = next(
        (getattr(p, a) for a in ("derive", "derived", "default_from") if callable(getattr(p, a, None))), None
    )
    if kind is None:
        sample = default if default is not None else (choices[0] if choices else None)
        kind = type(sample) if isinstance(sample, (bool, int, float, str)) else None
    rng = []
    if choices:
        rng.append("one of " + ", ".join(_fmt(c) for c in choices))
    for attrs, op, opened in (
        (("minimum", "low", "min"), "≥", "min_open"),
        (("maximum", "high", "max"), "≤", "max_open"),
    ):
        bound = next((getattr(p, a) for a in attrs if getattr(p, a, None) is not None), None)
        if getattr(p, opened, False):
            op = {"≥": ">", "≤": "<"}[op]
        if bound is not None and not callable(bound):
            rng.append(f"{op} {bound:g}" if isinstance(bound, (int, float)) else f"{op} {bound}")
    if callable(default) or derived is not None:
        text = getattr(derived, "text", None)
        shown = f"derived: {text}" if text else "derived"
    elif default is None:
        optional = getattr(p, "optional", None)
        if optional is None:
            optional = none_means != "required" or "none:" in str(getattr(p, "doc", "")).lower()
        shown = "none" if optional else "required"
    else:
        shown = str(default)
    return {
        "name": name,
        "type": _type_name(kind) if kind is not None else "any",
        "range": "; ".join(rng) or "-",
        "default": shown,
        "doc": " ".join(str(getattr(p, "doc", "") or "").split()),
    }


def _drop_asides(text: str) -> str:
    """``text`` without its parenthesised and bracketed asides (citations, labels: `describe`
    shows them on their own lines). An aside opens after a space and closes before a space or a
    punctuation mark, so ``O(1)`` and ``(t − r)/S`` stay."""
    out, i = [], 0
    pairs = {"(": ")", "[": "]"}
    while i < len(text):
        ch = text[i]
        if ch in pairs and (i == 0 or text[i - 1] == " "):
            depth, j = 0, i
            while j < len(text):
                depth += (text[j] == ch) - (text[j] == pairs[ch])
                if depth == 0:
                    break
                j += 1
            if j < len(text) and (j + 1 == len(text) or text[j + 1] in " ,;:."):
                i = j + 1
                continue
        out.append(ch)
        i += 1
    return re.sub(r"\s+([,;:.])", r"\1", " ".join("".join(out).split()))


def _sentence(para: str) -> str:
    """The first sentence of one paragraph (the first '. ' outside parentheses), on one line."""
    para = _drop_asides(" ".join(para.split()).replace("``", ""))
    depth = 0
    for i, ch in enumerate(para):
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if ch == "." and depth <= 0 and (i + 1 == len(para) or para[i + 1] == " "):
            return para[: i + 1]
    return para


def _first_sentence(text: str | None, limit: int = 320, follow: bool = False) -> str:
    """The first sentence of a docstring, on one line without asides; with ``follow``, also the
    first sentence of the next paragraph (a plug-in module names the rule first, then states it)."""
    if not text:
        return ""
    paras = [p for p in text.strip().split("\n\n") if p.strip()]
    out = _sentence(paras[0])
    if follow and len(paras) > 1 and not paras[1].lstrip().startswith(("*", "-", "1.", "=")):
        out += " " + _sentence(paras[1])
    return out if len(out) <= limit else out[: limit - 1].rstrip() + "…"


def _own_doc(obj: Any) -> str | None:
    """The class's own docstring, else its module's (a plug-in module holds one class)."""
    doc = obj.__dict__.get("__doc__") if isinstance(obj, type) else None
    if doc:
        return doc
    mod = sys.modules.get(getattr(obj if isinstance(obj, type) else type(obj), "__module__", ""))
    return getattr(mod, "__doc__", None)


def _docs_link(*texts: str | None, kind: str) -> str:
    """The first docs/models section a plug-in's reference or docstring cites, else its kind's page."""
    for text in texts:
        if text:
            hit = re.search(r"(?:docs/models/)?([a-z-]+\.md)`{0,2} (§[0-9][0-9.–]*)", text)
            if hit:
                return f"docs/models/{hit.group(1)} {hit.group(2).rstrip('.')}"
    return DOCS[kind]


def plugin_info(kind: str, name: str) -> dict[str, Any]:
    """What `schedbench describe` shows of one registered algorithm, adversary or family."""
    if kind == "family":
        fam = get_family(name)
        mod = sys.modules.get(getattr(getattr(fam, "generator", None), "__module__", ""), None)
        doc = getattr(fam, "doc", "") or getattr(mod, "__doc__", "")
        return {
            "name": name,
            "kind": kind,
            "rule": _first_sentence(doc),
            "problems": ["any"],
            "model": "instance family",
            "label": "-",
            "source": "-",
            "docs": DOCS[kind],
            "parameters": [param_info(k, p) for k, p in _declared_params(fam).items()],
        }
    cls = get_algorithm(name) if kind == "algorithm" else get_adversary(name)
    reference = str(getattr(cls, "reference", "") or "")
    doc = _own_doc(cls)
    if kind == "algorithm":
        problems = list(cls.solved_problems())
        model = cls.model + (" (migratory)" if getattr(cls, "migratory", False) else "")
        notes = [
            n
            for n, on in (
                ("assumes T*", getattr(cls, "needs_opt", False)),
                ("unit sizes only", getattr(cls, "unit_sizes_only", False)),
                ("may hold jobs", getattr(cls, "deferred_dispatch", False)),
                ("may reject late", getattr(cls, "late_reject", False)),
                ("compiled path", cls.has_compiled_path() if hasattr(cls, "has_compiled_path") else False),
            )
            if on
        ]
        model += "".join(f"; {n}" for n in notes)
    else:
        problems = [cls.problem]
        model = "adaptive adversary" + ("; unit sizes" if getattr(cls, "unit_sizes", False) else "")
    module_doc = getattr(sys.modules.get(cls.__module__), "__doc__", None)
    own = isinstance(cls, type) and bool(cls.__dict__.get("__doc__"))
    rule = _first_sentence(doc, follow=kind == "algorithm" and not own)
    return {
        "name": name,
        "kind": kind,
        "rule": rule,
        "problems": problems,
        "model": model,
        "label": getattr(cls, "rule_label", "-"),
        "source": reference or "-",
        "docs": _docs_link(reference, module_doc, kind=kind),
        "parameters": [
            param_info(k, p, "required" if kind == "adversary" else "none") for k, p in _declared_params(cls).items()
        ],
    }


def _names(kind: str) -> list[str]:
    return {"algorithm": algorithm_names, "adversary": adversary_names, "family": family_names}[kind]()


def _builtin_names(kind: str) -> list[str]:
    """The names the package itself registers (the generated docs document these, never a
    user's out-of-tree plug-ins)."""
    return [n for n in _names(kind) if is_builtin(kind, n)]


def _compact_params(info: dict[str, Any]) -> str:
    return (
        ", ".join(
            p["name"] if p["default"] in ("required",) else f"{p['name']}={p['default']}" for p in info["parameters"]
        )
        or "-"
    )


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
        print(f"{d['name']:<18} {d['problems'][0]:<11} {d['label']:<5} {_compact_params(d)}")
    print(f"\n{'family':<18} parameters (a name alone: required)")
    for d in (plugin_info("family", n) for n in family_names()):
        print(f"{d['name']:<18} {_compact_params(d)}")
    print("\nschedbench describe NAME: one algorithm, adversary or family in full (rule, parameters, docs)")
    return 0


def _describe(args: argparse.Namespace) -> int:
    """One plug-in in full; a name registered as several kinds (e.g. anr-tree) shows each."""
    kinds = [args.kind] if args.kind else list(_KINDS)
    infos = [plugin_info(k, args.name) for k in kinds if args.name in _names(k)]
    if not infos:
        what = " or ".join(kinds)
        every = [n for k in kinds for n in _names(k)]
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


# ---------------------------------------------------------------- generated tables of config/README.md
_BLOCK = re.compile(
    r"(<!-- BEGIN GENERATED: (?P<key>[^>]*?) -->\n)(?P<body>.*?)(<!-- END GENERATED: (?P=key) -->)", re.S
)
_ALG_GROUPS = {"load": ("load",), "maxflow": ("maxflow",), "weighted": ("wtdmaxflow", "genwtd", "stretch")}


def _cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def _param_rows(info: dict[str, Any]) -> list[str]:
    rows = ["| param | type | default | range | meaning |", "|---|---|---|---|---|"]
    for p in info["parameters"]:
        rows.append(
            f"| `{p['name']}` | {p['type']} | {_cell(p['default'])} | {_cell(p['range'])} | {_cell(p['doc'])} |"
        )
    return rows if info["parameters"] else ["No parameters."]


def _render_block(key: str) -> list[str]:
    kind, _, arg = key.partition(" ")
    if kind == "algorithms":
        if arg not in _ALG_GROUPS:
            raise CommandError(f"generated block {key!r}: the algorithm groups are {', '.join(_ALG_GROUPS)}")
        rows = [
            "| name | problems | model | rule | parameters (default): meaning | source |",
            "|---|---|---|---|---|---|",
        ]
        for n in _builtin_names("algorithm"):
            if get_algorithm(n).problem not in _ALG_GROUPS[arg]:
                continue
            d = plugin_info("algorithm", n)
            params = (
                "; ".join(
                    f"`{p['name']}` ({p['default']})" + (f": {p['doc']}" if p["doc"] else "") for p in d["parameters"]
                )
                or "none"
            )
            rows.append(
                f"| `{n}` | {', '.join(d['problems'])} | {_cell(d['model'])} | {_cell(d['label'])} | "
                f"{_cell(params)} | {_cell(d['source'])} |"
            )
        return rows
    if kind == "adversaries":
        rows = ["| name | problem | rule | parameters | source |", "|---|---|---|---|---|"]
        for n in _builtin_names("adversary"):
            d = plugin_info("adversary", n)
            rows.append(
                f"| `{n}` | {d['problems'][0]} | {_cell(d['label'])} | {_cell(_compact_params(d))} | "
                f"{_cell(d['source'])} |"
            )
        return rows
    if kind in ("adversary", "family"):
        if arg not in _names(kind):
            raise CommandError(f"generated block {key!r}: no registered {kind} {arg!r}")
        return _param_rows(plugin_info(kind, arg))
    raise CommandError(
        f"generated block {key!r}: unknown kind {kind!r} (algorithms GROUP, adversaries, adversary NAME, family NAME)"
    )


def docs_tables(text: str) -> str:
    """``text`` with every block between ``<!-- BEGIN GENERATED: KEY -->`` and ``<!-- END
    GENERATED: KEY -->`` regenerated from the registry. Every registered adversary and family
    must have its own block (a new plug-in is documented or this fails)."""
    keys = [m.group("key") for m in _BLOCK.finditer(text)]
    missing = [f"{k} {n}" for k in ("adversary", "family") for n in _builtin_names(k) if f"{k} {n}" not in keys]
    missing += [f"algorithms {g}" for g in _ALG_GROUPS if f"algorithms {g}" not in keys]
    if missing:
        raise CommandError(
            "no generated block for "
            + ", ".join(missing)
            + " (add '<!-- BEGIN GENERATED: KEY -->' / '<!-- END GENERATED: KEY -->' lines)"
        )
    return _BLOCK.sub(lambda m: m.group(1) + "\n".join(_render_block(m.group("key"))) + "\n" + m.group(4), text)


def _docs_tables(args: argparse.Namespace) -> int:
    from pathlib import Path

    path = Path(args.file) if args.file else Path(__file__).resolve().parents[2] / "config" / "README.md"
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise CommandError(f"{path}: cannot read ({exc.strerror or exc})") from None
    new = docs_tables(text)
    if args.check:
        if new != text:
            print(
                f"{path}: the generated tables are out of date; run: schedbench docs-tables {args.file or ''}".rstrip(),
                file=sys.stderr,
            )
            return 1
        print(f"{path}: generated tables up to date")
        return 0
    if new != text:
        from schedbench.hall.io import atomic_write_text

        atomic_write_text(str(path), new)
    print(f"{path}: {'updated' if new != text else 'unchanged'}")
    return 0


def _generate(args: argparse.Namespace) -> int:
    inst = get_family(args.family).make(args.index, args.seed, **_params(args.param))
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
    params = _params(args.param)
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
        values = [_value(v) for v in value.split("|")]
        dup = repeated(values)
        if dup is not None:
            raise CommandError(f"-a {text!r}: parameter {key!r} lists {dup!r} twice (each value once)")
        params[key] = values if len(values) > 1 else values[0]
    return name, params


def _eps_list(text: str) -> list[float]:
    """argparse type of ``--eps``: comma-separated numbers in (0, 1)."""
    out = []
    for item in text.split(","):
        try:
            value = float(item)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected comma-separated numbers in (0, 1), got {item!r}") from None
        if not (math.isfinite(value) and 0 < value < 1):
            raise argparse.ArgumentTypeError(f"every value must be in (0, 1), got {item!r}")
        if value in out:
            raise argparse.ArgumentTypeError(f"{item!r} is listed twice (each ε once)")
        out.append(value)
    return out


def _writable_output(option: str, path: str, suffixes: tuple[str, ...]) -> None:
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
            _writable_output(option, path, suffixes)  # before the runs: an unwritable path loses no work
    comparison = plan(
        algorithms,
        args.eps,
        family=args.family,
        adversary=args.adversary,
        params=_params(args.param, option="-p"),
        instances=args.instances,
        problem=args.problem,
        seed=args.seed,
        time_limit=args.time_limit,
        work_limit=args.work_limit,
        accept_cost=args.accept_cost,
        plugin_time_limit=args.plugin_time_limit,
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


def _checked_plan(path: str, command: str):
    """A config file checked as the Snakefile checks it (file and line of a YAML error, schema,
    cross-field rules), with its run plan and the planner's objection ('' if none)."""
    from pathlib import Path

    from schedbench.checks import check_config, plan_config
    from schedbench.hall.config import check_schema, load_config_file
    from schedbench.hall.plan import check_cost

    config = load_config_file(path)
    schema = Path(__file__).resolve().parents[2] / "workflow" / "schemas" / "config.schema.yaml"
    if not schema.is_file():
        raise CommandError(f"the workflow's config schema is not at {schema} ({command} needs a source checkout)")
    check_schema(config, str(schema))
    check_config(config)
    plan = plan_config(config)
    return plan, check_cost(plan, bool(config.get("accept_cost", False))) or ""


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
    from pathlib import Path

    from schedbench.hall.status import format_status, read_status

    if not Path(args.directory).is_dir():
        raise CommandError(f"directory: {args.directory} is not a directory")
    if args.top < 1:
        raise CommandError(f"--top: must be >= 1, got {args.top}")
    print(format_status(read_status(args.directory, top=args.top)))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="schedbench", description=__doc__.split("\n\n")[0])
    parser.add_argument("--plugins", action="append", default=[], metavar="PATH", help=_PLUGINS_HELP)
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="registered algorithms, adversaries and families with their parameters").set_defaults(
        func=_list
    )
    de = sub.add_parser(
        "describe",
        help="one algorithm, adversary or family: its rule, problems, model, parameters "
        "(type, range, default, meaning), paper section and docs",
    )
    de.add_argument("name")
    de.add_argument("--kind", choices=_KINDS, default=None, help="only this kind (a name may be several)")
    de.add_argument("--json", action="store_true", help="print JSON instead of text")
    de.set_defaults(func=_describe)
    g = sub.add_parser("generate", help="write one instance of a family to an .npz file")
    g.add_argument("family")
    g.add_argument("output")
    g.add_argument("--seed", type=_nonneg_int, default=0)
    g.add_argument("--index", type=_nonneg_int, default=0)
    g.add_argument("--param", action="append", default=[], metavar="NAME=VALUE")
    g.add_argument(
        "--problem",
        default=None,
        choices=problem_names(),
        help="record the problem the instance is for in its meta (schedbench opt then solves it by default)",
    )
    g.set_defaults(func=_generate)
    o = sub.add_parser(
        "opt",
        help="offline optimum of an instance file, for the problem it records (else makespan); "
        "the output's 'problem' and 'problem_from' say which was solved and why",
    )
    o.add_argument("instance")
    o.add_argument(
        "--problem",
        default=None,
        choices=problem_names(),
        help="the objective (schedbench.solve_opt); default: the problem the instance's meta records "
        "(its 'problem', or the adversary that realised it), else load (makespan)",
    )
    _add_solve_limits(o, "the solve")
    o.set_defaults(func=_opt)
    r = sub.add_parser("run", help="run and validate one algorithm on an instance file")
    r.add_argument("algorithm")
    r.add_argument("instance")
    r.add_argument("--eps", type=float, default=None)
    r.add_argument("--seed", type=_nonneg_int, default=0)
    r.add_argument("--param", action="append", default=[], metavar="NAME=VALUE")
    r.add_argument(
        "--problem",
        default=None,
        choices=problem_names(),
        help="the problem of the run, one the algorithm solves (default: its own)",
    )
    r.add_argument(
        "--opt", action="store_true", help="compute OPT (schedbench.solve_opt) so that 'ratio' is objective / OPT"
    )
    _add_solve_limits(r, "an OPT solve (--opt, or an algorithm that assumes T*)")
    r.set_defaults(func=_run)
    nw = sub.add_parser(
        "new",
        help="write a documented plug-in file (NAME with - -> _) and its test (test_NAME.py, running "
        "schedbench check through the Python API) that pass schedbench check as written",
        description="Write DIR/<name>.py (an algorithm: least-loaded eligible machine, never rejects; an "
        "adversary: a pairing trap with OPT = 1; a family: random restricted assignment) and "
        "DIR/test_<name>.py. Never overwrites a file; refuses a name already registered as that kind.",
    )
    nw.add_argument("kind", choices=("algorithm", "adversary", "family"))
    nw.add_argument("name", help="the registry name, e.g. my-srpt (letters, digits, single - or _)")
    nw.add_argument(
        "--problem",
        default=None,
        choices=problem_names(),
        help="algorithm or adversary: the problem it solves / builds (default load); not for a family",
    )
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
    cp.add_argument(
        "--problem", default=None, choices=problem_names(), help="the problem (default: see the description)"
    )
    cp.add_argument("--seed", type=_nonneg_int, default=0, help="the base seed of instances and runs (default 0)")
    _add_solve_limits(cp, "each OPT solve")
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
        type=_time_limit,
        default=PLUGIN_RUN_SECONDS,
        metavar="SECONDS",
        help=f"wall-clock limit of each run of a plug-in (default {PLUGIN_RUN_SECONDS:g}); one past it stops the "
        "comparison, naming the plug-in, the algorithm and the instance",
    )
    cp.set_defaults(func=_compare)
    c = sub.add_parser(
        "check-config",
        help="check a pipeline config file as the workflow does (file and "
        "line of a YAML error, the failing key of a schema or cross-field error)",
    )
    c.add_argument("config")
    c.set_defaults(func=_check_config)
    pl = sub.add_parser(
        "plan",
        help="estimate a pipeline config's cost before running it: per experiment and stage the jobs, "
        "runs, work, CPU time on this machine and the largest job's memory (docs/run-planner.md)",
    )
    pl.add_argument("config")
    pl.set_defaults(func=_plan)
    st = sub.add_parser(
        "status",
        help="a running or finished pipeline: jobs done, running (with progress), failed, and the slowest rules",
    )
    st.add_argument("directory", nargs="?", default=".", help="the pipeline's working directory (default .)")
    st.add_argument("--top", type=int, default=5, help="how many of the slowest rules and jobs (default 5)")
    st.set_defaults(func=_status)
    dt = sub.add_parser(
        "docs-tables",
        help="regenerate the registry tables of config/README.md (between its "
        "GENERATED markers); --check only compares",
    )
    dt.add_argument(
        "file", nargs="?", default=None, help="the markdown file (default: config/README.md of the checkout)"
    )
    dt.add_argument("--check", action="store_true", help="exit 1 if the file differs from the generated tables")
    dt.set_defaults(func=_docs_tables)
    from schedbench.hall.archive_cli import add_commands as add_archive_commands

    add_archive_commands(sub)  # archive, diff, merge (docs/comparing-runs.md)
    for sp in sub.choices.values():  # `schedbench run --plugins DIR ...` as well as `schedbench --plugins DIR run ...`
        sp.add_argument("--plugins", action="append", default=argparse.SUPPRESS, metavar="PATH", help=_PLUGINS_HELP)
    args = parser.parse_args(argv)
    try:
        use_plugins(args.plugins, source="--plugins")
        return args.func(args)
    except BrokenPipeError:  # e.g. `schedbench status | head`: the reader left, nothing is wrong
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except _user_errors() as exc:
        print("schedbench: error: " + " ".join(str(exc).split()), file=sys.stderr)
        return 2
    except AlgorithmError as exc:  # a rule (a plug-in's, above all) broke the model: one line naming it and the job
        # exit 2 as for any bad input (here: user code's); exit 1 stays an outcome the validator refused
        print("schedbench: algorithm error: " + " ".join(str(exc).split()), file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # Ctrl-C: ended, as asked; no traceback (nothing is half-written: writes are atomic)
        print("schedbench: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
