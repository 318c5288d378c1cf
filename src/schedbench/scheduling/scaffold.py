"""``schedbench new``: a documented plug-in file and its test, written from the contract.

:func:`new_plugin` writes, into a folder of the user's (docs/plugins.md, "Scaffold, check,
compare"):

* ``<name>.py`` (the name with ``-`` → ``_``): one algorithm, adversary or instance family that
  runs as written — an algorithm dispatching each job to its least-loaded eligible machine and
  rejecting nothing; an adversary that traps any algorithm which accepts everything (pairs of
  machines, OPT = 1); a family of random restricted-assignment instances — every required
  attribute present and explained where it is declared, so the rule is the only thing to change;
* ``test_<name>.py``: a pytest file running :func:`schedbench.scheduling.conformance.check_path`
  (what ``schedbench check`` runs) on that file.

Nothing is overwritten: an existing file, an invalid name, or a name already registered as the
same kind (a built-in or a loaded plug-in) is a :class:`ScaffoldError` naming it.
"""

from __future__ import annotations

import keyword
import re
from pathlib import Path

from schedbench.scheduling.problems import PROBLEMS, problem_names
from schedbench.scheduling.registry import KINDS, names, origin

__all__ = ["ScaffoldError", "new_plugin", "MODELS", "file_stem"]

MODELS = ("plain", "rejection", "speed")
#: the longest plug-in name (its file name, with .py and test_, stays well under file-system limits)
MAX_NAME = 64
_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9]*(?:[-_][A-Za-z0-9]+)*$")


class ScaffoldError(ValueError):
    """A name, option or target file ``schedbench new`` refuses; the message names it."""


def file_stem(name: str) -> str:
    """The module (file) name of a plug-in named ``name``: ``-`` → ``_``."""
    return name.replace("-", "_")


def _class_name(name: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in re.split(r"[-_]", name))


def check_name(kind: str, name: str) -> None:
    """Refuse a name that is not a plug-in name or is already registered as ``kind``."""
    if len(name) > MAX_NAME:
        raise ScaffoldError(
            f"NAME {name[:20]!r}…: {len(name)} characters, more than a plug-in name may have ({MAX_NAME})"
        )
    if not _NAME.match(name):
        raise ScaffoldError(
            f"NAME {name!r}: a plug-in name starts with a letter and holds letters, digits and single "
            "'-' or '_' between them (e.g. my-srpt)"
        )
    stem = file_stem(name)
    if keyword.iskeyword(stem) or stem.startswith("test"):
        raise ScaffoldError(f"NAME {name!r}: its file name {stem}.py would not load as a plug-in (pick another)")
    if name in names(kind):
        article = "an" if kind[0] in "aeiou" else "a"
        raise ScaffoldError(
            f"NAME {name!r}: already registered as {article} {kind}, by {origin(kind, name)} (pick another)"
        )


# ---------------------------------------------------------------------------------------- templates
_ALGORITHM = '''"""{name}: {rule_title} (a plug-in written by `schedbench new algorithm`).

Each job goes on arrival to its eligible machine with {measure}
(ties: parameter ``ties``); {processing}Nothing is rejected.
{model_text}

Replace the rule in ``on_arrival`` (and, if it needs them, add ``on_slot`` / ``after_arrival``:
see src/schedbench/scheduling/algorithms/base.py for the whole contract), keep the docstring's
first sentence naming the rule (``schedbench describe`` shows it), then run
``schedbench check {stem}.py``.
"""

from __future__ import annotations

from schedbench.hall.params import Param
from schedbench.scheduling.algorithms.base import JobView, OnlineAlgorithm
from schedbench.scheduling.registry import register_algorithm


@register_algorithm
class {cls}(OnlineAlgorithm):
    #: the registry name: what configs, `schedbench run` and the results' algorithm column use
    name = "{name}"
    #: the problem it solves by default ({problems});
    #: ``problems`` lists further ones the same rule solves (a run's problem: ``self.problem``)
    problem = "{problem}"
    problems = ()
    #: rejection (may reject an ε fraction), speed (the engine runs machines at speed 1 + ε;
    #: ε = 0 is its speed-1 reference row) or plain (no ε)
    model = "{model}"
    #: Q: quoted from a paper, R: reconstructed, R✓: reconstructed and checked
    rule_label = "R"
    #: the paper and section it implements (the method table of the PDF shows it)
    reference = "a user's baseline (replace by the paper and section it implements)"
    #: whether it assumes the offline optimum T* is given (then ``self.opt`` holds it)
    needs_opt = False
    #: whether it is only defined for unit sizes (then sized families are refused before any work)
    unit_sizes_only = False
    #: every parameter a config may set or sweep, each a Param (type, range, choices, doc,
    #: default); a bad value is refused naming it; read them from ``self.params``
    parameters = {{
        "ties": Param("index", ("index", "last"), "which tied machine wins: the lowest or the highest index", type=str),
    }}

    def on_arrival(self, job: JobView, view) -> int:
        """The machine of the arriving ``job`` (one of ``job.eligible``), REJECT or HOLD.

        ``view`` is the engine's read-only present: ``view.time``, ``view.speed``,
        ``view.queue(i)``, ``view.remaining_work(i)``, ``view.load(i)``, ``view.held()``, the
        budget left, never the future. Randomness: ``numpy.random.default_rng(self.seed)``
        built in ``__init__`` (two runs with one seed must be equal)."""
        eligible = job.eligible.tolist()
        if self.params["ties"] == "last":
            eligible.reverse()
        return min(eligible, key=lambda i: {key})
'''

