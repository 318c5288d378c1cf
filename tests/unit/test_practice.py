"""The practice comparison (scheduling.stage.practice) and its policies.

Checked against things the stage does not compute itself: hand-worked runs of the policies,
the instances the tuning is handed (never a test instance), a recomputation of the paired
table from the runs with numpy alone, planted flags, and the config checks' messages.
"""

from __future__ import annotations

import copy
import json
import math

import numpy as np
import pandas as pd
import pytest

from schedbench.scheduling.model import Instance
from schedbench.scheduling.play import execute
from schedbench.scheduling.registry import get_algorithm
from schedbench.scheduling.stage import practice
from schedbench.scheduling.stage.practice import PracticeConfigError, check_practice, run_family, split_indices
from schedbench.scheduling.stage.practice_report import paired_table, practice_finding, wilson_interval


def _instance(release, size, eligible, m, w_flow=None):
    indptr = np.cumsum([0] + [len(e) for e in eligible]).astype(np.int64)
    indices = np.array([i for e in eligible for i in e], dtype=np.int64)
    return Instance(
        m,
        np.array(release, dtype=np.int64),
        np.array(size, dtype=np.int64),
        indptr,
        indices,
        None if w_flow is None else np.array(w_flow, dtype=float),
        None,
    )


SECTION = {
    "eps": [0.25, 0.125],
    "train_instances": 2,
    "test_instances": 4,
    "families": {
        "lb": {
            "family": "random-restricted",
            "problem": "load",
            "params": {"m": 4, "n": 80, "d": 2, "sizes": "pow2", "max_size_exp": 3, "arrivals": "zero"},
            "policies": [{"algorithm": "greedy-reject", "tune": {"theta": [0.8, 1.0, 1.5]}}],
            "baselines": [{"algorithm": "greedy"}],
        },
        "flow": {
            "family": "random-restricted",
            "problem": "maxflow",
            "params": {"m": 3, "n": 120, "d": 2, "sizes": "uniform", "max_size": 4, "arrivals": "poisson", "load": 0.9},
            "policies": [{"algorithm": "edf-reject", "tune": {"theta": [1.5, 3.0], "estimate": ["lb", "ratchet"]}}],
            "baselines": [{"algorithm": "edf", "params": {"oracle": "running"}}, {"algorithm": "ll-fifo"}],
        },
    },
}


# ------------------------------------------------------------------ the policies, by hand
def test_greedy_reject_by_hand():
    """m = 1, sizes 4, 4, 4, 4, ε = 1/2, θ = 1: L(t) = max(p_max, Σp/1) = Σp so far, so the
    load never passes θ·L and nothing is rejected; θ = 0.5 rejects whenever load + p > Σp/2 and
    the budget allows: job 1 (load 4 + 4 > 4 = 0.5·8; budget ⌊0.5·2⌋ = 1), not job 2 (8 > 6 but
    budget 1.5 allows no second), job 3 (load 8 + 4 > 8 and budget 2 allows one more)."""
    inst = _instance([0, 0, 0, 0], [4, 4, 4, 4], [[0]] * 4, 1)
    cls = get_algorithm("greedy-reject")
    none = execute(cls, inst, eps=0.5, seed=0, params={"theta": 1.0})
    assert none.rejected_frac == 0 and none.objective == 16
    half = execute(cls, inst, eps=0.5, seed=0, params={"theta": 0.5})
    assert half.status == "ok"
    assert list(half.outcome.machine) == [0, -1, 0, -1]
    assert half.objective == 8 and half.rejected_frac == 0.5


def test_edf_reject_by_hand_and_its_budget():
    """One machine, six unit jobs at time 0, maxflow (FIFO): a job's projected flow is the work
    ahead plus one; T(t) = 1 and θ = 2 reject a projection above 2 when ε = 1/2 allows
    (rejected + 1 ≤ arrived/2): job 0 (1) and job 1 (2) kept; job 2 (3) rejected, 1 ≤ 1.5; job 3
    (3) rejected, 2 ≤ 2; job 4 (3) kept, 3 > 2.5 (a guard fire); job 5 (4) rejected, 3 ≤ 3."""
    inst = _instance([0] * 6, [1] * 6, [[0]] * 6, 1)
    rec = execute(get_algorithm("edf-reject"), inst, eps=0.5, seed=0, params={"theta": 2.0})
    assert rec.status == "ok"
    assert list(rec.outcome.machine) == [0, 0, -1, -1, 0, -1]
    assert rec.objective == 3 and rec.rejected_frac == pytest.approx(0.5)
    assert rec.rejected_frac_max_prefix == pytest.approx(0.5)
    assert rec.counters["guard_fires"] == 1
    # the record says how much of the budget the run spent: 3 of 6 jobs at ε = 1/2, all of it
    row = rec.to_row()
    assert row["budget_used"] == pytest.approx(1.0) and row["prefix_budget_used"] == pytest.approx(1.0)
    speed = execute(get_algorithm("edf"), inst, eps=0.5, seed=0, params={"oracle": "running"}).to_row()
    assert math.isnan(speed["budget_used"]) and math.isnan(speed["prefix_budget_used"])


