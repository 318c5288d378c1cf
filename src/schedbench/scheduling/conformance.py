"""The registry's conformance suite as a library: what ``schedbench check PATH`` runs on a user's
plug-in file or folder (docs/plugins.md, "Scaffold, check, compare").

For each algorithm, adversary and instance family a plug-in registers, a list of checks, each a
:class:`Check` (PASS, FAIL with the reason in plain words, or SKIP when it does not apply), the
same properties ``tests/conformance/`` asserts for every built-in:

* **algorithm** — declares the contract (problem, model, rule label, reference, docstring);
  its parameters are :class:`~schedbench.hall.params.Param` declarations with a type and a doc,
  whose defaults resolve and which refuse a bad value naming the parameter; it runs on small
  generated instances of every problem it solves at every ε it takes and every combination of
  its parameters' choices; each outcome passes the independent validator; two runs with one seed
  are equal; ALG ≥ OPT where it must (speed 1, nothing rejected, non-migratory: against the
  proven optimum of :func:`~schedbench.scheduling.offline.solve_opt`; at speed s > 1 or
  migratory, against the trivial bound divided by s); its compiled path (``dispatch_all`` /
  ``compiled_run``), if it declares one, gives the same run as the step path;
* **adversary** — contract and parameters as above; it plays a small game against a registered
  algorithm of its problem, deterministically for a seed, with a valid outcome, and the optimum
  it claims is the solver's on the realised instance;
* **family** — contract and parameters; it builds a small instance, the same one twice for one
  seed, with unit sizes where it declares them, and a built-in algorithm runs valid on it.

A plug-in whose required parameters have no obvious small value declares a class (or family)
attribute ``conformance_params = {...}``: the parameters of a small, fast case.

Everything runs through :func:`schedbench.scheduling.play.execute` (the one run path) and the
validator, as the pipeline does; nothing here is specific to user plug-ins, so
:func:`check_name` also checks a built-in.
"""

from __future__ import annotations

import inspect
import itertools
import math
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np

from schedbench.hall.limits import wall_limit
from schedbench.hall.params import Param, ParameterError
from schedbench.scheduling.adversaries.base import Adversary
from schedbench.scheduling.algorithms.base import OnlineAlgorithm
from schedbench.scheduling.instances.base import Family, FamilyError
from schedbench.scheduling.model import AlgorithmError, Instance, differing_field
from schedbench.scheduling.play import execute
from schedbench.scheduling.problems import PROBLEMS
from schedbench.scheduling.registry import (
    KINDS,
    PluginError,
    algorithm_names,
    get_adversary,
    get_algorithm,
    get_family,
    names,
    origin,
    plugin_files_of,
    use_plugins,
)

__all__ = [
    "Check",
    "Report",
    "check_path",
    "check_name",
    "check_algorithm",
    "check_adversary",
    "check_family",
    "bad_values",
    "small_params",
    "EPS",
]

#: the ε an algorithm is run at (a speed-model one also at ε = 0, speed 1)
EPS = (0.5, 0.2)
#: the seed of every run (two runs with it must be equal)
SEED = 3
#: time limit of each offline solve (seconds)
OPT_TIME_LIMIT = 20.0
#: One small instance's runs (two fast, one step), one small game of an adversary plug-in, or one
#: small instance of a family plug-in must end within this many seconds: a plug-in whose decision
#: (or generator) never returns fails its check instead of hanging it.
RUN_SECONDS = 60.0


class _NoAnswer(AlgorithmError):
    """A run of the checked plug-in passed :data:`RUN_SECONDS`."""


def _slow_run() -> str:
    return f"no answer within {RUN_SECONDS:g} s on a small instance (a decision that never returns?)"


@dataclass
class Check:
    """One check of one plug-in: ``status`` PASS, FAIL or SKIP, ``detail`` in plain words."""

    kind: str
    name: str
    check: str
    status: str
    detail: str = ""

    @property
    def ok(self) -> bool:
        return self.status != "FAIL"

    def line(self) -> str:
        who = f"{self.kind} {self.name}" if self.name else self.kind
        return f"{self.status:<4}  {who}: {self.check}" + (f" — {self.detail}" if self.detail else "")


