# Thin: the sweep's point directories -> results/eps_sweep*.parquet, paper/tables/eps_sweep.tex, paper/figures/eps_sweep_*.pdf
from schedbench.scheduling.stage.figures import algorithm_colours
from schedbench.hall.io import atomic_write_text, write_parquet
from schedbench.hall.logs import logged
from schedbench.scheduling.stage.eps_sweep import collect_sweep, point_files
from schedbench.scheduling.stage.eps_sweep_report import growth_table, growth_table_tex
from schedbench.scheduling.stage.search_figures import plot_eps_sweep

with logged(snakemake.log[0], "eps_sweep_table") as log:
    section, paths = dict(snakemake.params.section), []
    for directory, series in zip(snakemake.input.points, snakemake.params.series):
        paths += point_files(directory, section, series)
    points = collect_sweep(paths)
    growth = growth_table(points)
    write_parquet(points, snakemake.output.table)
    write_parquet(growth, snakemake.output.growth)
    atomic_write_text(snakemake.output.tex, growth_table_tex(growth))
    colours = algorithm_colours(points["algorithm"])  # an algorithm has one colour in every figure
    for problem, path in zip(snakemake.params.problems, snakemake.output.figures):
        plot_eps_sweep(points, problem, path, colours)
    log.info(
        "%d points, %d sweeps, %d growing", len(points), len(growth), int(growth["grows"].sum()) if len(growth) else 0
    )