def test_edf_reject_ahead_of_a_later_deadline():
    """Weighted (w = 1, 4): a heavy job arriving behind a light one has the earlier deadline
    r + T/w, so EDF runs it first and its projection counts none of the light job's work."""
    inst = _instance([0, 0], [5, 1], [[0], [0]], 1, w_flow=[1.0, 4.0])
    rec = execute(get_algorithm("edf-reject"), inst, eps=0.5, seed=0, params={"theta": 1.5}, problem="wtdmaxflow")
    # T = max(w p) = 5 at job 0 (projection 5 ≤ 7.5), then job 1: w·(0 + 1) = 4 ≤ 1.5·5
    assert list(rec.outcome.machine) == [0, 0] and rec.status == "ok"
    assert rec.objective == pytest.approx(max(1 * 6, 4 * 1))


def test_edf_evict_by_hand_against_edf_reject():
    """One machine, max flow (FIFO), ε = 1/2, θ = 1, L = θ·T = 6 once the size-6 job 0 is in.
    Job 1 (unit) projects 6 + 1 = 7 > 6. edf-evict drops the job with the most work ahead of the
    worst projection, job 0 (6 ≥ 1; budget 1 ≤ 2/2), before it ran: the unit jobs then finish at
    1, 2, 3. edf-reject can only turn arrivals away: job 1 (7 > 6, budget 1 ≤ 1), job 2 kept
    (budget 2 > 1.5: a guard fire), job 3 (8 > 6, 2 ≤ 2): flows 6 and 7."""
    inst = _instance([0, 0, 0, 0], [6, 1, 1, 1], [[0]] * 4, 1)
    evict = execute(get_algorithm("edf-evict"), inst, eps=0.5, seed=0, params={"theta": 1.0})
    assert evict.status == "ok"
    assert list(evict.outcome.machine)[1:] == [0, 0, 0] and evict.outcome.reject_step[0] >= 0
    assert evict.objective == 3 and evict.rejected_frac == pytest.approx(0.25)
    assert evict.to_row()["wasted_work"] == 0  # job 0 had not started
    reject = execute(get_algorithm("edf-reject"), inst, eps=0.5, seed=0, params={"theta": 1.0})
    assert list(reject.outcome.machine) == [0, -1, 0, -1] and reject.objective == 7
    assert reject.counters["guard_fires"] == 1


def test_edf_evict_waits_for_its_budget():
    """The same jobs at ε = 1/4: jobs 1 and 2 find no budget (1 > 2/4, 1 > 3/4: two guard
    fires), job 3 does (1 ≤ 4/4) and job 0 goes then; max flow 3 again."""
    inst = _instance([0, 0, 0, 0], [6, 1, 1, 1], [[0]] * 4, 1)
    rec = execute(get_algorithm("edf-evict"), inst, eps=0.25, seed=0, params={"theta": 1.0})
    assert rec.status == "ok" and rec.objective == 3
    assert rec.counters["guard_fires"] == 2
    assert list(rec.outcome.reject_step >= 0) == [True, False, False, False]


def test_edf_evict_picks_work_per_budget_weight():
    """GenWtd, one machine, ε = 1/2, θ = 1, budget weight w^r. A (p 4, w^r 4) sets T = 4. B (p 2,
    w^r 1) projects 6 > 4: B's 2 per unit of budget beats A's 1, so B goes (1 ≤ 5/2). C (p 1,
    w^r 2) projects 5 > 4: A (ratio 1) first, but 1 + 4 > 6/2; then C (ratio 0.5): 1 + 2 ≤ 3."""
    inst = Instance(
        1,
        np.zeros(3, dtype=np.int64),
        np.array([4, 2, 1], dtype=np.int64),
        np.arange(4, dtype=np.int64),
        np.zeros(3, dtype=np.int64),
        np.ones(3),
        np.array([4.0, 1.0, 2.0]),
    )
    rec = execute(get_algorithm("edf-evict"), inst, eps=0.5, seed=0, params={"theta": 1.0}, problem="genwtd")
    assert rec.status == "ok"
    assert list(rec.outcome.reject_step >= 0) == [False, True, True]
    assert rec.objective == 4


def test_edf_running_oracle_is_deterministic_in_arrival_order():
    """edf with oracle=running: compiled and step paths agree (the conformance suite sweeps it
    too); a heavy job late in the sequence does not change earlier deadlines."""
    inst = _instance([0, 0, 1, 2], [2, 1, 3, 1], [[0], [0], [0], [0]], 1, w_flow=[1.0, 2.0, 1.0, 4.0])
    cls = get_algorithm("edf")
    fast = execute(cls, inst, eps=0.25, seed=0, params={"oracle": "running"}, problem="wtdmaxflow", fast=True)
    step = execute(cls, inst, eps=0.25, seed=0, params={"oracle": "running"}, problem="wtdmaxflow", fast=False)
    assert fast.path == "compiled" and step.path == "step"
    assert np.allclose(fast.outcome.completion, step.outcome.completion)


