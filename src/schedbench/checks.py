"""The whole experiment config checked beyond its schema: each registered wing checks its own
part (:attr:`schedbench.hall.wing.Wing.check`) and estimates its own stages
(:attr:`~schedbench.hall.wing.Wing.plan`); loading, schema and hash are the hall's
(:mod:`schedbench.hall.config`)."""

from __future__ import annotations

import copy

from schedbench.hall.config import fill_defaults, resolve_config
from schedbench.hall.wing import section_schemas, wings


def resolved(config: dict) -> dict:
    """A copy of ``config`` checked against the schema with its defaults filled in
    (:func:`~schedbench.hall.config.resolve_config`, the registered wings' own sections
    included): a hand-written dict may leave out what the schema defaults."""
    return resolve_config(copy.deepcopy(config), sections=section_schemas())


def check_config(config: dict) -> None:
    """Raise :class:`~schedbench.hall.config.ConfigError` naming the first bad key; return None
    if the config is usable. On a copy with the schema's defaults filled in, each wing checks
    its part, in registry order (their messages say more than the schema's), then the schema
    checks the whole (:func:`resolved`); a key a wing's check misses that the schema requires
    is named by the schema."""
    filled = fill_defaults(copy.deepcopy(config), sections=section_schemas())
    try:
        for wing in wings():
            wing.check(filled)
    except KeyError:
        resolved(config)  # the schema names the missing key
        raise
    resolved(config)


def plan_config(config: dict):
    """The run planner's estimate of a checked config (:mod:`schedbench.hall.plan`), its
    defaults filled in (:func:`resolved`): each wing estimates its own stages; the tables,
    figures and paper that join them are :func:`plan_outputs`'s."""
    from schedbench.hall.plan import Plan, calibration, machine_memory_bytes

    config = resolved(config)
    stages = [s for wing in wings() for s in wing.plan(config)]
    return Plan(stages + plan_outputs(config), calibration(), machine_memory_bytes())


#: CPU seconds of one job of each rule that joins the wings (the claims, the paper, the
#: pipeline record and the site), measured on the project machine
#: (:func:`schedbench.hall.plan.output_stages`): ``paper_pdf`` (no benchmark) a latexmk build from
#: scratch, a few pdflatex passes; the record and the site on the default config's tables
#: (python -c with the scripts' calls; Snakemake's start-up of a job added). Each wing's own
#: tables and figures are its :attr:`~schedbench.hall.wing.Wing.plan_outputs`.
OUTPUT_SECONDS_MEASURED = {
    "claims_table": 3.0,
    "paper_generated": 2.0,
    "paper_reproducibility": 2.0,
    "paper_pdf": 30.0,
    "pipeline_record": 3.0,
    "site": 4.0,
}


def plan_outputs(config: dict) -> list:
    """The jobs that build the tables, figures and paper of a checked config, one estimate per
    rule (section ``tables``, ``figures`` or ``paper``; the stage is the rule's name): each
    wing's (:attr:`~schedbench.hall.wing.Wing.plan_outputs`), and the claims table, the paper,
    the pipeline record and the site, always; the tables first, then the figures, then the paper."""
    from schedbench.hall.plan import output_stages

    jobs = {
        "tables": {"claims_table": 1},
        "paper": {"paper_generated": 1, "paper_reproducibility": 1, "paper_pdf": 1, "pipeline_record": 1, "site": 1},
    }
    notes = {"paper_pdf": "latexmk"}
    stages = [s for wing in wings() for s in wing.plan_outputs(config)] + output_stages(
        jobs, OUTPUT_SECONDS_MEASURED, notes
    )
    order = ("tables", "figures", "paper")
    return sorted(stages, key=lambda s: order.index(s.section))  # stable: by wing within a section
