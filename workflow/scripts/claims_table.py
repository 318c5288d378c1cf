# Thin: the results tables -> results/claims.parquet, paper/tables/claims.tex (the claims, judged),
# paper/macros_findings.tex (each section's finding in a sentence); each registered wing judges
# its own claims and writes its own findings (hall.wing.Wing.claims, .findings)
from pathlib import Path

import pandas as pd

from schedbench.hall.claims import claims_frame, claims_table_tex
from schedbench.hall.io import atomic_write_text, write_parquet
from schedbench.hall.latex import bib_keys
from schedbench.hall.logs import logged
from schedbench.hall.wing import wings

with logged(snakemake.log[0], "claims_table") as log:
    inp, present = snakemake.input, snakemake.params.present
    tables = {name: pd.read_parquet(path) for name, path in inp.items() if str(path).endswith(".parquet")}
    claims = [claim for wing in wings() for claim in wing.claims(tables, present)]
    frame = claims_frame(claims)
    write_parquet(frame, snakemake.output.table)
    atomic_write_text(snakemake.output.tex, claims_table_tex(frame, bib_keys(Path(inp.references).read_text())))
    params = dict(snakemake.params.items())
    findings = [line for wing in wings() for line in wing.findings(tables, frame, params)]
    atomic_write_text(snakemake.output.findings, "\n".join(findings) + "\n")
    log.info("%d claims: %s", len(frame), frame["verdict"].value_counts().to_dict())