# ------------------------------------------------------------------ tuning and the split
def test_split_is_disjoint_and_tuning_never_sees_a_test_instance(monkeypatch):
    train, test = split_indices(SECTION, SECTION["families"]["lb"])
    assert train == [0, 1] and test == [2, 3, 4, 5] and not set(train) & set(test)
    seen = []
    real = practice.tune

    def spy(entry, train_instances, *args, **kwargs):
        seen.extend(int(i.meta["index"]) for i in train_instances)
        return real(entry, train_instances, *args, **kwargs)

    monkeypatch.setattr(practice, "tune", spy)
    table = run_family("lb", SECTION, 5)
    assert seen and set(seen) <= set(train)
    assert set(table.loc[table["split"] == "train", "instance_index"]) == set(train)
    assert set(table.loc[table["split"] == "test", "instance_index"]) == set(test)
    assert (table["family_seed"] == table["family_seed"].iloc[0]).all()


def test_a_tuning_run_is_deterministic_for_a_seed_and_records_its_choice():
    a = run_family("flow", SECTION, 11).drop(columns=["seconds"])
    b = run_family("flow", SECTION, 11).drop(columns=["seconds"])
    pd.testing.assert_frame_equal(a, b)
    test = a[(a["split"] == "test") & (a["algorithm"] == "edf-reject")]
    for (eps,), block in test.groupby(["eps"]):
        chosen = json.loads(block["tuned"].iloc[0])
        assert set(chosen) == {"theta", "estimate"}
        assert (block["p_theta"].astype(float) == chosen["theta"]).all()
        # the choice is the training set's best geometric mean, recomputed here
        train = a[(a["split"] == "train") & (a["algorithm"] == "edf-reject") & (a["eps"] == eps)]
        scores = train.groupby("candidate")["objective"].apply(lambda x: float(np.exp(np.log(x).mean())))
        best = train[train["candidate"] == scores.idxmin()].iloc[0]
        assert float(best["p_theta"]) == chosen["theta"] and best["p_estimate"] == chosen["estimate"]
        assert block["train_score"].iloc[0] == pytest.approx(scores.min())
    c = run_family("flow", SECTION, 12)
    assert not np.array_equal(c["objective"].to_numpy(), a["objective"].to_numpy())
    # the pipeline hands a family's job its own settings only (practice.family_section): same runs
    alone = practice.family_section({**SECTION, "n_boot": 7}, "flow")
    assert set(alone["families"]) == {"flow"} and "n_boot" not in alone
    pd.testing.assert_frame_equal(run_family("flow", alone, 11).drop(columns=["seconds"]), a)


def test_load_baseline_at_speed_is_its_load_over_one_plus_eps():
    table = run_family("lb", SECTION, 3)
    base = table[(table["split"] == "test") & (table["algorithm"] == "greedy")]
    from schedbench.scheduling.registry import get_family

    inst = get_family("random-restricted").make(
        2, int(base["family_seed"].iloc[0]), **SECTION["families"]["lb"]["params"]
    )
    plain = execute(get_algorithm("greedy"), inst, eps=None, seed=0).objective
    for _, row in base[base["instance_index"] == 2].iterrows():
        assert row["objective"] == pytest.approx(plain / (1 + row["eps"]))


# ------------------------------------------------------------------ the paired table
def _recompute(runs: pd.DataFrame, fam: str, eps: float, policy: str, baseline: str):
    test = runs[(runs["split"] == "test") & (runs["practice_family"] == fam) & (runs["eps"] == eps)]
    a = test[test["label"] == policy].set_index("instance_index")
    b = test[test["label"] == baseline].set_index("instance_index")
    ok = [i for i in a.index if a.at[i, "status"] == "ok" and b.at[i, "status"] == "ok"]
    r = np.array([a.at[i, "objective"] / b.at[i, "objective"] for i in ok])
    wins = np.sum(r < 1 - 1e-9) + 0.5 * np.sum(np.abs(r - 1) <= 1e-9)
    return math.exp(np.mean(np.log(r))), wins / len(r), float((a.loc[ok, "rejected_frac"] / eps).mean()), len(ok)