@dataclass
class Report:
    """Every check of every plug-in a path registers."""

    path: str
    checks: list[Check] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return bool(self.checks) and all(c.ok for c in self.checks)

    def text(self) -> str:
        lines = [c.line() for c in self.checks]
        failed = sum(not c.ok for c in self.checks)
        plugins = len({(c.kind, c.name) for c in self.checks if c.name})
        lines.append(
            f"{self.path}: {plugins} plug-in(s), {len(self.checks)} checks, "
            + (f"{failed} failed" if failed else "all passed")
        )
        return "\n".join(lines)


class _Fail(Exception):
    """A check failed; the message says why in plain words."""


# ---------------------------------------------------------------------------------------- helpers
def _exc_text(exc: BaseException) -> str:
    """An exception in one line, with the plug-in's own file and line where it was raised
    (the deepest frame outside this package), and a hint for a KeyError in ``self.params``."""
    if isinstance(exc, AlgorithmError) and exc.__cause__ is not None:  # play.user_code named it: the original
        exc = exc.__cause__
    if isinstance(exc, FamilyError):  # plugin_guard.family_code named the plug-in's file (and line) already
        return f"raised {type(exc).__name__}: {exc}"
    where = ""
    package = str(Path(__file__).resolve().parents[1])
    for frame in traceback.extract_tb(exc.__traceback__):
        if frame.filename and not str(Path(frame.filename).resolve()).startswith(package):
            where = f" at {frame.filename}:{frame.lineno}"
    text = f"raised {type(exc).__name__}: {exc}{where}"
    if isinstance(exc, KeyError):
        text += " (does it read a parameter it does not declare in 'parameters'?)"
    return text


def _run_check(kind: str, name: str, title: str, body: Callable[[], str | None]) -> Check:
    """Run one check body: its return value is the PASS detail (``"SKIP: why"`` skips); a
    :class:`_Fail` or any exception is a FAIL with the reason."""
    try:
        detail = body() or ""
    except _Fail as exc:
        return Check(kind, name, title, "FAIL", str(exc))
    except Exception as exc:  # a plug-in's bug is a failed check, not a crash of the checker
        return Check(kind, name, title, "FAIL", _exc_text(exc))
    if detail.startswith("SKIP: "):
        return Check(kind, name, title, "SKIP", detail[6:])
    return Check(kind, name, title, "PASS", detail)


def bad_values(p: Param) -> list:
    """Values ``p`` must refuse, from its own declaration (built-ins and plug-ins alike); an
    untyped parameter without choices (checked by the owner's ``check_params``) is taken to
    have its default's type."""
    kinds, out = p.kinds, [object()]
    if not kinds and p.choices is None:
        default = p.plain_default()
        if isinstance(default, (int, float)) and not isinstance(default, bool):
            kinds = (float,)
        elif isinstance(default, bool):
            kinds = (bool,)
        elif isinstance(default, str):
            kinds = (str,)
        else:
            return out
    if (int in kinds or float in kinds) and bool not in kinds:
        out.append(True)  # a bool is not a number
    if float in kinds:
        out += [math.nan, math.inf, -math.inf]
    if int in kinds and float not in kinds:
        out.append(2.5)
    if str not in kinds:
        out.append("not-a-value")
    if bool in kinds and int not in kinds:
        out.append(1)
    if p.choices is not None and str in kinds:
        out.append("no-such-choice")
    if p.min is not None:
        out.append(p.min if p.min_open else (p.min - 1 if kinds == (int,) else p.min - 0.5))
    if p.max is not None:
        out.append(p.max if p.max_open else (p.max + 1 if kinds == (int,) else p.max + 0.5))
    if not p.accepts_none() and p.derive is None:
        out.append(None)
    return out


def _declarations(owner: str, declared: Any) -> str:
    """Every parameter a Param with a type and a doc; the PASS detail, or :class:`_Fail`."""
    if not isinstance(declared, dict):
        raise _Fail(f"'parameters' must be a dict {{name: Param(...)}}, got {type(declared).__name__}")
    for key, p in declared.items():
        if not isinstance(p, Param):
            raise _Fail(f"parameter {key!r} is not declared with schedbench.hall.params.Param")
        if not p.doc.strip():
            raise _Fail(f"parameter {key!r} has no doc (Param(..., doc='what it means'))")
    return f"{len(declared)} declared" if declared else "none declared"


