"""The practice comparison (config section ``practice``): may an online algorithm do better by
turning away an ε fraction of jobs than by running 1+ε faster — measured on held-out instances,
with tuned constants on both sides, paired per instance, without an oracle and without OPT.

Protocol (``docs/models/rejection-model.md`` §13; the paper's method section states it):

1. **Split by instance index.** A family's instances ``0 .. train-1`` are its training set,
   ``train .. train+test-1`` its test set: disjoint random streams for the random families
   (:meth:`Family.make` keys each instance by its index), disjoint windows of the log for the
   trace families. Each run records its ``split``, ``instance_index`` and the family seed.
2. **Tuning on the training set only.** For every policy (rejection model) and baseline (speed
   model; for LoadBalancing a plain rule, see 4) with a ``tune`` grid, every combination of the
   grid runs on every training instance at each ε; the combination with the smallest geometric
   mean of the objective over the training instances wins (pairs share the instances, so this
   ranks as the geometric mean of ALG/OPT would, and needs no OPT); a combination with a run
   that fails the validator or the budget is out; ties go to the first in grid order. The test
   set is never read while tuning (:func:`tune` receives training instances only). A policy
   entry may set a **spending floor** ``spend``: only combinations whose budget use (rejected /
   ε) reaches it on every training instance compete — the same policy held to using its budget,
   reported beside its unconstrained choice (what spending costs or gains); the twin shares the
   unconstrained entry's training runs.
3. **Test.** The chosen combination of each entry runs on every test instance at that ε; the
   row records the chosen parameters (``p_<name>``), how many candidates were tried and the
   winning training score. Nothing reported is chosen on the test data.
4. **Pairs.** For each (family, ε, policy, baseline) and each test instance, the ratio
   ALG_rejection / ALG_speed (exact without OPT: both ran on the same instance); the table gives
   the geometric mean with a 95 % percentile-bootstrap interval (resampling instances), the win
   rate (ratio < 1; a tie counts one half) with a Wilson interval, and the budget the policy
   used (rejected / ε, mean and smallest over instances; the largest prefix fraction / ε). For
   LoadBalancing the speed side is a plain rule at speed 1+ε, whose makespan is its load over
   1+ε (:func:`~schedbench.scheduling.speed.machine_speed`): the machines process nothing over
   time, so speed only divides the loads.
5. **Headline and flags.** Per (family, ε) the headline pair is the policy and the baseline with
   the best training score (``selected``: chosen on the training set, like every constant). A
   (family, ε) where every policy leaves its budget essentially unused (mean use <
   ``min_budget_used``) or where every pair ties on every instance — both decided on the
   training runs of the chosen settings, not on the test rows — does not exercise the question
   and is left out of the headline (``headline`` False, ``flag`` says why), as is a pair with a
   test run the validator refused (``invalid runs``: never hidden, the table shows the flag) and
   a pair over fewer than ten instances. Training and test instances must differ: a family whose
   instances do not depend on the index is refused when the job runs.

Every run goes through :func:`schedbench.scheduling.play.execute` and the validator; only
``status == "ok"`` runs are paired (the others are counted in ``invalid``). The pairs, the
flags, the table, the finding and the figure are :mod:`schedbench.scheduling.stage.practice_report`
(a separate module: the family jobs' sources do not include the drawing code).
"""

from __future__ import annotations

import json
import logging
import time
from typing import Any, NamedTuple, Sequence

import numpy as np
import pandas as pd

from schedbench.hall.grids import algorithm_grid, repeated
from schedbench.hall.params import ParameterError
from schedbench.hall.seeds import derived_seed
from schedbench.scheduling.stage.section_checks import check_eps_values, check_known_keys

__all__ = [
    "PRACTICE_KEYS",
    "FAMILY_KEYS",
    "ENTRY_KEYS",
    "PracticeConfigError",
    "check_practice",
    "practice_families",
    "family_entries",
    "RUN_KEYS",
    "family_section",
    "split_indices",
    "practice_summary",
    "tune",
    "Tuned",
    "training_key",
    "run_family",
]

log = logging.getLogger(__name__)

