"""Worst-case search: certified worst instances for small sizes (CP-SAT,
:func:`worst_case`) and a black-box search that tries to beat the hand-made adversaries
(:func:`search_worst`). Every instance found is replayed through the real plug-in and the real
offline solver."""

from schedbench.scheduling.search.blackbox import search_worst
from schedbench.scheduling.search.exact import SearchFailed, exact_algorithms, worst_case
from schedbench.scheduling.search.replay import replay_worst_case
from schedbench.scheduling.search.result import ReplayMismatch, WorstCase
from schedbench.scheduling.search.starts import default_seeds

__all__ = [
    "worst_case",
    "search_worst",
    "default_seeds",
    "exact_algorithms",
    "SearchFailed",
    "WorstCase",
    "ReplayMismatch",
    "replay_worst_case",
]
