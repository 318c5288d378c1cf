"""The hall's pipeline glue: config checks, experiment runners, results I/O and schema checks,
derived columns, LaTeX tables, logging, and the source lists each Snakemake job depends on."""