_COMPILED = '''"""{name}: least remaining work, FIFO per machine, with a compiled path (a plug-in written
by `schedbench new algorithm --compiled`).

Each job goes on arrival to its eligible machine with the least remaining work (ties:
parameter ``ties``); each machine runs its jobs in the order they arrived. Nothing is rejected.
{model_text}

Two paths, one rule: ``on_arrival`` is the step path (the reference, run by the engine one
decision at a time); ``compiled_run`` runs the whole instance in ``{stem}_rule``, compiled on
the suite's machine core (src/schedbench/scheduling/machines.py: ``arrive``, ``eligible``,
``remaining_work``, ``queue_length``, ``dispatch``). Change both alike, then run
``schedbench check {stem}.py``: it fails when the two paths disagree on any run.
"""

from __future__ import annotations

from schedbench.hall.jit import compiled
from schedbench.hall.params import Param
from schedbench.scheduling import machines as mc
from schedbench.scheduling.algorithms.base import JobView, OnlineAlgorithm
from schedbench.scheduling.registry import register_algorithm


@register_algorithm
class {cls}(OnlineAlgorithm):
    name = "{name}"
    problem = "{problem}"
    model = "{model}"
    rule_label = "R"
    reference = "a user's baseline (replace by the paper and section it implements)"
    parameters = {{"ties": Param("index", ("index", "last"), "which tied machine wins: lowest or highest index", type=str)}}

    def on_arrival(self, job: JobView, view) -> int:
        eligible = job.eligible.tolist()
        if self.params["ties"] == "last":
            eligible.reverse()
        return min(eligible, key=lambda i: view.remaining_work(i))

    def compiled_run(self, inst, order):
        last = self.params["ties"] == "last"
        return mc.run({stem}_rule, inst, order, type(self).speed_for(self.eps), last)


@compiled
def {stem}_rule(machines, last):
    """Every arrival in order: its eligible machines brought up to its release, then the one
    with the least remaining work (the last of a tie when ``last``) takes it."""
    for pos in range(machines.n):
        mc.arrive(machines, pos)
        best, least = -1, 0.0
        for i in mc.eligible(machines, pos):
            w = mc.remaining_work(machines, i)
            if best < 0 or w < least or (last and w == least):
                best, least = i, w
        mc.dispatch(machines, pos, best)
'''