PRACTICE_KEYS = ("eps", "train_instances", "test_instances", "n_boot", "min_budget_used", "seed", "families")
FAMILY_KEYS = ("family", "problem", "params", "train_instances", "test_instances", "eps", "policies", "baselines")
ENTRY_KEYS = ("algorithm", "params", "tune", "label", "spend")
DEFAULT_EPS = [0.125, 0.0625, 0.03125]
#: The practice section's defaults, the only place they are written: the section is checked here
#: (:func:`check_practice`), not by the config schema, and a schema default would be filled into
#: the config and change its hash (the ``config_hash`` of every table); read through
#: :func:`practice_setting` (the seed: :func:`practice_seed`).
DEFAULTS = {"train_instances": 5, "test_instances": 30, "n_boot": 2000, "min_budget_used": 0.1}


#: The problem of a practice family that names none.
DEFAULT_PROBLEM = "load"


def family_problem(fam: dict) -> str:
    """A practice family's problem: its ``problem``, else :data:`DEFAULT_PROBLEM`."""
    return fam.get("problem", DEFAULT_PROBLEM)


def practice_setting(section: dict, key: str):
    """The practice section's ``key`` (``n_boot``, ``min_budget_used``, ``train_instances``,
    ``test_instances``), its :data:`DEFAULTS` value when not given."""
    return section.get(key, DEFAULTS[key])


def practice_seed(section: dict, base_seed: int) -> int:
    """The practice comparison's base seed: its own ``seed``, else the config's."""
    return int(section.get("seed", base_seed))


#: ratio within this relative distance of 1 is a tie (both sides equal up to float noise)
TIE = 1e-9


class PracticeConfigError(ValueError):
    """``practice`` is malformed (the message names the key)."""


def _where(*keys: Any) -> str:
    return ".".join(["practice", *map(str, keys)])


#: the most training or test instances a family may ask for (checked before anything is built)
MAX_INSTANCES = 100_000


def _count(value: Any, where: str, minimum: int = 1, maximum: int = MAX_INSTANCES) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not minimum <= value <= maximum:
        raise PracticeConfigError(f"{where}: an integer in [{minimum}, {maximum}], got {value!r}")
    return value


def _eps_list(value: Any, where: str) -> list[float]:
    if not isinstance(value, list) or not value:
        raise PracticeConfigError(f"{where}: a non-empty list of ε values in (0, 1), got {value!r}")
    check_eps_values(value, where, PracticeConfigError)
    return [float(e) for e in value]


def _default_label(entry: dict) -> str:
    """The algorithm, then in brackets ``tuned`` when it has a grid and ``spends ≥ f`` when it has
    a spending floor: ``edf-evict (tuned, spends ≥ 0.5)``."""
    notes = ["tuned"] if entry.get("tune") else []
    if entry.get("spend") is not None:
        notes.append(f"spends ≥ {float(entry['spend']):g}")
    return entry["algorithm"] + (f" ({', '.join(notes)})" if notes else "")


def family_entries(fam: dict, role: str) -> list[dict]:
    """The policies (``role="policies"``) or baselines of a family, each with its ``label``
    (:func:`_default_label` unless given) and its spending floor ``spend`` (None: none)."""
    out = []
    for entry in fam.get(role) or []:
        out.append(
            {
                "algorithm": entry["algorithm"],
                "params": dict(entry.get("params") or {}),
                "tune": dict(entry.get("tune") or {}),
                "label": entry.get("label") or _default_label(entry),
                "spend": None if entry.get("spend") is None else float(entry["spend"]),
            }
        )
    return out


def training_key(entry: dict) -> str:
    """What an entry's training runs depend on (algorithm, fixed parameters, grid): two entries
    with the same key — e.g. a policy and its spending-floor twin — share their training runs."""
    return json.dumps([entry["algorithm"], entry["params"], entry["tune"]], sort_keys=True, default=str)