def test_paired_table_equals_a_direct_recomputation():
    runs = pd.concat([run_family(f, SECTION, 4) for f in SECTION["families"]], ignore_index=True)
    pairs = paired_table(runs, n_boot=300)
    assert len(pairs) == 2 * (1 + 2)  # ε × (lb: 1 pair; flow: 2 pairs)
    for _, row in pairs.iterrows():
        geo, win, used, n = _recompute(runs, row["practice_family"], row["eps"], row["policy"], row["baseline"])
        assert row["geo_ratio"] == pytest.approx(geo, rel=1e-12)
        assert row["win_rate"] == pytest.approx(win)
        assert row["budget_used"] == pytest.approx(used)
        assert row["instances"] == n == 4
        assert row["geo_ratio_lo"] <= row["geo_ratio"] + 1e-12 <= row["geo_ratio_hi"] + 2e-12
        assert 0 <= row["win_rate_lo"] <= row["win_rate"] <= row["win_rate_hi"] <= 1
    # fewer than ten test instances: never in the headline; one selected pair per (family, ε)
    assert not pairs["headline"].any()
    assert pairs.groupby(["practice_family", "eps"])["selected"].sum().eq(1).all()


def _planted(used: float, ties: bool, n: int = 12, train_used: float | None = None) -> pd.DataFrame:
    """A family with one policy and one baseline: ``n`` test instances (indices 3..) and three
    training instances (0..2) of the chosen settings; the policy's objective is 0.9 of the
    baseline's (or equal with ``ties``), its budget use ``used`` (``train_used`` on training)."""
    rows = []
    for split, indices, use in (
        ("train", range(3), used if train_used is None else train_used),
        ("test", range(3, 3 + n), used),
    ):
        for i in indices:
            base = 10.0 + i
            common = dict(
                practice_family="f",
                family="x",
                problem="load",
                eps=0.125,
                split=split,
                instance_index=i,
                status="ok",
                tuned="{}",
                train_score=1.0,
                entry_order=0,
                chosen=True,
                candidate=0,
            )
            rows.append(
                dict(
                    common,
                    label="pol",
                    role="policies",
                    algorithm="p",
                    model="rejection",
                    objective=base if ties else base * 0.9,
                    rejected_frac=use * 0.125,
                    budget_used=use,
                    prefix_budget_used=use,
                )
            )
            rows.append(
                dict(
                    common,
                    label="base",
                    role="baselines",
                    algorithm="b",
                    model="speed",
                    objective=base,
                    rejected_frac=0.0,
                    budget_used=np.nan,
                    prefix_budget_used=np.nan,
                )
            )
    return pd.DataFrame(rows)


def test_a_family_that_leaves_its_budget_unused_is_flagged_and_out_of_the_headline():
    used = paired_table(_planted(0.6, ties=False), n_boot=200)
    assert used["flag"].tolist() == [""] and used["headline"].tolist() == [True]
    assert used["win_rate"].iloc[0] == 1.0 and used["geo_ratio"].iloc[0] == pytest.approx(0.9)
    unused = paired_table(_planted(0.01, ties=False), n_boot=200)
    assert unused["flag"].tolist() == ["budget unused"] and unused["headline"].tolist() == [False]
    tied = paired_table(_planted(0.6, ties=True), n_boot=200)
    assert tied["flag"].tolist() == ["all tied"] and not tied["headline"].any()
    assert tied["win_rate"].iloc[0] == 0.5  # a tie counts one half
    assert "0 of 0" not in practice_finding(used)
    assert practice_finding(unused).startswith("No paired comparison qualifies")


def test_the_flags_are_decided_on_the_training_runs_not_on_the_test_rows():
    """A policy that spends its budget on the test rows but not on the training runs of its chosen
    setting is flagged (and the other way round): nothing is left out on test data."""
    flagged = paired_table(_planted(0.6, ties=False, train_used=0.01), n_boot=200)
    assert flagged["flag"].tolist() == ["budget unused"] and not flagged["headline"].any()
    kept = paired_table(_planted(0.01, ties=False, train_used=0.6), n_boot=200)
    assert kept["flag"].tolist() == [""] and kept["headline"].all()


def test_identical_training_and_test_instances_are_refused():
    """anr-tree has no randomness: instance 7 is instance 0; a comparison on it would test on
    its training data."""
    section = {
        "train_instances": 1,
        "test_instances": 2,
        "eps": [0.25],
        "families": {
            "tree": {
                "family": "anr-tree",
                "params": {"K": 3},
                "policies": [{"algorithm": "greedy-reject"}],
                "baselines": [{"algorithm": "greedy"}],
            }
        },
    }
    check_practice(section)
    with pytest.raises(practice.ParameterError, match=r"practice\.families\.tree: test instance 1 is identical"):
        run_family("tree", section, 0)


def test_the_headline_pair_is_chosen_on_training_scores_not_on_the_test_rows():
    """Two baselines: 'fast' wins on the test rows (the policy's ratio to it is the worst) but
    'slow' had the better training score, so the headline pairs the policy with 'slow'."""
    runs = _planted(0.6, ties=False)
    other = runs[runs["role"] == "baselines"].copy()
    other["label"], other["objective"], other["train_score"], other["entry_order"] = (
        "fast",
        other["objective"] * 0.5,
        2.0,
        1,
    )
    runs = pd.concat([runs, other], ignore_index=True)
    pairs = paired_table(runs, n_boot=200).set_index("baseline")
    assert pairs.loc["base", "selected"] and not pairs.loc["fast", "selected"]
    assert pairs.loc["base", "headline"] and not pairs.loc["fast", "headline"]
    # equal training scores: the first baseline of the config
    runs.loc[runs["label"] == "fast", "train_score"] = 1.0
    pairs = paired_table(runs, n_boot=200).set_index("baseline")
    assert pairs["selected"].sum() == 1 and pairs.loc["base", "selected"]