_REJECTING = '''"""{name}: {rule_title}; reject on arrival past a threshold, within the ε budget
(a plug-in written by `schedbench new algorithm --model rejection`).

Each job goes on arrival to its eligible machine with {measure} (ties: the lowest
index), or is rejected instead when that machine's {what} plus the job's size would pass
θ·L(t), where L(t) = max(p_max, Σp/m) over the jobs arrived so far (a lower bound on the
optimum of the prefix: no oracle), and the budget allows it: at every prefix the rejected
{weight} stays within ε times the arrived (``Budget.take``, the rule the validator checks).
{processing}θ (``theta``) is the knob to tune.

Replace the rule in ``on_arrival`` (the contract: src/schedbench/scheduling/algorithms/base.py),
keep the docstring's first sentence naming it, then run ``schedbench check {stem}.py``.
"""

from __future__ import annotations

from schedbench.hall.params import Param
from schedbench.scheduling.algorithms.base import JobView, OnlineAlgorithm
from schedbench.scheduling.budget import Budget
from schedbench.scheduling.model import REJECT
from schedbench.scheduling.problems import get_problem
from schedbench.scheduling.registry import register_algorithm


@register_algorithm
class {cls}(OnlineAlgorithm):
    name = "{name}"
    problem = "{problem}"
    model = "rejection"
    rule_label = "R"
    reference = "a user's baseline (replace by the paper and section it implements)"
    #: a Param: Param(default, choices, doc, type=..., min=..., max=..., min_open=..., max_open=...,
    #: required=..., nullable=...); a bad value is refused naming the parameter
    parameters = {{"theta": Param(1.5, None, "reject when {what} + p > θ·L(t)", type=float, min=0, min_open=True)}}

    def __init__(self, m: int, **kwargs) -> None:
        super().__init__(m, **kwargs)
        self.budget = Budget(self.eps, get_problem(self.problem))  # the problem's budget weights
        self.total, self.pmax = 0.0, 0.0

    def on_arrival(self, job: JobView, view) -> int:
        self.budget.arrive(self.budget.weight(job))
        self.total += job.size
        self.pmax = max(self.pmax, float(job.size))
        i = min(job.eligible.tolist(), key=lambda k: {key})
        estimate = max(self.pmax, self.total / self.m)
        over = {key_i} + job.size > self.params["theta"] * estimate
        if over and self.budget.take(self.budget.weight(job)):
            return REJECT
        return i
'''

_ADVERSARY = '''"""{name}: a pairing trap for algorithms that accept everything (a plug-in written by
`schedbench new adversary`).

m = 2·pairs machines, paired (0, 1), (2, 3), ... . At time 0 each pair gets one unit job that
may run on either member; once the algorithm has placed them, each pair gets a second unit job
restricted to the member the first one went to (if it was rejected: the pair's first member).
An algorithm that accepts every job ends with two jobs on one machine: {objective} 2.
OPT = 1: each first job goes to the member the second one does not use.

Replace ``next_jobs`` / ``observe`` by your construction (see
src/schedbench/scheduling/adversaries/base.py), keep ``opt`` equal to the optimum of the instance
it realises (``schedbench check`` compares it with the solver's), then run
``schedbench check {stem}.py``.
"""

from __future__ import annotations

from schedbench.hall.params import Param
from schedbench.scheduling.adversaries.base import Adversary
from schedbench.scheduling.model import JobSpec
from schedbench.scheduling.registry import register_adversary


@register_adversary
class {cls}(Adversary):
    #: the registry name: what configs and `schedbench compare --adversary` use
    name = "{name}"
    #: the problem its instances belong to ({problems})
    problem = "{problem}"
    #: Q: quoted from a paper, R: reconstructed, R✓: reconstructed and checked
    rule_label = "R"
    #: whether every job it releases has size 1 (unit-size-only algorithms may play it)
    unit_sizes = True
    #: its parameters, each a Param (type, range, doc, default); read them from ``self.params``
    parameters = {{
        "pairs": Param(2, doc="pairs of machines (m = 2·pairs)", type=int, min=1, max=10_000),
    }}
    #: where the construction comes from
    reference = "a user's adversary (replace by the paper and section it implements)"

    def __init__(self, eps=None, seed=0, **params):
        super().__init__(eps, seed, **params)
        self.round = 0
        self.first: list[int] = []  # the ids of the first jobs, one per pair

    @property
    def m(self) -> int:
        return 2 * self.params["pairs"]

    @property
    def opt(self) -> float:
        """The optimum of the instance it builds, known before the game (algorithms that assume
        T* receive it)."""
        return 1.0

    def next_jobs(self, view):
        """The next batch (release ≥ ``view.time``), chosen from the algorithm's decisions so
        far; None ends the game."""
        self.round += 1
        pairs = range(self.params["pairs"])
        if self.round == 1:
            return [JobSpec(view.time, 1, [2 * k, 2 * k + 1]) for k in pairs]
        if self.round == 2:
            chosen = []
            for k, j in zip(pairs, self.first):
                machine = view.machine_of(j)
                chosen.append(2 * k if machine < 0 or view.is_rejected(j) else machine)
            return [JobSpec(view.time, 1, [i]) for i in chosen]
        return None

    def observe(self, view, ids):
        """The ids the engine gave the last batch."""
        if self.round == 1:
            self.first = list(ids)
'''