def _check_entry(where: str, entry: Any, role: str, problem: str) -> None:
    from schedbench.scheduling.registry import UnknownNameError, get_algorithm

    if not isinstance(entry, dict) or "algorithm" not in entry:
        raise PracticeConfigError(f"{where}: a mapping with 'algorithm' (and 'params', 'tune', 'label'), got {entry!r}")
    check_known_keys(entry, ENTRY_KEYS, where, PracticeConfigError)
    try:
        cls = get_algorithm(entry["algorithm"])
    except UnknownNameError as exc:
        raise PracticeConfigError(f"{where}.algorithm: {exc}") from None
    if problem not in cls.solved_problems():
        raise PracticeConfigError(
            f"{where}.algorithm: {cls.name!r} solves {', '.join(cls.solved_problems())}, not {problem}"
        )
    wanted = ("rejection",) if role == "policies" else (("speed", "plain") if problem == "load" else ("speed",))
    if cls.model not in wanted:
        raise PracticeConfigError(
            f"{where}.algorithm: {cls.name!r} has model {cls.model!r}; {role} take {' or '.join(wanted)} algorithms"
        )
    params, grid = entry.get("params") or {}, entry.get("tune") or {}
    for key, value in (("params", params), ("tune", grid)):
        if not isinstance(value, dict):
            raise PracticeConfigError(f"{where}.{key}: a mapping of parameter names, got {value!r}")
    for name, value in params.items():
        if isinstance(value, list):
            raise PracticeConfigError(
                f"{where}.params.{name}: one value (candidates to tune go under 'tune'), got a list"
            )
    for name, value in grid.items():
        if name in params:
            raise PracticeConfigError(f"{where}.tune.{name}: also fixed under 'params'")
        if not isinstance(value, list) or not value:
            raise PracticeConfigError(f"{where}.tune.{name}: a non-empty list of candidate values, got {value!r}")
        dup = repeated(value)
        if dup is not None:
            raise PracticeConfigError(f"{where}.tune.{name}: {dup!r} is listed twice (each candidate once)")
    for combo in algorithm_grid(grid):
        try:
            resolved = cls.resolve_params({**params, **combo})
        except ParameterError as exc:
            raise PracticeConfigError(f"{where}: {exc}") from None
        if cls.uses_oracle(resolved):
            raise PracticeConfigError(
                f"{where}: {cls.name!r} with {resolved} assumes the oracle T*; the practice comparison runs "
                "without one (choose an online 'oracle' parameter)"
            )
    if "label" in entry and (not isinstance(entry["label"], str) or not entry["label"].strip()):
        raise PracticeConfigError(f"{where}.label: a non-empty string, got {entry['label']!r}")
    if "spend" in entry:
        spend = entry["spend"]
        if role != "policies":
            raise PracticeConfigError(f"{where}.spend: a spending floor applies to rejection policies only")
        if isinstance(spend, bool) or not isinstance(spend, (int, float)) or not 0 < spend <= 1:
            raise PracticeConfigError(f"{where}.spend: a number in (0, 1] (a fraction of the budget), got {spend!r}")


def check_practice(section: Any) -> None:
    """Check the section before any job: keys, counts, ε values, families and their
    parameters, policies of the rejection model and baselines of the speed model (plain rules
    for LoadBalancing) that solve the family's problem and need no oracle, unique labels."""
    if section is None:
        return
    from schedbench.scheduling.problems import problem_names
    from schedbench.scheduling.registry import UnknownNameError, get_algorithm, get_family

    if not isinstance(section, dict):
        raise PracticeConfigError(f"practice: a mapping with the key 'families', got {section!r}")
    check_known_keys(section, PRACTICE_KEYS, _where(), PracticeConfigError)
    _eps_list(section.get("eps", DEFAULT_EPS), _where("eps"))
    for key in ("train_instances", "test_instances", "n_boot"):
        if key in section:
            _count(
                section[key],
                _where(key),
                2 if key == "test_instances" else 1,
                10**6 if key == "n_boot" else MAX_INSTANCES,
            )
    mbu = practice_setting(section, "min_budget_used")
    if isinstance(mbu, bool) or not isinstance(mbu, (int, float)) or not 0 <= mbu <= 1:
        raise PracticeConfigError(f"{_where('min_budget_used')}: a number in [0, 1], got {mbu!r}")
    if "seed" in section:
        _count(section["seed"], _where("seed"), 0, 2**63 - 1)
    families = section.get("families")
    if not isinstance(families, dict) or not families:
        raise PracticeConfigError(f"{_where('families')}: required, a mapping of names to families, got {families!r}")
    for name, fam in families.items():
        where = _where("families", name)
        if not isinstance(name, str) or not name.replace("_", "").isalnum():
            raise PracticeConfigError(f"{where}: a name of letters, digits and '_'")
        if not isinstance(fam, dict):
            raise PracticeConfigError(f"{where}: a mapping, got {fam!r}")
        check_known_keys(fam, FAMILY_KEYS, where, PracticeConfigError)
        problem = family_problem(fam)
        if fam.get("params") is not None and not isinstance(fam["params"], dict):
            raise PracticeConfigError(f"{where}.params: a mapping of the family's parameters, got {fam['params']!r}")
        if problem not in problem_names():
            raise PracticeConfigError(f"{where}.problem: {problem!r} is not a problem ({', '.join(problem_names())})")
        try:
            family = get_family(fam.get("family"))
            resolved = family.resolve(fam.get("params") or {})
        except (UnknownNameError, ParameterError) as exc:
            raise PracticeConfigError(f"{where}: {exc}") from None
        for key in ("train_instances", "test_instances"):
            if key in fam:
                _count(fam[key], f"{where}.{key}", 2 if key == "test_instances" else 1)
        if "eps" in fam:
            _eps_list(fam["eps"], f"{where}.eps")
        train, test = split_indices(section, fam)
        try:  # the last index must exist (a log has finitely many windows)
            family.make(test[-1], 0, **resolved) if family.uses_index else None
        except ParameterError as exc:
            raise PracticeConfigError(f"{where}: {len(train)} training + {len(test)} test instances: {exc}") from None
        labels = []
        for role in ("policies", "baselines"):
            entries = fam.get(role)
            if not isinstance(entries, list) or not entries:
                raise PracticeConfigError(f"{where}.{role}: a non-empty list of algorithm entries, got {entries!r}")
            for k, entry in enumerate(entries):
                _check_entry(f"{where}.{role}[{k}]", entry, role, problem)
            labels += [e["label"] for e in family_entries(fam, role)]
        if len(set(labels)) != len(labels):
            raise PracticeConfigError(f"{where}: two entries share a label ({labels}); give each a distinct 'label'")
        for alg in (e["algorithm"] for r in ("policies", "baselines") for e in fam[r]):
            if get_algorithm(alg).unit_sizes_only and family.sized(resolved):
                raise PracticeConfigError(f"{where}: {alg!r} is defined for unit sizes only; the family has sizes")