def test_an_invalid_run_is_not_paired_but_counted():
    runs = _planted(0.6, ties=False)
    runs.loc[(runs["split"] == "test") & (runs["instance_index"] == 3) & (runs["label"] == "pol"), "status"] = (
        "budget_violated"
    )
    row = paired_table(runs, n_boot=200).iloc[0]
    # not paired, counted, and the pair is flagged out of the headline (shown in the table)
    assert row["instances"] == 11 and row["invalid"] == 1 and row["flag"] == "invalid runs" and not row["headline"]


def test_wilson_interval_known_values():
    lo, hi = wilson_interval(10, 10)
    assert lo == pytest.approx(0.7225, abs=1e-4) and hi == pytest.approx(1.0)
    lo, hi = wilson_interval(5, 10)
    assert lo == pytest.approx(0.2366, abs=1e-4) and hi == pytest.approx(0.7634, abs=1e-4)


# ------------------------------------------------------------------ config checks
@pytest.mark.parametrize(
    "mutate, where",
    [
        (lambda s: s.update(bogus=1), "practice.bogus"),
        (lambda s: s.update(eps=[0.5, 0.5]), "practice.eps"),
        (lambda s: s.update(test_instances=1), "practice.test_instances"),
        (
            lambda s: s["families"]["lb"]["policies"][0].update(algorithm="greedy"),
            "practice.families.lb.policies[0].algorithm",
        ),
        (
            lambda s: s["families"]["lb"]["baselines"][0].update(algorithm="greedy-reject"),
            "practice.families.lb.baselines[0].algorithm",
        ),
        (
            lambda s: s["families"]["flow"]["policies"][0]["tune"].update(theta=2.0),
            "practice.families.flow.policies[0].tune.theta",
        ),
        (lambda s: s["families"]["flow"]["policies"][0]["tune"].update(theta=[-1.0]), "theta"),
        (lambda s: s["families"]["flow"]["baselines"][0].update(params={"oracle": "opt"}), "assumes the oracle"),
        (
            lambda s: s["families"]["flow"]["baselines"].append({"algorithm": "edf", "params": {"oracle": "running"}}),
            "share a label",
        ),
        (lambda s: s["families"]["lb"].update(problem="maxflow"), "practice.families.lb.policies[0].algorithm"),
        (lambda s: s["families"]["lb"]["params"].update(m=0), "practice.families.lb"),
        (lambda s: s["families"]["lb"].update(params=-1), "practice.families.lb.params"),
        (lambda s: s.update(train_instances=10**30), "practice.train_instances"),
        (lambda s: s["families"]["flow"].update(test_instances=10**30), "practice.families.flow.test_instances"),
        (lambda s: s.update(seed=None), "practice.seed"),
    ],
)
def test_bad_sections_name_the_key(mutate, where):
    section = copy.deepcopy(SECTION)
    mutate(section)
    with pytest.raises(PracticeConfigError, match=__import__("re").escape(where)):
        check_practice(section)


def test_too_many_log_windows_is_refused_before_any_run():
    section = {
        "families": {
            "log": {
                "family": "swf-trace",
                "params": {"trace": "nasa-ipsc", "m": 16, "d": 2, "n": 1000},
                "train_instances": 5,
                "test_instances": 14,
                "policies": [{"algorithm": "greedy-reject"}],
                "baselines": [{"algorithm": "greedy"}],
            }
        }
    }
    with pytest.raises(PracticeConfigError, match=r"practice\.families\.log: 5 training \+ 14 test"):
        check_practice(section)
    section["families"]["log"]["test_instances"] = 13
    check_practice(section)


def test_the_abstracts_tally_counts_the_headline_rows():
    """practice_tally (the abstract's macros) from a constructed paired table: two headline
    rows win (interval below 1), one loses (above 1), a flagged row is not counted."""
    from schedbench.scheduling.stage.practice_report import practice_tally

    pairs = pd.DataFrame(
        {
            "headline": [True, True, True, False],
            "geo_ratio": [0.5, 0.8, 1.3, 0.1],
            "geo_ratio_lo": [0.4, 0.7, 1.1, 0.05],
            "geo_ratio_hi": [0.6, 0.9, 1.5, 0.2],
        }
    )
    assert practice_tally(pairs) == {
        "PracticeComparisons": "3",
        "PracticeWins": "2",
        "PracticeLosses": "1",
        "PracticeWinRatioLow": "0.50",  # over the wins only: the 1.3 loss is not in the range
        "PracticeWinRatioHigh": "0.80",
    }
    assert set(practice_tally(None).values()) == {"--"}
    lost = practice_tally(pairs.assign(geo_ratio_hi=pairs["geo_ratio_hi"] + 1))  # no interval below 1
    assert lost["PracticeWins"] == "0" and lost["PracticeWinRatioLow"] == lost["PracticeWinRatioHigh"] == "--"