_FAMILY = '''"""{name}: random restricted-assignment instances (a plug-in written by `schedbench new family`).

n jobs on m machines; each job may run on d machines drawn uniformly without replacement;
release times are uniform on 0..horizon (sorted); sizes are 1, or uniform on 1..max_size when
max_size > 1. Every random number comes from the ``rng`` the suite passes (derived from the
base seed, the family and the instance index), so an instance is reproducible.

Replace ``_generate`` by your generator, keep ``parameters`` and ``sized`` in step with it, then
run ``schedbench check {stem}.py``.
"""

from __future__ import annotations

import numpy as np

from schedbench.hall.params import Param
from schedbench.scheduling.instances.base import Family, FamilyParameterError, csr_from_fixed_degree
from schedbench.scheduling.model import Instance
from schedbench.scheduling.registry import register_family


def _generate(rng: np.random.Generator, m: int, n: int, d: int, horizon: int, max_size: int) -> Instance:
    release = np.sort(rng.integers(0, horizon + 1, n))
    size = np.ones(n, np.int64) if max_size == 1 else rng.integers(1, max_size + 1, n)
    choices = np.stack([rng.choice(m, d, replace=False) for _ in range(n)]) if n else np.zeros((0, d), np.int64)
    indptr, indices = csr_from_fixed_degree(np.sort(choices, axis=1))
    ones = np.ones(n)  # flow and rejection weights (the weighted problems read them)
    return Instance(m, release, size, indptr, indices, ones, ones)


def _check(params: dict) -> None:
    """Cross-parameter checks: raise FamilyParameterError naming the parameter."""
    if params["d"] > params["m"]:
        raise FamilyParameterError(
            f"family {{FAMILY_NAME!r}}: parameter 'd' = {{params['d']}} exceeds 'm' = {{params['m']}}"
        )


FAMILY_NAME = "{name}"

FAMILY = register_family(
    Family(
        name=FAMILY_NAME,
        #: each a Param (type, range, doc, default or required=True); configs set them under params:
        parameters={{
            "m": Param(4, doc="machines", type=int, min=1),
            "n": Param(20, doc="jobs", type=int, min=1),
            "d": Param(2, doc="eligible machines per job (at most m)", type=int, min=1),
            "horizon": Param(10, doc="releases uniform on 0..horizon", type=int, min=0),
            "max_size": Param(1, doc="sizes uniform on 1..max_size (1: unit jobs)", type=int, min=1),
        }},
        generator=_generate,
        #: whether these parameters may produce a size > 1 (unit-size-only algorithms are refused then)
        sized=lambda p: p["max_size"] > 1,
        doc=__doc__.split("\\n\\n")[1].replace("\\n", " "),
        check=_check,
    )
)
'''

_TEST = '''"""The conformance check of {file} (written by `schedbench new {kind}`): what
`schedbench check {file}` runs — {what}. Run it with `python -m pytest {test}`."""

from pathlib import Path

from schedbench.scheduling.conformance import check_path

PLUGIN = Path(__file__).resolve().with_name("{file}")


def test_{stem}_passes_the_conformance_check():
    report = check_path(PLUGIN)
    assert report.ok, "\\n" + report.text()
'''

_WHAT = {
    "algorithm": "it runs on small instances, deterministically for a seed, passes the validator, "
    "ALG >= OPT where it must, its parameters are checked, a compiled path equals the step path",
    "adversary": "its parameters are checked, it plays a small game deterministically for a seed, "
    "passes the validator, and claims the solver's OPT",
    "family": "its parameters are checked, it builds a small instance, the same one for one seed, "
    "with the sizes it declares",
}

_MEASURE = {
    False: ("the least load (total size dispatched to it)", "view.load(i)", ""),
    True: (
        "the least remaining work",
        "view.remaining_work(i)",
        "each machine runs its jobs\nin the order they arrived (FIFO). ",
    ),
}
_MODEL_TEXT = {
    "plain": "It takes no ε.",
    "rejection": "It is in the rejection model (it may reject an ε fraction of the jobs); this compiled "
    "starting rule uses none of its budget (without --compiled the template rejects within it).",
    "speed": "Its machines run at speed 1 + ε (the engine applies it).",
}