def practice_families(section: dict | None) -> list[str]:
    """The family names of the section (empty when there is none)."""
    return sorted((section or {}).get("families") or {})


def practice_summary(section: dict | None) -> dict | None:
    """What the paper quotes of the section, defaults applied: every ε, training and test set
    size over the families, the flag threshold, the number of families and, per side, the fewest
    and most settings a family tunes over (its entries' grid combinations summed, an entry and its
    spending-floor twin once; None: no section)."""
    if not section:
        return None
    fams = [section["families"][n] for n in practice_families(section)]
    splits = [split_indices(section, f) for f in fams]

    def settings(role: str) -> tuple[int, int]:
        # an entry and its spending-floor twin share their training runs: one search
        searched = [{training_key(e): e for e in family_entries(f, role)}.values() for f in fams]
        counts = [sum(len(algorithm_grid(e["tune"])) for e in entries) for entries in searched]
        return min(counts), max(counts)

    return {
        "policy_settings": settings("policies"),
        "baseline_settings": settings("baselines"),
        "eps": sorted({float(e) for f in fams for e in f.get("eps", section.get("eps", DEFAULT_EPS))}),
        "train_instances": sorted({len(tr) for tr, _ in splits}),
        "test_instances": sorted({len(te) for _, te in splits}),
        "min_budget_used": float(practice_setting(section, "min_budget_used")),
        "n_boot": int(practice_setting(section, "n_boot")),
        "families": len(fams),
    }


#: The section-level keys a family's runs read (:func:`run_family`); the rest (``n_boot``,
#: ``min_budget_used``) only shape the paired table.
RUN_KEYS = ("seed", "eps", "train_instances", "test_instances")


def family_section(section: dict, name: str) -> dict:
    """What :func:`run_family` reads of ``section`` for family ``name``: the keys of
    :data:`RUN_KEYS` that are set and that family alone, so editing another family (or the
    table's keys) does not rerun this one."""
    out = {k: section[k] for k in RUN_KEYS if k in section}
    out["families"] = {name: section["families"][name]}
    return out


def split_indices(section: dict, fam: dict) -> tuple[list[int], list[int]]:
    """Training indices 0..k-1 and test indices k..k+n-1 of a family (disjoint by construction)."""
    k = int(fam.get("train_instances", practice_setting(section, "train_instances")))
    n = int(fam.get("test_instances", practice_setting(section, "test_instances")))
    return list(range(k)), list(range(k, k + n))


def _family_seed(section: dict, base_seed: int, name: str) -> int:
    return derived_seed(practice_seed(section, base_seed), "practice", name)