def _refusals(owner: str, declared: dict[str, Param], resolve: Callable[[dict], dict], base: dict) -> int:
    """Each bad value of each parameter, and an unknown name, refused by an error naming it."""
    tried = 0
    for key, p in declared.items():
        for value in bad_values(p):
            tried += 1
            try:
                resolve({**base, key: value})
            except ParameterError as exc:
                if f"'{key}'" not in str(exc):
                    raise _Fail(f"a bad value {value!r} of {key!r} is refused, but the error does not name it: {exc}")
                continue
            raise _Fail(f"parameter {key!r} accepts the bad value {value!r} (its Param should refuse it)")
    try:
        resolve({**base, "no_such_parameter": 1})
    except ParameterError:
        pass
    else:
        raise _Fail("an unknown parameter 'no_such_parameter' is accepted")
    return tried


#: values tried, in order, for a required parameter without a declared small case
_GUESSES = {int: (4, 2, 8, 1, 3, 16), float: (1.0, 0.5, 2.0, 0.25), bool: (True, False), str: ()}


def small_params(owner: Any, declared: dict[str, Param], resolve: Callable[[dict], dict]) -> dict:
    """Parameters of a small case: the owner's ``conformance_params``, plus a guess for each
    required parameter still missing (its first choice, else small numbers in its range)."""
    given = dict(getattr(owner, "conformance_params", None) or {})
    missing = [k for k, p in declared.items() if p.required and k not in given]
    for key in missing:
        p = declared[key]
        candidates = list(p.choices or ())
        for kind in p.kinds:
            candidates += [v for v in _GUESSES.get(kind, ()) if kind is not int or v >= (p.min or -math.inf)]
        for value in candidates:
            try:
                resolve({**given, key: value})
            except ParameterError as exc:
                if f"'{key}'" in str(exc):
                    continue  # this value of key is refused: try the next
            given[key] = value
            break
        else:
            raise _Fail(
                f"parameter {key!r} is required and no small value of it was found; declare "
                f"conformance_params = {{{key!r}: ...}} (the parameters of a small, fast case)"
            )
    return given


def _first_diff(a, b, what: str) -> str | None:
    """Where two runs differ, in words (None: they do not)."""
    x, y = a.outcome.machine, b.outcome.machine
    if not np.array_equal(x, y):
        j = int(np.flatnonzero(x != y)[0])
        return f"{what}: job {j} went to machine {int(x[j])}, then to {int(y[j])} (-1: none)"
    for field_name, noun in (
        ("rejected", "rejected"),
        ("reject_time", "rejection time"),
        ("dispatch_time", "dispatch time"),
    ):
        x, y = getattr(a.outcome, field_name), getattr(b.outcome, field_name)
        if not np.array_equal(x, y, equal_nan=field_name != "rejected"):
            j = int(np.flatnonzero(~((x == y) | (np.isnan(x) & np.isnan(y)) if x.dtype.kind == "f" else x == y))[0])
            return f"{what}: job {j}'s {noun} is {x[j]}, then {y[j]} (nan: never)"
    ca, cb = a.outcome.completion, b.outcome.completion
    if not np.allclose(ca, cb, rtol=1e-9, atol=1e-9, equal_nan=True):
        j = int(np.flatnonzero(~np.isclose(ca, cb, rtol=1e-9, atol=1e-9, equal_nan=True))[0])
        return f"{what}: job {j} completed at {ca[j]:g}, then at {cb[j]:g}"
    if not math.isclose(a.objective, b.objective, rel_tol=1e-9, abs_tol=1e-9) and not (
        math.isnan(a.objective) and math.isnan(b.objective)
    ):
        return f"{what}: objective {a.objective:g}, then {b.objective:g}"
    if a.status != b.status:
        return f"{what}: validator status {a.status}, then {b.status}"
    return None


def _doc_of(obj: Any) -> str:
    if isinstance(obj, Family):
        return obj.doc or ""
    own = obj.__dict__.get("__doc__") if isinstance(obj, type) else None
    return own or (inspect.getmodule(obj).__doc__ if inspect.getmodule(obj) else "") or ""


