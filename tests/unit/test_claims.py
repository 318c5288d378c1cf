"""The claims table (docs/claims.md): each verdict rule on constructed result tables — an upper
bound held or broken (a planted ratio above its bound), only proven optima counted, a lower
bound's growth, the Section-4 overrun, the loss slopes and the bipartite checks — and the table
itself: a row per claim the docs list, the generated tally, citations only of the bibliography."""

import math
import re

import pandas as pd
import pytest

from schedbench.bipartite.stage.claims import bipartite_claims
from schedbench.hall.claims import VERDICTS, Claim, claims_frame, claims_table_tex
from schedbench.hall.latex import bib_keys
from schedbench.loss.stage.claims import loss_claims
from schedbench.scheduling.registry import get_algorithm
from schedbench.scheduling.stage.claims import SCHEDULING_CLAIMS, scheduling_claims
from tests.conftest import ROOT

PRESENT = ["tab:ratios", "tab:adversaries", "fig:ratio_vs_eps_load"]


def run(algorithm, ratio, eps=0.25, bound=None, family="random-restricted", m=8, opt_status="optimal", **kw):
    row = {
        "experiment": kw.pop("experiment", family),
        "family": family,
        "algorithm": algorithm,
        "problem": kw.pop("problem", "load"),
        "eps": eps,
        "m": m,
        "ratio": ratio,
        "ratio_bound": bound,
        "status": kw.pop("status", "ok"),
        "opt_status": opt_status,
        "rejected_frac_max_prefix": kw.pop("rejected", 0.0),
        "model": get_algorithm(algorithm).model,
        **{f"p_{k[2:]}": kw.pop(k) for k in list(kw) if k.startswith("p_")},
    }
    row = {**row, **{k: kw.pop(k) for k in list(kw) if k.startswith("p_")}}
    assert not kw
    return row


def verdicts(rows, growth=None, pairs=None):
    return {c.claim_id: c for c in scheduling_claims(pd.DataFrame(rows), PRESENT, growth, pairs)}


def test_every_claim_the_docs_list_gets_a_row_and_no_other():
    doc = (ROOT / "docs/claims.md").read_text()
    listed = re.findall(r"^\| `([a-z0-9-]+)` \|", doc, re.M)
    assert listed == [cid for cid, _, _ in SCHEDULING_CLAIMS]
    got = verdicts([run("greedy", 1.0)])
    assert list(got) == listed
    assert all(c.verdict in VERDICTS for c in got.values())


def test_an_upper_bound_holds_until_a_planted_ratio_exceeds_it():
    rows = [run("lb-unit-reject", 1.5, bound=2.0), run("lb-unit-reject", 2.0, bound=2.0, eps=0.125)]
    c = verdicts(rows)["lb-unit-upper"]
    assert c.verdict == "consistent" and c.measured.startswith("no violation in 2 runs")
    planted = rows + [run("lb-unit-reject", 2.5, bound=2.0, experiment="planted")]
    c = verdicts(planted)["lb-unit-upper"]
    assert c.verdict == "contradicted" and "1 run over the cap: planted ε=0.25: ALG/OPT 2.5 > 2" in c.measured
    # over an unproven OPT the ratio is no violation, but it is listed, never dropped
    unproven = rows + [run("lb-unit-reject", 9.0, bound=2.0, opt_status="bound", experiment="logwin")]
    c = verdicts(unproven)["lb-unit-upper"]
    assert c.verdict == "consistent"
    assert "1 run over the cap relative to a lower bound only (OPT not proven, no violation): logwin" in c.measured
    # an invalid run is not counted
    invalid = rows + [run("lb-unit-reject", 9.0, bound=2.0, status="invalid")]
    assert verdicts(invalid)["lb-unit-upper"].verdict == "consistent"
    # no run of the algorithm: not shown, with the reason
    c = verdicts([run("greedy", 1.0)])["mft-unit-upper"]
    assert c.verdict == "not shown" and "mft-unit" in c.why
    # only unproven optima: nothing tests the cap
    c = verdicts([run("lb-unit-reject", 9.0, bound=2.0, opt_status="bound")])["lb-unit-upper"]
    assert c.verdict == "not shown" and "proven OPT" in c.why