def _run(cls, inst, eps, params, problem, seed, run_seconds: float | None = None) -> dict[str, Any]:
    """One validated run as a row (a failed run: status error). A plug-in's run past
    ``run_seconds`` (the config's ``plugin_time_limit``) is no row: its error, naming the
    instance, ends the family's job."""
    from schedbench.scheduling.engine import AlgorithmError
    from schedbench.scheduling.play import RunTimeLimitError, execute
    from schedbench.scheduling.record import RunRecord
    from schedbench.scheduling.speed import machine_speed

    run_eps = eps if cls.model != "plain" else None
    t0 = time.perf_counter()
    try:
        rec = execute(cls, inst, eps=run_eps, seed=seed, params=params, problem=problem, run_seconds=run_seconds)
    except RunTimeLimitError as exc:  # a plug-in past its time limit: not a result (it depends on the machine)
        where = f"practice instance {inst.meta.get('family')}/{inst.meta.get('index')}"
        raise RunTimeLimitError(f"{exc}; {where}, eps {eps:g}") from None
    except (ParameterError, AlgorithmError, ValueError) as exc:
        rec = RunRecord.failed(cls, inst, exc, run_eps, seed, params, problem, seconds=time.perf_counter() - t0)
    row = rec.to_row()
    row["eps"] = float(eps)
    # LoadBalancing: a plain rule at speed 1+ε finishes its loads 1+ε times sooner (module doc, 4)
    row["speed"] = machine_speed("speed", eps) if cls.model == "plain" else cls.speed_for(eps)
    if cls.model == "plain":
        row["objective"] = row["objective"] / row["speed"]
    return row


class Tuned(NamedTuple):
    """What :func:`tune` chose: the parameters, their training score (geometric-mean objective),
    how many candidates the grid had, every training row, the chosen candidate's index, and
    whether the entry's spending floor was reached (True without a floor)."""

    params: dict
    score: float
    candidates: int
    rows: list
    index: int
    floor_met: bool


def tune(
    entry: dict,
    train: Sequence,
    eps: float,
    problem: str,
    seed: int,
    cache: dict | None = None,
    run_seconds: float | None = None,
) -> Tuned:
    """The combination of ``entry["tune"]`` (with ``entry["params"]``) with the smallest geometric
    mean objective over the ``train`` instances at ``eps``. A candidate with a run that is not
    ``ok`` (or a non-positive objective) is out; ties: the first in grid order. With a spending
    floor ``entry["spend"]`` only candidates whose budget use (rejected / ε) reaches it on every
    training instance compete; when none does, the one whose smallest use is largest is chosen and
    ``floor_met`` is False (the tables flag it: a measured outcome, not a config error).
    ``cache`` (keyed by :func:`training_key`, ε and the instance) lets entries with the same
    training runs share them. ``run_seconds``: each run's plug-in time limit (:func:`_run`)."""
    from schedbench.scheduling.registry import get_algorithm

    cls = get_algorithm(entry["algorithm"])
    candidates = [{**entry["params"], **combo} for combo in algorithm_grid(entry["tune"])]
    cache = {} if cache is None else cache
    rows, valid = [], []  # valid: (score, budget use, index) of each candidate that ran valid
    for k, params in enumerate(candidates):
        runs = []
        for inst in train:
            index = int(inst.meta["index"])
            key = (training_key(entry), k, float(eps), index)
            if key not in cache:
                cache[key] = _run(
                    cls, inst, eps, params, problem, derived_seed(seed, "run", index, cls.name), run_seconds
                )
            runs.append({**cache[key], "candidate": k, "instance_index": index})
        rows += runs
        if all(r["status"] == "ok" for r in runs) and all(r["objective"] > 0 for r in runs):
            score = float(np.exp(np.mean(np.log([r["objective"] for r in runs]))))
            valid.append((score, float(min(r["budget_used"] for r in runs)), k))
    if not valid:
        raise ParameterError(
            f"{entry['label']}: no candidate of its grid ran valid on every training instance at ε = {eps:g}"
        )
    spend = entry.get("spend")
    spending = [v for v in valid if spend is None or v[1] >= spend]
    if spending:
        score, _, k = min(spending, key=lambda v: (v[0], v[2]))
    else:  # the floor is out of the grid's reach: the candidate closest to it
        score, _, k = max(valid, key=lambda v: (v[1], -v[0], -v[2]))
    return Tuned(candidates[k], score, len(candidates), rows, k, bool(spending))