def test_the_figure_keeps_the_print_rules_and_names_families_in_words():
    """practice_figure on a constructed paired table of eight log families and two random ones:
    panels by problem class and workload (a panel of more than six lines split), at most six
    lines a panel, legends from family_titles (the trace's name, the problem and machines)."""
    from schedbench.hall.figure_style import MAX_LINES_PER_PANEL
    from schedbench.scheduling.stage.practice_report import family_titles, practice_figure

    section = {"families": {f"log{k}": {"problem": "maxflow", "params": {"trace": f"t{k}"}} for k in range(8)}}
    section["families"]["rand"] = {"problem": "stretch", "params": {"m": 10, "sizes": "pareto"}}
    section["families"]["lb"] = {"problem": "load", "params": {"m": 4, "sizes": "unit"}}
    section["families"]["gen"] = {"problem": "genwtd", "params": {"m": 10, "sizes": "uniform"}}  # a long title
    titles = family_titles(section)
    assert titles["log3"] == "T3 log" and titles["rand"] == "max stretch, m = 10, Pareto sizes"
    assert titles["lb"] == "m = 4, unit sizes"
    rows = []
    for fam, f in section["families"].items():
        for eps in (0.125, 0.0625):
            rows.append(
                {
                    "practice_family": fam,
                    "family": "swf-trace" if fam.startswith("log") else "random-restricted",
                    "problem": f["problem"],
                    "eps": eps,
                    "geo_ratio": 0.5,
                    "geo_ratio_lo": 0.4,
                    "geo_ratio_hi": 0.6,
                    "instances": 10,
                    "flag": "",
                    "selected": True,
                }
            )
    fig = practice_figure(pd.DataFrame(rows), titles)
    panels = [ax for ax in fig.axes if ax.get_visible() and ax.get_lines()]
    assert len(panels) == 4 and len(panels) <= 6  # load random, flow random, the logs split in two
    assert all(
        len([ln for ln in ax.get_lines() if not ln.get_label().startswith("_")]) <= MAX_LINES_PER_PANEL for ax in panels
    )
    assert {ax.get_title() for ax in panels} == {
        "LoadBalancing, random instances",
        "flow problems, random instances",
        "max flow, real logs (1 of 2)",
        "max flow, real logs (2 of 2)",
    }
    labels = {t.get_text().replace("\n", " ") for ax in panels for t in ax.get_legend().get_texts()}  # wrapped titles
    assert {"T0 log", "max stretch, m = 10, Pareto sizes", "m = 4, unit sizes"} <= labels
    # each legend stays within its panel's column of the figure (a long title once ran into the next):
    # the columns meet halfway between one column's axes and the next one's
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    spans = sorted({(round(ax.get_window_extent().x0, 1), round(ax.get_window_extent().x1, 1)) for ax in panels})
    cuts = [0.0] + [(a[1] + b[0]) / 2 for a, b in zip(spans, spans[1:])] + [fig.bbox.width]
    for ax in panels:
        col = spans.index((round(ax.get_window_extent().x0, 1), round(ax.get_window_extent().x1, 1)))
        box = ax.get_legend().get_window_extent(renderer)
        assert cuts[col] <= box.x0 and box.x1 <= cuts[col + 1], (ax.get_title(), box, cuts)


# --- the spending floor (entry key ``spend``) -------------------------------------------------

FLOOR_SECTION = {
    "eps": [0.125],
    "train_instances": 2,
    "test_instances": 3,
    "families": {
        "flow": {
            "family": "random-restricted",
            "problem": "maxflow",
            "params": {"m": 3, "n": 160, "d": 2, "sizes": "uniform", "max_size": 6, "arrivals": "poisson", "load": 1.0},
            "policies": [
                {"algorithm": "edf-evict", "tune": {"theta": [0.25, 1.0, 3.0, 8.0]}},
                {"algorithm": "edf-evict", "tune": {"theta": [0.25, 1.0, 3.0, 8.0]}, "spend": 0.5},
            ],
            "baselines": [{"algorithm": "edf", "params": {"oracle": "running"}}],
        }
    },
}