def test_a_planted_over_budget_run_is_listed_and_contradicts_the_bound():
    rows = [run("gwmft", 3.0, bound=9.0, problem="stretch"), run("gwmft", 2.0, bound=9.0, problem="stretch")]
    assert verdicts(rows)["gwmft-upper"].verdict == "consistent"
    over = run("gwmft", 2.0, bound=9.0, problem="stretch", status="budget_violated", rejected=0.3, experiment="plant")
    c = verdicts(rows + [over])["gwmft-upper"]
    assert c.verdict == "contradicted"
    assert "1 run over the budget: plant ε=0.25: prefix 0.3 > ε (OPT optimal)" in c.measured
    assert "largest prefix rejected fraction / ε 1.2" in c.measured
    # the row says which caps hold by construction (T* handed over) and which are measured
    mixed = [run("gwmft", 3.0, bound=9.0, p_oracle="opt"), run("gwmft", 2.0, bound=9.0, p_oracle="prefix-lb")]
    assert "Cap: 1 hold by construction (T* given, or a cap that holds with any T ≤ OPT), 1 measured" in (
        verdicts(mixed)["gwmft-upper"].measured
    )
    # mft-unit's queue cap holds with any T ≤ OPT: a prefix oracle is by construction too
    prefix = [run("mft-unit", 3.0, bound=9.0, problem="maxflow", p_oracle=o) for o in ("opt", "prefix", "prefix-pow2")]
    assert "Cap: 3 hold by construction" in verdicts(prefix)["mft-unit-upper"].measured


def test_a_lower_bound_is_confirmed_qualitatively_only_by_growth():
    grows = [run("lb-unit-reject", 1.5, eps=0.5, family="lb-a"), run("lb-unit-reject", 2.5, eps=0.125, family="lb-a")]
    c = verdicts(grows)["lb-unit-lower"]
    assert c.verdict == "confirmed qualitatively" and "1.5 at 1/ε = 2" in c.measured and "2.5 at 8" in c.measured
    flat = [run("lb-unit-reject", 2.0, eps=0.5, family="lb-a"), run("lb-unit-reject", 2.0, eps=0.125, family="lb-a")]
    assert verdicts(flat)["lb-unit-lower"].verdict == "not shown"
    single = verdicts(grows[:1])["lb-unit-lower"]
    assert single.verdict == "not shown" and "one value" in single.why
    # immediate dispatch: over m, at speed (ε > 0) only — a speed-1 row does not count
    tree = [run("ll-fifo", 1.6, m=4, family="anr-flow"), run("ll-fifo", 2.0, m=8, family="anr-flow")]
    assert verdicts(tree)["immediate-dispatch"].verdict == "confirmed qualitatively"
    speed1 = [run("ll-fifo", 1.6, m=4, family="anr-flow"), run("ll-fifo", 3.0, m=8, eps=0.0, family="anr-flow")]
    assert verdicts(speed1)["immediate-dispatch"].verdict == "not shown"


def test_a_lower_bound_rests_on_the_best_variant_tested():
    """The forced ratio at each m is the best variant's: a weak variant that grows while the best
    one stays flat does not show the bound."""
    weak = [run("greedy-cap", r, m=m, family="lb-b", p_kappa=1.0) for r, m in ((2.0, 4), (5.0, 16))]
    best = [run("greedy-cap", r, m=m, family="lb-b", p_kappa=4.0) for r, m in ((1.5, 4), (1.5, 16))]
    c = verdicts(weak + best)["dispatch-on-arrival"]
    assert c.verdict == "not shown" and "best of 2 variants" in c.measured
    assert verdicts(weak)["dispatch-on-arrival"].verdict == "confirmed qualitatively"
    # a strong variant tried only at the small end does not fake growth
    early = [run("greedy-cap", 1.0, m=4, family="lb-b", p_kappa=8.0)]
    flat_both = [run("greedy-cap", r, m=m, family="lb-b", p_kappa=4.0) for r, m in ((1.5, 4), (1.5, 16))]
    assert verdicts(early + flat_both)["dispatch-on-arrival"].verdict == "not shown"
    # greedy does not reject on arrival: not an algorithm of Thm 8.2
    flat = [run("greedy", r, m=m, family="lb-b") for r, m in ((1.0, 4), (9.0, 16))]
    assert verdicts(flat)["dispatch-on-arrival"].verdict == "not shown"