def render(
    kind: str, name: str, problem: str | None = None, model: str | None = None, with_compiled: bool = False
) -> str:
    """The text of a new plug-in file (``with_compiled``: an algorithm with a compiled path)."""
    stem, cls = file_stem(name), _class_name(name)
    problems = ", ".join(problem_names())
    if kind == "algorithm" and with_compiled:
        return _COMPILED.format(
            name=name, cls=cls, stem=stem, problem=problem, model=model, model_text=_MODEL_TEXT[model]
        )
    if kind == "algorithm":
        flow = PROBLEMS[problem].processes
        measure, key, processing = _MEASURE[flow]
        common = dict(
            name=name,
            cls=cls,
            stem=stem,
            problem=problem,
            measure=measure,
            rule_title="least remaining work, FIFO per machine" if flow else "least-loaded eligible machine",
        )
        if model == "rejection":
            return _REJECTING.format(
                **common,
                key=key.replace("(i)", "(k)"),
                key_i=key,
                processing=processing.replace("\n", " ").replace("each machine", "Each machine"),
                what="remaining work" if flow else "load",
                weight={"count": "number of jobs"}.get(PROBLEMS[problem].budget_weight, "weight"),
            )
        return _ALGORITHM.format(
            **common, problems=problems, model=model, key=key, processing=processing, model_text=_MODEL_TEXT[model]
        )
    if kind == "adversary":
        objective = "max load" if not PROBLEMS[problem].processes else "one job waits a slot, max flow time"
        return _ADVERSARY.format(name=name, cls=cls, stem=stem, problem=problem, problems=problems, objective=objective)
    return _FAMILY.format(name=name, stem=stem)


def new_plugin(
    kind: str,
    name: str,
    directory: str | Path = ".",
    problem: str | None = None,
    model: str | None = None,
    with_compiled: bool = False,
) -> list[Path]:
    """Write the plug-in file and its test into ``directory`` (created if missing); return both
    paths. ``problem`` (algorithm, adversary; default ``load``, ``maxflow`` with ``with_compiled``)
    and ``model`` (algorithm only; default ``plain``) fill in the declaration; ``with_compiled``
    (algorithm, a flow-time problem): a rule with a compiled path on the machine core."""
    if kind not in KINDS:
        raise ScaffoldError(f"kind {kind!r}: one of {', '.join(KINDS)}")
    if with_compiled and kind != "algorithm":
        raise ScaffoldError(f"--compiled: applies to an algorithm only, not to a {kind}")
    if with_compiled:
        problem = problem or "maxflow"
        if problem in PROBLEMS and not PROBLEMS[problem].processes:
            raise ScaffoldError(
                f"--compiled: the compiled template runs machines that process jobs (a flow-time problem: "
                f"{', '.join(p for p in problem_names() if PROBLEMS[p].processes)}), not --problem {problem}"
            )
    if kind == "family" and problem is not None:
        raise ScaffoldError("--problem: does not apply to a family (a family's instances serve every problem)")
    if kind != "algorithm" and model is not None:
        raise ScaffoldError(f"--model: applies to an algorithm only, not to a {kind}")
    problem = problem or "load"
    model = model or "plain"
    if problem not in PROBLEMS:
        raise ScaffoldError(f"--problem: unknown problem {problem!r}; one of {', '.join(problem_names())}")
    if model not in MODELS:
        raise ScaffoldError(f"--model: unknown model {model!r}; one of {', '.join(MODELS)}")
    check_name(kind, name)
    folder = Path(directory).expanduser()
    if folder.exists() and not folder.is_dir():
        raise ScaffoldError(f"--dir {directory}: not a folder")
    stem = file_stem(name)
    plugin, test = folder / f"{stem}.py", folder / f"test_{stem}.py"
    for target in (plugin, test):
        if target.exists():
            raise ScaffoldError(f"{target}: already exists (schedbench new never overwrites a file)")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        plugin.write_text(render(kind, name, problem, model, with_compiled), encoding="utf-8")
        test.write_text(
            _TEST.format(file=plugin.name, kind=kind, what=_WHAT[kind], test=test.name, stem=stem), encoding="utf-8"
        )
    except OSError as exc:
        for target in (plugin, test):  # nothing half-written stays
            if target.is_file():
                target.unlink()
        raise ScaffoldError(f"--dir {directory}: cannot write there ({exc.strerror or exc})") from None
    return [plugin, test]