def test_a_spending_floor_keeps_only_settings_that_use_the_budget_and_shares_the_training_runs(monkeypatch):
    """The twin with ``spend: 0.5`` chooses, among the grid's settings whose budget use is ≥ 0.5
    on every training instance (recomputed here from the training rows), the best geometric mean;
    its training runs are the unconstrained entry's (each (setting, instance) runs once)."""
    calls = []
    real = practice._run

    def counting(cls, inst, eps, params, *args):
        calls.append((cls.name, json.dumps(params, sort_keys=True), int(inst.meta["index"])))
        return real(cls, inst, eps, params, *args)

    monkeypatch.setattr(practice, "_run", counting)
    table = run_family("flow", FLOOR_SECTION, 7)
    assert len(calls) == len(set(calls)), "a (setting, instance) ran twice"
    labels = set(table["label"])
    assert {"edf-evict (tuned)", "edf-evict (tuned, spends ≥ 0.5)"} <= labels
    train = table[(table["split"] == "train") & (table["label"] == "edf-evict (tuned)")]
    stats = train.groupby("candidate").agg(
        used=("budget_used", "min"), score=("objective", lambda x: float(np.exp(np.log(x).mean())))
    )
    assert (stats["used"] >= 0.5).any() and (stats["used"] < 0.5).any(), "the fixture must separate the two"
    floor_best = stats[stats["used"] >= 0.5]["score"].idxmin()
    twin = table[(table["split"] == "test") & (table["label"] == "edf-evict (tuned, spends ≥ 0.5)")]
    assert (twin["candidate"] == floor_best).all() and twin["floor_met"].all()
    assert twin["train_score"].iloc[0] == pytest.approx(stats.loc[floor_best, "score"])
    free = table[(table["split"] == "test") & (table["label"] == "edf-evict (tuned)")]
    assert free["train_score"].iloc[0] <= twin["train_score"].iloc[0]
    pairs = paired_table(table, n_boot=50)
    assert set(pairs.loc[pairs["policy_spend"].notna(), "policy"]) == {"edf-evict (tuned, spends ≥ 0.5)"}
    assert not pairs.loc[pairs["policy_spend"].notna(), "selected"].any() or (
        free["candidate"].iloc[0] == floor_best
    ), "the unconstrained entry (listed first) wins a tie"


def test_a_floor_out_of_reach_takes_the_setting_that_spent_most_and_is_flagged():
    section = copy.deepcopy(FLOOR_SECTION)
    fam = section["families"]["flow"]
    fam["policies"] = [
        {"algorithm": "edf-evict", "params": {"theta": 0.25}},  # spends: the family is not "budget unused"
        {"algorithm": "edf-evict", "tune": {"theta": [8.0, 16.0]}, "spend": 1.0},
    ]
    table = run_family("flow", section, 7)
    policy = table[table["spend"] == 1.0]
    used = policy[policy["split"] == "train"].groupby("candidate")["budget_used"].min()
    assert (used < 1.0).all()
    test = policy[policy["split"] == "test"]
    assert (test["candidate"] == used.idxmax()).all() and not test["floor_met"].any()
    pairs = paired_table(table, n_boot=50)
    twin = pairs[pairs["policy_spend"] == 1.0]
    assert (twin["flag"] == "floor not reached").all() and not twin["headline"].any()
    assert (pairs.loc[pairs["policy_spend"].isna(), "flag"] == "").all()


@pytest.mark.parametrize(
    "mutate, where",
    [
        (lambda f: f["policies"][1].update(spend=0), "practice.families.flow.policies[1].spend"),
        (lambda f: f["policies"][1].update(spend=1.5), "practice.families.flow.policies[1].spend"),
        (lambda f: f["policies"][1].update(spend=True), "practice.families.flow.policies[1].spend"),
        (lambda f: f["baselines"][0].update(spend=0.5), "practice.families.flow.baselines[0].spend"),
    ],
)
def test_a_bad_spending_floor_names_the_key(mutate, where):
    section = copy.deepcopy(FLOOR_SECTION)
    mutate(section["families"]["flow"])
    with pytest.raises(PracticeConfigError, match=__import__("re").escape(where)):
        check_practice(section)
    check_practice(FLOOR_SECTION)


def test_the_spending_finding_counts_the_twins_of_the_headline_rows():
    from schedbench.scheduling.stage.practice_report import spending_finding

    base = {"practice_family": "f", "baseline": "edf", "policy_floor_met": True, "geo_ratio_lo": 0.0}
    pairs = pd.DataFrame(
        [
            {
                **base,
                "eps": 0.125,
                "policy": "p",
                "policy_spend": math.nan,
                "headline": True,
                "geo_ratio": 0.5,
                "geo_ratio_hi": 0.6,
                "budget_used": 0.3,
            },
            {
                **base,
                "eps": 0.125,
                "policy": "p2",
                "policy_spend": 0.5,
                "headline": False,
                "geo_ratio": 0.7,
                "geo_ratio_hi": 0.8,
                "budget_used": 0.55,
            },
            {
                **base,
                "eps": 0.0625,
                "policy": "p",
                "policy_spend": math.nan,
                "headline": True,
                "geo_ratio": 0.4,
                "geo_ratio_hi": 0.45,
                "budget_used": 0.9,
            },
            {
                **base,
                "eps": 0.0625,
                "policy": "p2",
                "policy_spend": 0.5,
                "headline": False,
                "geo_ratio": 1.1,
                "geo_ratio_lo": 1.05,
                "geo_ratio_hi": 1.2,
                "budget_used": 0.45,
                "policy_floor_met": False,
            },
            # a twin against another baseline is not the headline's pair
            {
                **base,
                "eps": 0.0625,
                "baseline": "lwf",
                "policy": "p2",
                "policy_spend": 0.5,
                "headline": False,
                "geo_ratio": 0.1,
                "geo_ratio_hi": 0.2,
                "budget_used": 0.99,
            },
        ]
    )
    text = spending_finding(pairs)
    assert "at least 0.5 of its budget" in text
    assert "used 0.45 to 0.55" in text and "at least the floor in 1 of 2" in text
    assert "in 1 of 2 headline comparisons and lost in 1" in text and "ratios from 0.70 to 1.10" in text
    assert "(headline: 0.40 to 0.50)" in text and "in 1 no setting of its grid reached the floor" in text
    assert spending_finding(pairs.assign(policy_spend=math.nan)) == ""