def test_rejection_vs_speed_needs_rejection_flat_and_speed_growing():
    rej = [run("mft-unit", 4.0, m=m, family="anr-flow", problem="maxflow") for m in (4, 1024)]
    spd = [run("ll-fifo", r, m=m, family="anr-flow", problem="maxflow") for r, m in ((1.5, 4), (5.0, 1024))]
    c = verdicts(rej + spd)["rejection-vs-speed"]
    assert c.verdict == "confirmed qualitatively" and "rejection 4 → 4, speed 1.5 → 5" in c.measured
    # a smaller ε: the rejection cap (O(1/ε)) is still above speed's log m at the largest m
    late = [
        run("mft-unit", r, m=m, eps=0.125, family="anr-flow", problem="maxflow") for r, m in ((2.0, 4), (8.0, 1024))
    ]
    late += [
        run("ll-fifo", r, m=m, eps=0.125, family="anr-flow", problem="maxflow") for r, m in ((1.5, 4), (6.0, 1024))
    ]
    c = verdicts(rej + spd + late)["rejection-vs-speed"]
    assert (
        c.verdict == "confirmed qualitatively"
        and "ε=0.125: rejection 2 → 8, speed 1.5 → 6 (m 4 → 1,024; not yet separated)" in c.measured
    )
    assert verdicts(late)["rejection-vs-speed"].verdict == "not shown"
    flat = [run("ll-fifo", 2.0, m=m, family="anr-flow", problem="maxflow") for m in (4, 1024)]
    assert verdicts(rej + flat)["rejection-vs-speed"].verdict == "not shown"
    # an over-budget rejection run is not a rejection-model run: it cannot make the separation
    cheat = [
        run("mft-unit", r, m=m, family="anr-flow", problem="maxflow", status=st)
        for r, m, st in ((8.0, 4, "ok"), (8.0, 1024, "ok"), (1.0, 1024, "budget_violated"))
    ]
    spd8 = [run("ll-fifo", r, m=m, family="anr-flow", problem="maxflow") for r, m in ((1.5, 4), (5.0, 1024))]
    assert verdicts(cheat + spd8)["rejection-vs-speed"].verdict == "not shown"
    assert verdicts(spd)["rejection-vs-speed"].verdict == "not shown"


def test_the_practice_claim_follows_the_headline_pairs():
    def pairs(*cis):
        return pd.DataFrame(
            [
                dict(
                    headline=True,
                    geo_ratio=(lo + hi) / 2,
                    geo_ratio_lo=lo,
                    geo_ratio_hi=hi,
                    instances=30,
                    budget_used=0.5,
                )
                for lo, hi in cis
            ]
            + [dict(headline=False, geo_ratio=5.0, geo_ratio_lo=4.0, geo_ratio_hi=6.0, instances=30, budget_used=0.0)]
        )

    assert verdicts([run("greedy", 1.0)], pairs=pairs((0.5, 0.7), (0.8, 0.9)))["practice"].verdict == "confirmed"
    mixed = verdicts([run("greedy", 1.0)], pairs=pairs((0.5, 0.7), (0.9, 1.1)))["practice"]
    assert (
        mixed.verdict == "confirmed qualitatively" and "below 1 with 95 % confidence in 1, above in 0" in mixed.measured
    )
    assert verdicts([run("greedy", 1.0)], pairs=pairs((1.1, 1.2), (1.2, 1.3)))["practice"].verdict == "contradicted"
    # no win at all (two losses, two ties): never "confirmed qualitatively"
    none = verdicts([run("greedy", 1.0)], pairs=pairs((1.1, 1.2), (1.1, 1.3), (0.9, 1.1), (0.95, 1.05)))["practice"]
    assert none.verdict == "not shown" and "below 1 with 95 % confidence in 0, above in 2" in none.measured
    assert verdicts([run("greedy", 1.0)])["practice"].verdict == "not shown"


def test_section4_needs_the_per_class_srpt_rule_over_budget_and_a_within_it():
    over = run("class-ll-srpt", 20.0, family="section4", rejected=0.3)
    a_ok = run("wmft-A", 2.0, family="section4", rejected=0.0)
    assert verdicts([over, a_ok])["section4"].verdict == "confirmed"
    a_over = run("wmft-A", 2.0, family="section4", rejected=0.4)
    assert verdicts([over, a_over])["section4"].verdict == "contradicted"
    short = run("class-ll-srpt", 2.0, family="section4", rejected=0.1)
    assert verdicts([short, a_ok])["section4"].verdict == "not shown"