def _declares_source(cls: type, problems: tuple[str, ...], reference: str, doc: str) -> None:
    """The declarations an algorithm and an adversary share: known ``problems``, a rule label, a
    ``reference`` (what it should name: ``reference``) and a docstring (what it should say: ``doc``)."""
    for p in problems:
        if p not in PROBLEMS:
            raise _Fail(f"problem {p!r} is not one of {', '.join(PROBLEMS)}")
    if cls.rule_label not in ("Q", "R", "R✓"):
        raise _Fail(f"rule_label must be Q, R or R✓, got {cls.rule_label!r}")
    if not str(cls.reference or "").strip():
        raise _Fail(f"no 'reference' ({reference})")
    if not _doc_of(cls).strip():
        raise _Fail(f"no docstring (the class's or its module's: {doc})")


def _small_case(label: str, owner: Any, resolve: Callable[[dict], dict], small: dict) -> str:
    """The parameters check of an adversary or a family: its declarations, a small case (filled
    into ``small`` for the later checks) that ``resolve`` accepts, and bad values refused."""
    detail = _declarations(label, owner.parameters)
    small.update(small_params(owner, owner.parameters, resolve))
    resolve(small)
    tried = _refusals(label, owner.parameters, resolve, small)
    return (
        f"{detail}; small case {small or '(defaults)'} resolves; {tried} bad values and an unknown "
        "name refused, each naming its parameter"
    )


# ---------------------------------------------------------------------------------------- instances
def small_instances(cls: type[OnlineAlgorithm]) -> list[tuple[str, Instance]]:
    """(label, instance) of the small generated instances an algorithm is checked on: the ANR
    tree, random restricted assignment with unit jobs arriving over time, and (unless the
    algorithm is for unit sizes only) sized jobs with flow and rejection weights."""
    rr = get_family("random-restricted")
    out = [("anr-tree K=3", get_family("anr-tree").make(0, 0, K=3))]
    out += [
        (f"random-restricted unit #{i}", rr.make(i, 1, m=4, n=24, d=2, arrivals="poisson", rate=3.0)) for i in range(2)
    ]
    if not cls.unit_sizes_only:
        out += [
            (
                f"random-restricted sized #{i}",
                rr.make(i, 2, m=4, n=20, d=2, sizes="pow2", max_size_exp=2, weights="classes", reject_weights="flow"),
            )
            for i in range(2)
        ]
    return out


def _param_grid(cls: type[OnlineAlgorithm]) -> list[dict[str, Any]]:
    """Every combination of the parameters with a finite set of choices (the others: default)."""
    keys = sorted(k for k, p in cls.parameters.items() if p.choices)
    return [dict(zip(keys, combo)) for combo in itertools.product(*(cls.parameters[k].choices for k in keys))]


