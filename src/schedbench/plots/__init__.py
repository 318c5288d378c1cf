"""One function per figure; each reads only the tidy results table."""

from schedbench.plots.ratio_vs_eps import plot_ratio_vs_eps, ratio_vs_eps_grid

__all__ = ["plot_ratio_vs_eps", "ratio_vs_eps_grid"]