def test_greedy_is_consistent_and_says_where_the_anr_tree_reaches_its_bound():
    tight = verdicts([run("greedy", 4.0, m=8, family="anr-tree"), run("greedy", 1.2, m=8)])["greedy"]
    assert tight.verdict == "consistent" and tight.measured.endswith("forces the bound in 1 of 1 runs; tight")
    loose = verdicts([run("greedy", 1.2, m=8)])["greedy"]  # an upper bound no run broke: never "confirmed"
    assert loose.verdict == "consistent" and "tight" not in loose.measured
    assert verdicts([run("greedy", 5.0, m=8)])["greedy"].verdict == "contradicted"  # above ⌈log₂ 8⌉ + 1


def test_the_weighted_lower_bound_is_never_claimed_shown_but_quotes_the_sweep():
    assert verdicts([run("greedy", 1.0)])["wmft-lower"].verdict == "not shown"
    growth = pd.DataFrame(
        [
            {
                "series": "m8",
                "sweep": "eps",
                "problem": "wtdmaxflow",
                "algorithm": "wmft-B",
                "found_exponent": 0.7,
                "x_min": 2.0,
                "x_max": 32.0,
                "m_min": 8,
                "m_max": 8,
            },
            {  # an m series is growth in m, never quoted for a bound in 1/ε
                "series": "grow_m",
                "sweep": "m",
                "problem": "wtdmaxflow",
                "algorithm": "edf",
                "found_exponent": 1.5,
                "x_min": 2.0,
                "x_max": 64.0,
                "m_min": 2,
                "m_max": 64,
            },
        ]
    )
    c = verdicts([run("greedy", 1.0)], growth)["wmft-lower"]
    assert c.verdict == "not shown" and "0.7" in c.measured and "wmft-B" in c.measured
    assert "series m8, m = 8; 1/ε from 2 to 32" in c.measured and "edf" not in c.measured


def slope(experiment, slope, consistent, claim="O(n^-1/2)", claimed=-0.5, quantity="blocking"):
    return {
        "experiment": experiment,
        "quantity": quantity,
        "claim": claim,
        "claimed_slope": claimed,
        "slope": slope,
        "consistent": consistent,
    }


def test_loss_claims_follow_the_slope_table():
    ok = pd.DataFrame([slope("A1", -0.6, True), slope("A2", -0.5, True), slope("A4", -0.1, None, "none", None)])
    rows = loss_claims(ok, ["tab:loss_slopes"])
    assert [(c.verdict, c.evidence) for c in rows] == [
        ("consistent", "tab:loss_slopes")
    ]  # the unclaimed series: no row
    unfitted = pd.DataFrame([slope("A1", -0.6, True), slope("A2", float("nan"), None)])
    (c,) = loss_claims(unfitted, [])
    assert (
        c.verdict == "consistent"
        and c.measured.startswith("1 series in 1 experiment")
        and "1 without a fit" in c.measured
    )
    (c,) = loss_claims(pd.DataFrame([slope("A2", float("nan"), None)]), [])
    assert c.verdict == "not shown" and "has a fit" in c.why
    bad = pd.DataFrame([slope("A1", -0.6, True), slope("A2", -0.2, False)])
    (c,) = loss_claims(bad, [])
    assert c.verdict == "contradicted" and "1 inconsistent" in c.measured and c.evidence == ""


def test_bipartite_claims_split_exact_checks_from_limits():
    checks = pd.DataFrame(
        [
            {"check": "token", "kind": "exact", "passed": True},
            {"check": "JIQ", "kind": "exact", "passed": True},
            {"check": "JSQ(2), N=1000", "kind": "limit", "passed": False},
            {"check": "JFIQ", "kind": "limit", "passed": True},
        ]
    )
    exact, limit = bipartite_claims(checks, [])
    assert exact.verdict == "confirmed" and limit.verdict == "not shown" and "JSQ(2)" in limit.why
    checks.loc[0, "passed"] = False
    assert bipartite_claims(checks, [])[0].verdict == "contradicted"