def test_the_planner_counts_a_twins_training_once():
    """A spending-floor twin shares its training runs: the planner adds only its test runs
    (eps × test instances), as run_family runs it."""
    from schedbench.scheduling.stage.plan import _practice_stages

    alone = copy.deepcopy(FLOOR_SECTION)
    alone["families"]["flow"]["policies"] = alone["families"]["flow"]["policies"][:1]
    (with_twin,) = _practice_stages(FLOOR_SECTION)
    (without,) = _practice_stages(alone)
    eps, test = len(FLOOR_SECTION["eps"]), FLOOR_SECTION["test_instances"]
    assert with_twin.runs - without.runs == eps * test


@pytest.mark.parametrize("n", [4, 12])
def test_practice_figure_draws_a_mean_and_band_only_over_ten_instances(n):
    from schedbench.scheduling.stage.practice_report import instance_ratios, practice_figure

    runs = _planted(0.6, ties=False, n=n)
    pairs = paired_table(runs, n_boot=200)
    ratios = instance_ratios(runs)
    assert len(ratios) == n and np.allclose(ratios["ratio"], 0.9)  # the planted ratio, test instances only
    assert sorted(ratios["instance_index"]) == list(range(3, 3 + n))
    if n < 10:
        with pytest.raises(ValueError, match="ratios: "):
            practice_figure(pairs)
    (ax,) = [ax for ax in practice_figure(pairs, ratios=ratios).axes if ax.get_visible()]
    means = [line for line in ax.get_lines() if line.get_marker() == "o" and line.get_linestyle() != "None"]
    dots = [line for line in ax.get_lines() if line.get_marker() == "."]
    if n < 10:  # no mean, no band: each instance's ratio, and the title says so
        assert ax.get_title().endswith(" (n = 4 < 10: each instance)")
        assert all(np.isnan(np.asarray(line.get_ydata(), dtype=float)).all() for line in means)
        assert sum(len(line.get_ydata()) for line in dots) == n
        assert not any(len(c.get_paths()) for c in ax.collections)  # no band
    else:
        assert "each instance" not in ax.get_title() and not dots
        assert np.allclose([line.get_ydata() for line in means], 0.9)
        assert any(len(c.get_paths()) for c in ax.collections)  # the band


def test_a_flagged_point_under_ten_instances_stays_marked_hollow():
    from schedbench.scheduling.stage.practice_report import instance_ratios, practice_figure

    runs = _planted(0.6, ties=False, n=4, train_used=0.01)  # budget unused on training: flagged
    pairs = paired_table(runs, n_boot=200)
    assert (pairs["flag"] != "").all()
    (ax,) = [ax for ax in practice_figure(pairs, ratios=instance_ratios(runs)).axes if ax.get_visible()]
    dots = [line for line in ax.get_lines() if line.get_linestyle() == "None" and len(line.get_xdata())]
    assert dots and all(line.get_markerfacecolor() == "white" for line in dots)
    assert sum(len(line.get_xdata()) for line in dots) == 4


def test_the_summary_counts_each_side_s_tuned_settings_once_per_search():
    from schedbench.scheduling.stage.practice import practice_summary

    fam = {
        "policies": [
            {"algorithm": "edf-evict", "tune": {"c": [1, 2, 3]}},
            {"algorithm": "edf-evict", "tune": {"c": [1, 2, 3]}, "spend": 0.5},  # its twin: the same search
            {"algorithm": "edf-reject"},
        ],
        "baselines": [{"algorithm": "edf", "tune": {"T": [1, 2]}}],
    }
    small = {"policies": [{"algorithm": "edf-reject"}], "baselines": [{"algorithm": "edf"}]}
    summary = practice_summary({"families": {"a": fam, "b": small}})
    assert summary["policy_settings"] == (1, 3 + 1) and summary["baseline_settings"] == (1, 2)
    assert summary["n_boot"] == 2000  # the section's default
