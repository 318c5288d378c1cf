"""One function per figure; each reads only a tidy results table. Modules per wing:
:mod:`.scheduling` (seed 000), :mod:`.loss` (seed 002), :mod:`.bipartite` (seed 003)."""

from schedbench.plots.scheduling import (plot_ratio_vs_eps, plot_rejection_vs_eps, plot_rounds, ratio_vs_eps_grid,
                                         rejection_vs_eps_grid, rounds_figure)

__all__ = ["plot_ratio_vs_eps", "ratio_vs_eps_grid", "plot_rejection_vs_eps", "rejection_vs_eps_grid",
           "plot_rounds", "rounds_figure"]