def test_the_table_has_a_row_per_claim_its_tally_and_cites_only_the_bibliography():
    keys = bib_keys((ROOT / "paper/references.tex").read_text())
    claims = scheduling_claims(pd.DataFrame([run("greedy", 1.0)]), PRESENT)
    frame = claims_frame(claims)
    tex = claims_table_tex(frame, keys)
    assert tex.count("\\\\\n") == len(frame) + 3  # caption, two header rows, one row per claim
    n = frame["verdict"].value_counts()
    assert f"Of the {len(frame)} claims checked by this run, {n.get('confirmed', 0)} confirmed" in tex
    assert "\\cite{cdgk}" in tex and "\\cite{anr}" in tex
    assert "\\cite{" not in claims_table_tex(frame, [])  # unknown keys as text: no undefined citation
    assert set(re.findall(r"\\ref\{([^}]+)\}", tex)) <= {*PRESENT, "tab:claims"}  # only floats the paper holds
    # the "shown in" column says which kind of float it names
    shown = re.findall(r"& ([^&]*?)\\ref\{([^}]+)\} \\\\", tex)
    assert shown and all(kind == {"fig": "Fig.~", "tab": "Table~"}[label.split(":")[0]] for kind, label in shown), shown


def test_a_claim_record_refuses_an_unknown_verdict_and_a_silent_not_shown():
    with pytest.raises(ValueError, match="verdict"):
        Claim("x", "cdgk", "s", "m", "", "likely")
    with pytest.raises(ValueError, match="says why"):
        Claim("x", "cdgk", "s", "m", "", "not shown")


def test_the_section_findings_count_the_verdicts_and_the_growing_sweeps():
    from schedbench.hall.claims import macro_tex, verdict_sentence
    from schedbench.scheduling.stage.eps_sweep_report import sweep_finding

    frame = claims_frame(
        [
            Claim("loss blocking a", "loss", "s", "m", "", "confirmed"),
            Claim("loss blocking b", "loss", "s", "m", "", "contradicted"),
            Claim("greedy", "anr", "s", "m", "", "confirmed"),
        ]
    )
    assert (
        verdict_sentence(frame, "loss ", "rates")
        == "Of the 2 claims on rates this run tests: 1 confirmed, 1 contradicted."
    )
    assert verdict_sentence(frame, ["greedy"], "x") == "Of the 1 claim on x this run tests: 1 confirmed."
    assert verdict_sentence(frame, "bipartite ", "y") == "This config tests no claim on y."
    assert macro_tex("FindingX", "at ε ≤ 1/2") == "\\newcommand{\\FindingX}{at $\\varepsilon$ $\\le$ 1/2}"
    common = {"series": "m8", "sweep": "eps", "m_min": 8, "m_max": 8, "eps_min": 0.125, "eps_max": 0.5}
    growth = pd.DataFrame(
        [
            {
                **common,
                "problem": "load",
                "algorithm": "greedy",
                "model": "rejection",
                "min_jobs_min": 40,
                "grows": False,
                "found_exponent": 0.0,
                "bound_exponent": None,
                "increment_per_doubling": 0.0,
            },
            {
                **common,
                "problem": "maxflow",
                "algorithm": "mft-unit",
                "model": "rejection",
                "min_jobs_min": 40,
                "grows": True,
                "found_exponent": 0.8,
                "bound_exponent": 1.0,
                "increment_per_doubling": 0.5,
            },
            {
                **common,
                "series": "grow_m",
                "sweep": "m",
                "m_min": 2,
                "m_max": 64,
                "eps_min": 0.125,
                "eps_max": 0.125,
                "problem": "maxflow",
                "algorithm": "edf",
                "model": "speed",
                "min_jobs_min": 160,
                "grows": True,
                "found_exponent": 0.3,
                "bound_exponent": None,
                "increment_per_doubling": 0.89,
            },
        ]
    )
    text = sweep_finding(growth)
    assert text.startswith("In the ε sweep's series with m = 8, ε from 1/2 to 1/8, ≥ 20/ε jobs: 1 of 2 sweeps found")
    assert "mft-unit on MaxFlowTime" in text and "0.80" in text and "1.00" in text
    assert (
        "series with m from 2 to 64, ε = 1/8, ≥ 20/ε jobs: 1 of 1 sweeps found a worst ALG/OPT that grows as m grows"
        in text
    )
    assert "speed at most +0.89 per doubling of m (edf)" in text
    assert sweep_finding(None) == "This config has no ε sweep."


def _typesets(*claims) -> None:
    """Every character of the claims' texts is one the LaTeX table can typeset (ρ once broke the PDF)."""
    from schedbench.hall.latex import _TEX

    texts = [str(v) for c in claims for v in (c.statement, c.measured, c.why)]
    unmapped = {ch for text in texts for ch in text if ord(ch) > 127 and ch not in _TEX}
    assert not unmapped, f"characters tex_text does not map: {sorted(unmapped)}"