# ---------------------------------------------------------------------------------------- algorithm
def check_algorithm(name: str) -> list[Check]:
    """Every check of one registered algorithm (see the module docstring)."""
    from schedbench.scheduling.offline import flow_lower_bound, solve_opt
    from schedbench.scheduling.offline.result import oracle_value

    cls = get_algorithm(name)
    kind = "algorithm"
    checks: list[Check] = []

    def contract() -> str:
        if not (isinstance(cls, type) and issubclass(cls, OnlineAlgorithm)):
            raise _Fail("the registered class does not derive from OnlineAlgorithm")
        _declares_source(
            cls,
            cls.solved_problems(),
            "the paper and section it implements, or where the rule comes from",
            "the rule in one sentence",
        )
        return f"problem {', '.join(cls.solved_problems())}, model {cls.model}"

    checks.append(_run_check(kind, name, "declares the contract", contract))

    def parameters() -> str:
        detail = _declarations(f"algorithm {name!r}", cls.parameters)
        cls.resolve_params({})
        tried = _refusals(f"algorithm {name!r}", cls.parameters, cls.resolve_params, {})
        return f"{detail}; defaults resolve; {tried} bad values and an unknown name refused, each naming its parameter"

    checks.append(_run_check(kind, name, "parameters", parameters))
    if any(c.status == "FAIL" for c in checks):
        return checks  # a broken declaration: running it would only repeat the reason

    # ---- every run of the grid, twice with one seed, and on the step path if it has a compiled one
    runs: list[tuple[str, str, float | None, dict, Any, Any, Any]] = []
    failures: dict[str, str] = {}
    opts: dict[tuple[str, str], Any] = {}
    compiled = cls.has_compiled_path()

    def opt_of(label: str, inst: Instance, problem: str):
        if (label, problem) not in opts:
            opts[(label, problem)] = solve_opt(inst, problem, time_limit=OPT_TIME_LIMIT)
        return opts[(label, problem)]

    total = 0
    try:
        instances = small_instances(cls)
        grid = _param_grid(cls)
        for problem, (label, inst), eps, params in itertools.product(
            cls.solved_problems(), instances, cls.eps_values(EPS), grid
        ):
            total += 1
            what = f"{label}, problem {problem}, eps={eps}" + (f", {params}" if params else "")
            oracle = oracle_value(opt_of(label, inst, problem)) if cls.uses_oracle(cls.resolve_params(params)) else None
            # run_seconds: the hard limit behind this one (a loop inside numba code) follows it too
            kw = dict(eps=eps, seed=SEED, params=params, oracle=oracle, problem=problem, run_seconds=RUN_SECONDS)
            try:
                with wall_limit(RUN_SECONDS, lambda: _NoAnswer(f"{name!r}: {_slow_run()}")):
                    a = execute(cls, inst, fast=True, **kw)
                    b = execute(cls, inst, fast=True, **kw)
                    step = execute(cls, inst, fast=False, **kw) if compiled else None
            except Exception as exc:
                failures.setdefault("runs", f"on {what}: {_exc_text(exc)}")
                if isinstance(exc, _NoAnswer):
                    break  # one hanging run is the verdict: no need to wait on every other one
                continue
            runs.append((label, problem, eps, params, a, b, step))
    except Exception as exc:
        failures.setdefault("runs", _exc_text(exc))

    def ran() -> str:
        if "runs" in failures:
            raise _Fail(failures["runs"])
        return f"{total} runs on {len({r[0] for r in runs})} small instances"

    checks.append(_run_check(kind, name, "runs on small instances", ran))
    if not runs:
        return checks

    def valid() -> str:
        budget = 0
        for label, problem, eps, params, a, _, _ in runs:
            if a.status == "invalid":
                first = a.errors[0] if a.errors else "no reason given"
                raise _Fail(
                    f"on {label}, problem {problem}, eps={eps}: the validator refuses the outcome: {first}"
                    + (f" (and {len(a.errors) - 1} more)" if len(a.errors) > 1 else "")
                )
            if a.status == "budget_violated" and not cls.overruns_budget:
                raise _Fail(
                    f"on {label}, problem {problem}, eps={eps}: rejected more than the ε budget allows "
                    f"(largest prefix fraction {a.rejected_frac_max_prefix:.3g} > ε; status budget_violated); "
                    "a rule must check its budget before rejecting (schedbench.scheduling.budget.Budget.take)"
                )
            budget += a.status == "budget_violated"
        note = (
            f"; {budget} runs rejected more than the ε budget allows (a documented failing baseline: overruns_budget)"
            if budget
            else ""
        )
        return f"{len(runs)} outcomes valid{note}"

    checks.append(_run_check(kind, name, "passes the validator", valid))

    def deterministic() -> str:
        for label, problem, eps, params, a, b, _ in runs:
            diff = _first_diff(a, b, f"two runs with seed {SEED} on {label}, problem {problem}, eps={eps}")
            if diff:
                raise _Fail(diff + " (a random choice not drawn from the run's seed?)")
        return f"{len(runs)} pairs of runs with seed {SEED} equal"

    checks.append(_run_check(kind, name, "deterministic for a seed", deterministic))

    def alg_at_least_opt() -> str:
        proven = bounded = 0
        for label, problem, eps, params, a, _, _ in runs:
            if a.status != "ok" or a.rejected_frac > 0:
                continue
            speed = cls.speed_for(eps)
            inst = dict(instances)[label]
            if speed == 1.0 and not cls.migratory:
                opt = opt_of(label, inst, problem)
                if opt.status != "optimal":
                    continue
                floor, what = opt.value, f"the proven optimum {opt.value:g}"
                proven += 1
            elif PROBLEMS[problem].processes:
                floor = flow_lower_bound(inst, problem).lower_bound / speed
                what = f"the trivial bound max w·p / speed = {floor:g}"
                bounded += 1
            else:
                opt = opt_of(label, inst, problem)
                floor, what = opt.denominator, f"OPT {opt.denominator:g}"
                bounded += 1
            if a.objective < floor - 1e-9:
                raise _Fail(
                    f"on {label}, problem {problem}, eps={eps} it rejects nothing and reaches "
                    f"{a.objective:g}, below {what}: the outcome claims better than possible"
                )
        if not proven and not bounded:
            return "SKIP: no run without rejections at speed 1 (nothing to compare with OPT)"
        return f"{proven} runs at speed 1 without rejections ≥ the proven OPT" + (
            f", {bounded} others ≥ their lower bound" if bounded else ""
        )

    checks.append(_run_check(kind, name, "ALG ≥ OPT where it must", alg_at_least_opt))

    def fast_equals_step() -> str:
        if not compiled:
            return "SKIP: it declares no compiled path (dispatch_all / compiled_run): nothing to compare"
        compared = 0
        for label, problem, eps, params, a, _, step in runs:
            if a.outcome.path == "step":
                continue  # this combination declines its compiled path
            compared += 1
            diff = _first_diff(a, step, f"on {label}, problem {problem}, eps={eps}, fast vs step path")
            if diff:
                raise _Fail(diff)
        if not compared:
            return "SKIP: every run declined the compiled path (it returned None)"
        return f"{compared} compiled runs equal their step-path runs"

    checks.append(_run_check(kind, name, "fast path = step path", fast_equals_step))
    return checks


