"""The whole experiment config checked beyond its schema: each registered wing checks its own
part (:attr:`schedbench.hall.wing.Wing.check`) and estimates its own stages
(:attr:`~schedbench.hall.wing.Wing.plan`); loading, schema and hash are the hall's
(:mod:`schedbench.hall.config`)."""

from __future__ import annotations

import copy

from schedbench.hall.config import resolve_config
from schedbench.hall.wing import section_schemas, wings


def resolved(config: dict) -> dict:
    """A copy of ``config`` checked against the schema with its defaults filled in
    (:func:`~schedbench.hall.config.resolve_config`, the registered wings' own sections
    included): a hand-written dict may leave out what the schema defaults."""
    return resolve_config(copy.deepcopy(config), sections=section_schemas())


def check_config(config: dict) -> None:
    """Raise :class:`~schedbench.hall.config.ConfigError` naming the first bad key; return None
    if the config is usable. The schema first (:func:`resolved`), then each wing checks its
    part, in registry order."""
    config = resolved(config)
    for wing in wings():
        wing.check(config)


def plan_config(config: dict):
    """The run planner's estimate of a checked config (:mod:`schedbench.hall.plan`), its
    defaults filled in (:func:`resolved`): each wing estimates its own stages; the tables,
    figures and paper that join them are :func:`plan_outputs`'s."""
    from schedbench.hall.plan import Plan, calibration, machine_memory_bytes

    config = resolved(config)
    stages = [s for wing in wings() for s in wing.plan(config)]
    return Plan(stages + plan_outputs(config), calibration(), machine_memory_bytes())


#: CPU seconds of one job of each rule that builds a table, a figure or the paper, start-up
#: included, in seconds of the reference machine (the planner multiplies them by this machine's
#: calibration, like every other cost): the ``cpu_time`` of its benchmark file
#: (``results/benchmarks/*.tsv``) in the default config's run on the project machine, which
#: calibrates at 1.86 reference seconds per second, divided by that factor (:data:`_MEASURED_ON`);
#: ``paper_pdf`` (no benchmark) a latexmk build from scratch, a few pdflatex passes. Their
#: inputs are the small results tables, so a smaller config costs about the same (figures: the
#: bootstrap of every group).
_MEASURED_ON = 1.86
_OUTPUT_SECONDS_MEASURED = {
    "collect_runs": 9.0,
    "paper_tables": 3.0,
    "claims_table": 3.0,
    "method_table": 1.0,
    "worst_case_table": 3.0,
    "report_tables_runs": 3.0,
    "eps_sweep_table": 11.0,
    "practice_table": 7.0,
    "loss_collect": 2.0,
    "loss_tables": 1.0,
    "report_tables_loss": 2.0,
    "bipartite_collect": 1.0,
    "bipartite_checks": 5.0,
    "bipartite_tables": 1.0,
    "report_tables_bipartite": 2.0,
    "scheduling_figures": 15.0,
    "figure_adversary_rounds": 6.0,
    "figure_parameter_sweep": 14.0,
    "figure_separation": 6.5,
    "loss_figures": 8.0,
    "bipartite_figures": 12.0,
    "paper_generated": 2.0,
    "paper_reproducibility": 2.0,
    "paper_pdf": 30.0,
    # the pipeline record and the site: measured on the default config's tables on the project machine
    # (python -c with the scripts' calls; Snakemake's start-up of a job added)
    "pipeline_record": 3.0,
    "site": 4.0,
}
OUTPUT_SECONDS = {rule: seconds / _MEASURED_ON for rule, seconds in _OUTPUT_SECONDS_MEASURED.items()}


def plan_outputs(config: dict) -> list:
    """The jobs that build the tables, figures and paper of a checked config, one estimate per
    rule (section ``tables``, ``figures`` or ``paper``; the stage is the rule's name), counted
    as the Snakefile's targets ask for them: one scheduling figure job per problem, the loss and
    bipartite ones when the config has those sections, the ε sweep's and the practice tables
    when it has those; the pipeline record and the site (section ``paper``) always."""
    from schedbench.hall.plan import BASE_BYTES, StageEstimate
    from schedbench.scheduling.stage.config import experiment_problem
    from schedbench.scheduling.stage.eps_sweep import sweep_jobs
    from schedbench.scheduling.stage.practice import practice_families

    experiments = config.get("experiments") or {}
    problems = sorted({experiment_problem(e) for e in experiments.values()}) or ["load"]
    search = config.get("search") or {}
    loss = bool((config.get("loss") or {}).get("experiments"))
    bipartite = bool((config.get("bipartite") or {}).get("experiments"))
    jobs = {
        "tables": {
            "collect_runs": 1,
            "paper_tables": 1,
            "claims_table": 1,
            "method_table": 1,
            "worst_case_table": 1,
            "report_tables_runs": 1,
            "eps_sweep_table": int(bool(sweep_jobs(search.get("eps_sweep") or {}))),
            "practice_table": int(bool(practice_families(config.get("practice") or {}))),
            "loss_collect": int(loss),
            "loss_tables": int(loss),
            "report_tables_loss": int(loss),
            "bipartite_collect": int(bipartite),
            "bipartite_checks": int(bipartite),
            "bipartite_tables": int(bipartite),
            "report_tables_bipartite": int(bipartite),
        },
        "figures": {
            "scheduling_figures": len(problems),
            "figure_adversary_rounds": 1,
            "figure_parameter_sweep": 1,
            "figure_separation": 1,
            "loss_figures": int(loss),
            "bipartite_figures": int(bipartite),
        },
        "paper": {"paper_generated": 1, "paper_reproducibility": 1, "paper_pdf": 1, "pipeline_record": 1, "site": 1},
    }
    notes = {"scheduling_figures": f"one per problem: {', '.join(problems)}", "paper_pdf": "latexmk"}
    return [
        StageEstimate(section, rule, n, n, 0.0, n * OUTPUT_SECONDS[rule], BASE_BYTES, notes.get(rule, ""))
        for section, rules in jobs.items()
        for rule, n in rules.items()
        if n
    ]