def test_k_growth_classifies_the_sample_size_rules_against_n_alpha():
    from schedbench.loss.stage.slopes import k_growth

    assert [k_growth(r, p) for r, p in [("full", math.nan), ("fraction", 0.1), ("log", 2.0)]] == ["omega"] * 3
    assert [k_growth("power", p) for p in (0.1, 0.0, -0.1)] == ["omega", "theta", "below"]
    assert k_growth("const", 4.0) == "const" and k_growth("power", math.nan) == "unknown"


def _omega_row(label, rule, growth, s, half=0.05):
    return {
        **slope("A", s, None, "none", math.nan),
        "k_label": label,
        "k_rule": rule,
        "k_growth": growth,
        "points": 5,
        "slope_lo": s - half,
        "slope_hi": s + half,
        "max_n": 100_000,
    }


def test_omega_of_n_alpha_is_judged_as_a_direction_with_constant_k_as_the_control():
    from schedbench.loss.stage.claims import omega_claim

    rows = [
        _omega_row("log c=1", "log", "omega", -0.4),
        _omega_row("power gamma_offset=0.1", "power", "omega", -0.3),
        _omega_row("power gamma_offset=0", "power", "theta", 0.2),  # not ω(n^α): not tested
        _omega_row("const k=2", "const", "const", 0.01),
        _omega_row("full", "full", "omega", 0.5),  # full access has its own rows
    ]
    c = omega_claim(pd.DataFrame(rows), "tab:loss_slopes")
    assert c.verdict == "confirmed qualitatively" and "2 series" in c.measured and "2 fall" in c.measured
    _typesets(c)
    assert "constant k: slopes 0.01 to 0.01" in c.measured
    rows[1] = _omega_row("power gamma_offset=0.1", "power", "omega", -0.03)  # CI covers 0
    c = omega_claim(pd.DataFrame(rows), "")
    assert c.verdict == "not shown" and "covers 0" in c.why
    rows[1] = _omega_row("power gamma_offset=0.1", "power", "omega", 0.3)  # rises
    assert omega_claim(pd.DataFrame(rows), "").verdict == "contradicted"
    assert omega_claim(pd.DataFrame(rows[2:4]), "") is None  # no ω(n^α) series
    assert loss_claims(pd.DataFrame(rows[:2]), [])[-1].claim_id == "loss omega(n^alpha) suffices"


def _bip(experiment, label, policy, N, excess, alpha=math.nan, rho=0.8, status="ok", degree=8.0):
    return {
        "experiment": experiment,
        "degree_label": label,
        "policy": policy,
        "N": N,
        "excess_over_t_star": excess,
        "alpha": alpha,
        "rho": rho,
        "status": status,
        "mean_degree": degree,
    }


def test_the_regime_claims_read_the_fitted_rates_of_jfsq_and_jfiq():
    from schedbench.bipartite.stage.claims import regime_claims

    Ns = [100, 400, 1600]
    rows = [_bip("B1", "log c=2", p, n, n**-0.5) for p in ("jfsq", "jfiq") for n in Ns]
    rows += [_bip("B1", "log c=2", "random", n, 1.0 + n**0.1) for n in Ns]  # not a claimed policy
    rows += [_bip("B4", "power_log c=1", p, n, 2 * n**-0.3, alpha=0.3) for p in ("jfsq", "jfiq") for n in Ns]
    rows += [_bip("B4", "log c=1", p, n, 5 * n**0.2, alpha=0.3) for p in ("jfsq", "jfiq") for n in Ns]  # control
    many, hw = regime_claims(pd.DataFrame(rows), ["tab:bipartite_rates"])
    _typesets(many, hw)
    assert many.claim_id == "bipartite many-server" and many.verdict == "confirmed qualitatively"
    assert "2 series" in many.measured and "slopes -0.50 to -0.50" in many.measured
    assert hw.verdict == "confirmed qualitatively" and "control, the sparser D = ⌈ln N⌉: 0 of 2 fall" in hw.measured
    rows = [
        r if not (r["experiment"] == "B1" and r["policy"] == "jfiq") else {**r, "excess_over_t_star": r["N"] ** 0.3}
        for r in rows
    ]
    assert regime_claims(pd.DataFrame(rows), [])[0].verdict == "contradicted"