# ---------------------------------------------------------------------------------------- adversary
def _opponent(adv: type[Adversary], params: dict) -> tuple[type[OnlineAlgorithm], float | None]:
    """A registered algorithm that may play this adversary (its problem and size model), plain
    if one exists, built-in names first, with the ε it runs at."""
    problem, unit = adv.problem_for(params), adv.unit_sizes_for(params)
    fits = [get_algorithm(n) for n in algorithm_names()]
    fits = [c for c in fits if problem in c.solved_problems() and not c.migratory and (unit or not c.unit_sizes_only)]
    if not fits:
        raise _Fail(f"no registered algorithm solves {problem!r} to play against it")
    cls = sorted(fits, key=lambda c: (c.model != "plain", c.needs_opt, c.name))[0]
    return cls, (None if cls.model == "plain" else 0.25)


def check_adversary(name: str) -> list[Check]:
    """Every check of one registered adversary (see the module docstring)."""
    from schedbench.scheduling.offline import solve_opt

    adv = get_adversary(name)
    kind = "adversary"
    checks: list[Check] = []
    eps = 0.25

    def contract() -> str:
        if not (isinstance(adv, type) and issubclass(adv, Adversary)):
            raise _Fail("the registered class does not derive from Adversary")
        _declares_source(adv, (adv.problem,), "where the construction comes from", "the construction and its OPT")
        return f"problem {adv.problem}"

    checks.append(_run_check(kind, name, "declares the contract", contract))
    small: dict = {}

    def parameters() -> str:
        return _small_case(f"adversary {name!r}", adv, lambda p: adv.resolve_params(p, eps=eps), small)

    checks.append(_run_check(kind, name, "parameters", parameters))
    if any(c.status == "FAIL" for c in checks):
        return checks
    played: list = []

    def plays() -> str:
        cls, alg_eps = _opponent(adv, adv.resolve_params(small, eps=eps))
        for _ in range(2):
            game = adv(eps=alg_eps if alg_eps is not None else eps, seed=5, **small)
            played.append(execute(cls, game, eps=alg_eps, seed=5, run_seconds=RUN_SECONDS))  # a loop: a FAIL
        a = played[0]
        if a.instance.n == 0:
            raise _Fail(f"against {cls.name} it released no job")
        return f"against {cls.name}: {a.instance.n} jobs on {a.instance.m} machines, ALG = {a.objective:g}"

    checks.append(_run_check(kind, name, "plays a small game", plays))
    if len(played) < 2:
        return checks
    a, b = played

    def valid() -> str:
        if a.status == "invalid":
            raise _Fail(f"the validator refuses the game's outcome: {a.errors[0] if a.errors else 'no reason given'}")
        return f"status {a.status}"

    checks.append(_run_check(kind, name, "passes the validator", valid))

    def deterministic() -> str:
        field_name = differing_field(a.instance, b.instance)
        if field_name is not None:
            raise _Fail(
                f"two games with seed 5 realise different instances ({field_name} differs: "
                "a random choice not drawn from the adversary's seed?)"
            )
        diff = _first_diff(a, b, "two games with seed 5")
        if diff:
            raise _Fail(diff)
        if a.claimed_opt != b.claimed_opt:
            raise _Fail(f"two games with seed 5 claim OPT {a.claimed_opt} and {b.claimed_opt}")
        return "two games with seed 5 equal"

    checks.append(_run_check(kind, name, "deterministic for a seed", deterministic))

    def claimed_opt() -> str:
        claimed = a.claimed_opt
        if claimed is None or not (isinstance(claimed, (int, float)) and math.isfinite(claimed) and claimed > 0):
            raise _Fail(f"its 'opt' must be a finite number > 0, got {claimed!r}")
        opt = solve_opt(a.instance, a.problem, time_limit=OPT_TIME_LIMIT)
        if opt.status == "optimal":
            if not math.isclose(claimed, opt.value, rel_tol=1e-9, abs_tol=1e-9):
                raise _Fail(
                    f"it claims OPT = {claimed:g}, but the solver proves OPT = {opt.value:g} on the realised "
                    "instance (ratios against the claim would be wrong)"
                )
            return f"claimed OPT {claimed:g} = the solver's proven optimum"
        if claimed < opt.lower_bound - 1e-9 or (math.isfinite(opt.value) and claimed > opt.value + 1e-9):
            raise _Fail(
                f"it claims OPT = {claimed:g}, outside the solver's bounds [{opt.lower_bound:g}, {opt.value:g}]"
            )
        return f"SKIP: the solver only bounds OPT ({opt.status}); the claim {claimed:g} lies within the bounds"

    checks.append(_run_check(kind, name, "claimed OPT is the solver's", claimed_opt))
    return checks


