# Thin: the exact-check table T2 and the fitted rates of E[T] - T*_N.
from schedbench.hall.io import atomic_write_text, read_parquet
from schedbench.hall.logs import logged
from schedbench.bipartite.stage.rates import bipartite_rates
from schedbench.bipartite.stage.tables import bipartite_checks_tex, bipartite_rates_tex

with logged(snakemake.log[0], "bipartite_tables"):
    atomic_write_text(snakemake.output.checks, bipartite_checks_tex(read_parquet(snakemake.input.checks)))
    atomic_write_text(snakemake.output.rates, bipartite_rates_tex(bipartite_rates(read_parquet(snakemake.input.table))))