def _fingerprint(inst) -> str:
    """A digest of an instance's arrays: two instances with the same one are the same instance."""
    import hashlib

    h = hashlib.sha256()
    for a in (inst.release, inst.size, inst.indptr, inst.indices, inst.w_flow, inst.w_reject):
        h.update(np.ascontiguousarray(a).tobytes() if a is not None else b"-")
    return h.hexdigest()


def run_family(name: str, section: dict, base_seed: int, run_seconds: float | None = None) -> pd.DataFrame:
    """Tune every entry of family ``name`` on its training instances, then run the chosen
    combinations on its test instances: one row per run (both splits; ``split`` says which).
    ``run_seconds`` (the config's ``plugin_time_limit``; default
    :data:`~schedbench.hall.limits.PLUGIN_RUN_SECONDS`) limits each run of a plug-in algorithm
    and each instance of a plug-in family: past it, an error naming the plug-in ends the job."""
    from schedbench.scheduling.registry import get_algorithm, get_family

    fam = section["families"][name]
    problem = family_problem(fam)
    family = get_family(fam["family"])
    seed = _family_seed(section, base_seed, name)
    train_idx, test_idx = split_indices(section, fam)
    eps_list = [float(e) for e in fam.get("eps", section.get("eps", DEFAULT_EPS))]
    params = fam.get("params") or {}
    train = [family.make_within(run_seconds, i, seed, **params) for i in train_idx]
    seen = {_fingerprint(inst) for inst in train}
    rows = []
    cache: dict = {}  # training runs shared by entries with the same training_key
    chosen: dict[tuple[str, float], Tuned] = {}
    for role in ("policies", "baselines"):
        for k, entry in enumerate(family_entries(fam, role)):
            for eps in eps_list:
                try:
                    tuned = tune(entry, train, eps, problem, seed, cache, run_seconds)
                except ParameterError as exc:
                    raise ParameterError(f"{_where('families', name)}.{role}[{k}]: {exc}") from None
                chosen[(entry["label"], eps)] = tuned
                rows += [
                    {
                        **r,
                        "split": "train",
                        "label": entry["label"],
                        "role": role,
                        "entry_order": k,
                        "spend": entry["spend"],
                        "floor_met": tuned.floor_met,
                        "chosen": r["candidate"] == tuned.index,
                    }
                    for r in tuned.rows
                ]
                log.info(
                    "%s: %s at eps=%g -> %s (train geo-mean %.6g over %d candidates)",
                    name,
                    entry["label"],
                    eps,
                    tuned.params,
                    tuned.score,
                    tuned.candidates,
                )
    del train
    tested: dict = {}
    for i in test_idx:
        inst = family.make_within(run_seconds, i, seed, **params)
        if _fingerprint(inst) in seen:  # a family whose instances do not depend on the index
            raise ParameterError(
                f"{_where('families', name)}: test instance {i} is identical to a training instance "
                f"(family {fam['family']!r} with these params does not vary with the instance index); "
                "the comparison needs disjoint training and test instances"
            )
        for role in ("policies", "baselines"):
            for order, entry in enumerate(family_entries(fam, role)):
                cls = get_algorithm(entry["algorithm"])
                for eps in eps_list:
                    tuned = chosen[(entry["label"], eps)]
                    key = (training_key(entry), tuned.index, eps, i)  # a twin that chose the same setting
                    if key not in tested:
                        tested[key] = _run(
                            cls, inst, eps, tuned.params, problem, derived_seed(seed, "run", i, cls.name), run_seconds
                        )
                    rows.append(
                        {
                            **tested[key],
                            "split": "test",
                            "label": entry["label"],
                            "role": role,
                            "instance_index": i,
                            "entry_order": order,
                            "spend": entry["spend"],
                            "candidate": tuned.index,
                            "chosen": True,
                            "candidates": tuned.candidates,
                            "train_score": tuned.score,
                            "floor_met": tuned.floor_met,
                            "tuned": json.dumps(tuned.params, sort_keys=True, default=str),
                        }
                    )
    table = pd.DataFrame(rows)
    table.insert(0, "practice_family", name)
    table.insert(1, "family", fam["family"])
    table["family_seed"] = seed
    for col in ("tuned",):
        table[col] = table[col].fillna("")
    for col in [c for c in table.columns if c.startswith("p_")]:
        table[col] = table[col].map(lambda v: v if v is None or isinstance(v, str) else json.dumps(v))
    return table