def test_the_sparse_graph_claim_orders_the_excess_by_degree_at_one_n():
    from schedbench.bipartite.stage.claims import sparsity_claim

    excess = {"full": 0.003, "log2": 0.02, "sqrt": 0.03, "log": 0.3, "const D=4": 1.5}
    rows = [_bip("B3", label, p, 1000, e) for label, e in excess.items() for p in ("jfsq", "jfiq")]
    rows += [_bip("B3", "const D=2", p, 1000, math.nan, status="unstable") for p in ("jfsq", "jfiq")]
    c = sparsity_claim(pd.DataFrame(rows), ["fig:bipartite_B3_B3"])
    _typesets(c)
    assert c.verdict == "confirmed qualitatively" and c.evidence == "fig:bipartite_B3_B3"
    assert "unstable, no finite E[T]: const D=2" in c.measured and "complete graph 0.003" in c.measured
    rows = [{**r, "excess_over_t_star": 0.5} if r["degree_label"] == "sqrt" else r for r in rows]
    assert sparsity_claim(pd.DataFrame(rows), []).verdict == "not shown"
    assert sparsity_claim(pd.DataFrame([r for r in rows if r["degree_label"] in ("full", "log")]), []) is None


def test_a_claim_shown_only_in_the_report_says_so():
    """evidence_ref: the first label the PDF holds; else "report" when the HTML report holds
    one (``report:<label>`` in ``present``); else none. The table prints "report", never a
    reference to a float the PDF lacks."""
    from schedbench.hall.claims import IN_REPORT, evidence_ref

    assert evidence_ref(["fig:a", "tab:b"], ["tab:b", "report:fig:a"]) == "tab:b"
    assert evidence_ref(["fig:a"], ["report:fig:a"]) == IN_REPORT
    assert evidence_ref(["fig:a"], ["tab:b"]) == ""
    frame = claims_frame([Claim("x", "cdgk §5", "s", "m", IN_REPORT, "consistent")])
    tex = claims_table_tex(frame, {"cdgk"})
    assert "& report \\\\" in tex and "\\ref{report}" not in tex


def test_separation_summary_names_the_separated_eps_and_the_largest_m():
    """The abstract's numbers (stage.claims.separation_summary) from constructed runs: separated
    at ε = 1/4 (rejection 4 < speed 5 at m = 1,024), not at ε = 1/8 (8 > 6)."""
    from schedbench.scheduling.stage.claims import separation_points, separation_summary

    rows = [run("mft-unit", 4.0, m=m, family="anr-flow", problem="maxflow") for m in (4, 1024)]
    rows += [run("ll-fifo", r, m=m, family="anr-flow", problem="maxflow") for r, m in ((1.5, 4), (5.0, 1024))]
    rows += [
        run("mft-unit", r, m=m, eps=0.125, family="anr-flow", problem="maxflow") for r, m in ((2.0, 4), (8.0, 1024))
    ]
    rows += [
        run("ll-fifo", r, m=m, eps=0.125, family="anr-flow", problem="maxflow") for r, m in ((1.5, 4), (6.0, 1024))
    ]
    s = separation_summary(separation_points(pd.DataFrame(rows)))
    assert s["SeparationMaxM"] == "1,024" and s["SeparationEps"] == "1/4"
    assert s["SeparationRejection"] == "4" and s["SeparationSpeed"] == "5"
    assert "not yet separated" in s["FindingSeparation"]
    assert separation_summary([])["SeparationEps"] == "--"
    # the abstract's and the conclusion's sentences say only what the points show
    assert s["SeparationSentence"] == (
        "On the adversarial immediate-dispatch construction, played up to 1,024 machines, at ε = 1/4 the "
        "smallest ratio a rejection-model algorithm is forced to at the largest machine count is 4, while every "
        "speed-(1+ε) algorithm is forced to at least 5 there, speed's forced ratio growing with m."
    )
    assert s["SeparationConclusion"].endswith(
        "; at ε = 1/8 rejection's cap O(1/ε) lies beyond the machine counts played"
    )
    none = separation_summary([p for p in separation_points(pd.DataFrame(rows)) if p["eps"] == 0.125])
    assert "does not separate the two models" in none["SeparationSentence"]
    assert none["SeparationConclusion"].startswith("this run does not show the separation")
    assert "plays no machine count" in separation_summary([])["SeparationSentence"]