# ---------------------------------------------------------------------------------------- family
def check_family(name: str) -> list[Check]:
    """Every check of one registered instance family (see the module docstring)."""
    from schedbench.scheduling.offline import solve_opt

    fam = get_family(name)
    kind = "family"
    checks: list[Check] = []

    def contract() -> str:
        if not isinstance(fam, Family):
            raise _Fail("the registered object is not a schedbench.scheduling.instances.base.Family")
        if not _doc_of(fam).strip():
            raise _Fail("no doc (Family(..., doc='what the instances are'))")
        return "a Family with a doc"

    checks.append(_run_check(kind, name, "declares the contract", contract))
    small: dict = {}

    def parameters() -> str:
        return _small_case(f"family {name!r}", fam, fam.resolve, small)

    checks.append(_run_check(kind, name, "parameters", parameters))
    if any(c.status == "FAIL" for c in checks):
        return checks
    built: list[Instance] = []

    def builds() -> str:
        for _ in range(2):
            built.append(fam.make_within(RUN_SECONDS, 0, 7, **small))  # a loop: a FAIL naming it
        inst = built[0]
        if not isinstance(inst, Instance):
            raise _Fail(f"make() returned {type(inst).__name__}, not an Instance")
        if inst.n == 0:
            raise _Fail("the small case has no job")
        return f"{inst.n} jobs on {inst.m} machines"

    checks.append(_run_check(kind, name, "builds a small instance", builds))
    if len(built) < 2:
        return checks
    a, b = built

    def deterministic() -> str:
        field_name = differing_field(a, b)
        if field_name is not None:
            raise _Fail(
                f"two instances with seed 7 differ ({field_name}): draw every random number from "
                "the generator's rng argument"
            )
        other = fam.make_within(RUN_SECONDS, 1, 7, **small)
        same = all(
            np.array_equal(getattr(a, f), getattr(other, f)) for f in ("release", "size", "indptr", "indices")
        ) and getattr(a, "n") == getattr(other, "n")
        return "two instances with seed 7 equal" + ("; index 1 gives the same instance (seed unused?)" if same else "")

    checks.append(_run_check(kind, name, "deterministic for a seed", deterministic))

    def sizes() -> str:
        unit = fam.unit_sizes(small)
        if unit and (a.size > 1).any():
            j = int(np.flatnonzero(a.size > 1)[0])
            raise _Fail(f"it declares unit sizes for these parameters, but job {j} has size {int(a.size[j])}")
        return "unit sizes, as declared" if unit else "sized (unit-size-only algorithms are refused on it)"

    checks.append(_run_check(kind, name, "sizes as declared", sizes))

    def usable() -> str:
        greedy = get_algorithm("greedy")
        run = execute(greedy, a, seed=0)
        if run.status == "invalid":
            raise _Fail(f"greedy's outcome on it is refused by the validator: {run.errors[0]}")
        opt = solve_opt(a, "load", time_limit=OPT_TIME_LIMIT)
        if opt.status == "optimal" and run.objective < opt.value - 1e-9:
            raise _Fail(f"greedy reaches {run.objective:g}, below the proven OPT {opt.value:g}")
        return f"greedy valid (max load {run.objective:g}), makespan OPT {opt.value:g} ({opt.status})"

    checks.append(_run_check(kind, name, "a built-in runs on it, OPT solves", usable))
    return checks


