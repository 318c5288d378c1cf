# Thin: the results tables -> results/claims.parquet, paper/tables/claims.tex (the claims, judged),
# paper/macros_findings.tex (each problem's finding in a sentence)
from pathlib import Path

import pandas as pd

from schedbench.bipartite.stage.claims import bipartite_claims
from schedbench.hall.claims import claims_frame, claims_table_tex, macro_tex, verdict_sentence
from schedbench.hall.io import atomic_write_text, write_parquet
from schedbench.hall.latex import bib_keys
from schedbench.hall.logs import logged
from schedbench.loss.stage.claims import loss_claims
from schedbench.scheduling.problems import problem_names
from schedbench.scheduling.stage.claims import (
    ADVERSARY_CLAIMS,
    scheduling_claims,
    separation_points,
    separation_summary,
)
from schedbench.scheduling.stage.eps_sweep_report import sweep_finding
from schedbench.scheduling.stage.headline import findings_macros_tex
from schedbench.scheduling.stage.practice_report import practice_finding, practice_tally

with logged(snakemake.log[0], "claims_table") as log:
    inp, present = snakemake.input, snakemake.params.present
    growth = pd.read_parquet(inp.sweep_growth) if "sweep_growth" in inp.keys() else None
    pairs = pd.read_parquet(inp.practice_pairs) if "practice_pairs" in inp.keys() else None
    runs = pd.read_parquet(inp.runs)
    claims = scheduling_claims(runs, present, growth, pairs)
    if "loss_slopes" in inp.keys():
        claims += loss_claims(pd.read_parquet(inp.loss_slopes), present)
    if "bipartite_checks" in inp.keys():
        claims += bipartite_claims(pd.read_parquet(inp.bipartite_checks), present, pd.read_parquet(inp.bipartite))
    frame = claims_frame(claims)
    write_parquet(frame, snakemake.output.table)
    atomic_write_text(snakemake.output.tex, claims_table_tex(frame, bib_keys(Path(inp.references).read_text())))
    findings = [
        findings_macros_tex(runs, problem_names()).rstrip("\n"),
        macro_tex("FindingAdversaries", verdict_sentence(frame, ADVERSARY_CLAIMS, "what the adversaries force")),
        macro_tex("FindingSweep", sweep_finding(growth)),
        macro_tex("FindingPractice", practice_finding(pairs, dict(snakemake.params.titles))),
        *(macro_tex(name, v) for name, v in practice_tally(pairs).items()),
        *(macro_tex(name, v) for name, v in separation_summary(separation_points(runs)).items()),
        macro_tex("FindingLoss", verdict_sentence(frame, "loss ", "the loss system's rates")),
        macro_tex("FindingBipartite", verdict_sentence(frame, "bipartite ", "the bipartite model")),
    ]
    atomic_write_text(snakemake.output.findings, "\n".join(findings) + "\n")
    log.info("%d claims: %s", len(frame), frame["verdict"].value_counts().to_dict())
