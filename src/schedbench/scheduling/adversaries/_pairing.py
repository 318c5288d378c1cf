"""What LB-A and LB-B share (docs/models/rejection-model.md §6.1, §6.2): rounds that pair the survivors, release jobs
restricted to each pair, judge each pair after the round by how much of it the algorithm
accepted, keep the more loaded member of a good pair, and end with jobs on a machine that OPT
leaves empty. A subclass says how many jobs of which size a round releases per pair, what
"accepted enough" means, and what the final jobs are."""

from __future__ import annotations

from schedbench.scheduling.adversaries.base import Adversary
from schedbench.scheduling.model import JobSpec

__all__ = ["PairingRounds", "heaviest"]


def heaviest(view, machines: list[int]) -> int:
    """The machine of largest current load, ties to the lower index."""
    return min(machines, key=lambda i: (-view.load(i), i))


class PairingRounds(Adversary):
    """Rounds r = 1..rounds over the survivors (an odd one out sits a round out and carries
    over, which only happens after bad pairs); :meth:`round_jobs` gives (count, size) per pair,
    :meth:`accepted_enough` judges a pair from its round's job ids, :meth:`final_jobs` ends the
    game on the most loaded machine OPT leaves empty (a final survivor or the survivor-rule
    member of a bad pair)."""

    def start(self) -> None:
        self.survivors = list(range(self.m))
        self.round = 0
        self.pairs: list[tuple[int, int]] = []
        self.per_pair = 0
        self.leftover: int | None = None
        self.opt_free: list[int] = []  # members of bad pairs that OPT leaves empty
        self.final_done = False
        #: per round: (round, pairs, good pairs) — for inspection
        self.history: list[tuple[int, int, int]] = []

    # -- what a subclass decides
    @property
    def rounds(self) -> int:
        raise NotImplementedError

    def round_jobs(self, r: int) -> tuple[int, int]:
        """(jobs per pair, their size) in round r."""
        raise NotImplementedError

    def accepted_enough(self, view, ids: list[int]) -> bool:
        raise NotImplementedError

    def final_jobs(self, view, machine: int) -> list[JobSpec]:
        raise NotImplementedError

    # -- the game
    def next_jobs(self, view):
        if self.round < self.rounds and len(self.survivors) >= 2:
            self.round += 1
            count, size = self.round_jobs(self.round)
            s = self.survivors
            self.pairs = [(s[k], s[k + 1]) for k in range(0, len(s) - 1, 2)]
            self.leftover = s[-1] if len(s) % 2 else None
            self.per_pair = count
            return [JobSpec(view.time, size, pair) for pair in self.pairs for _ in range(count)]
        self.pairs = []
        if self.final_done:
            return None
        self.final_done = True
        return self.final_jobs(view, heaviest(view, self.survivors + self.opt_free))

    def observe(self, view, ids):
        """Judge each pair on the view after the whole round (late rejections count)."""
        if not self.pairs:
            return
        n = self.per_pair
        survivors, good = [], 0
        for k, (a, b) in enumerate(self.pairs):
            top = heaviest(view, [a, b])
            if self.accepted_enough(view, ids[k * n : (k + 1) * n]):
                survivors.append(top)
                good += 1
            else:
                self.opt_free.append(top)  # OPT puts the bad pair's jobs on the other member
        if self.leftover is not None:
            survivors.append(self.leftover)
        self.survivors = survivors
        self.history.append((self.round, len(self.pairs), good))

    @staticmethod
    def accepted(view, j: int) -> bool:
        """Dispatched and not rejected (so far)."""
        return view.machine_of(j) >= 0 and not view.is_rejected(j)