# ---------------------------------------------------------------------------------------- entry points
_CHECKERS = {"algorithm": check_algorithm, "adversary": check_adversary, "family": check_family}


def check_name(kind: str, name: str) -> list[Check]:
    """Every check of one registered algorithm, adversary or family (a built-in too)."""
    return _CHECKERS[kind](name)


def registered_by(files: list[str]) -> list[tuple[str, str]]:
    """(kind, name) of everything the plug-in ``files`` registered, in kind and name order."""
    wanted = {str(Path(f).resolve()) for f in files}
    return [(kind, name) for kind in KINDS for name in names(kind) if str(Path(origin(kind, name)).resolve()) in wanted]


def plugin_paths(path: str | Path) -> list[Path]:
    """The plug-in files of a path (the file, or a folder's ``*.py`` files not starting with
    ``_``); a missing path or a file that is not ``.py`` is a :class:`PluginError` naming it."""
    return plugin_files_of(
        Path(path).expanduser(),
        str(path),
        skip=("_",),
        not_py="not a .py file (give a plug-in file or a folder of them)",
    )


def check_path(path: str | Path) -> Report:
    """Load ``path`` (a plug-in file or folder) as plug-ins and check each algorithm, adversary
    and family it registers. A plug-in that does not import, or whose name clashes, is one
    failed check naming its file and line. ``report.ok`` says whether everything passed;
    ``report.text()`` is what ``schedbench check`` prints."""
    files = [str(f.resolve()) for f in plugin_paths(path)]
    report = Report(str(path))
    if not files:
        report.checks.append(
            Check("plug-in", "", "loads", "FAIL", f"{path}: no plug-in file (*.py not starting with _)")
        )
        return report
    package = Path(__file__).resolve().parents[1]
    outside = [f for f in files if not Path(f).is_relative_to(package)]  # the package's own modules are loaded
    try:
        if outside:
            use_plugins(outside, source="schedbench check")
        found = registered_by(files)
    except PluginError as exc:
        report.checks.append(Check("plug-in", "", "loads", "FAIL", " ".join(str(exc).split())))
        return report
    if not found:
        report.checks.append(
            Check(
                "plug-in",
                "",
                "loads",
                "FAIL",
                f"{path} registers no algorithm, adversary or family (@register_algorithm, "
                "@register_adversary, register_family)",
            )
        )
        return report
    what = ", ".join(f"{k} {n}" for k, n in found)
    report.checks.append(Check("plug-in", "", "loads", "PASS", f"{len(files)} file(s) loaded; they register {what}"))
    for kind, name in found:
        report.checks += check_name(kind, name)
    return report
