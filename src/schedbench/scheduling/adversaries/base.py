"""The adversary plug-in contract (``docs/models/rejection-model.md`` §6: "an interactive
object with two methods").

One file per adversary, one class per file, decorated with
:func:`schedbench.scheduling.registry.register_adversary`. A class declares ``name``,
``problem``, ``rule_label``, ``unit_sizes``, ``parameters`` (``{name: Param}``, see
:mod:`schedbench.hall.params`: types, ranges, choices, defaults derived from other parameters or ε)
and ``reference``, and
implements:

* :meth:`next_jobs` — the next batch of jobs (``JobSpec`` rows, release ≥ the view's time),
  chosen from what the view shows of the algorithm's decisions so far; ``None`` or an empty
  list ends the game;
* :meth:`observe` — called after the batch was released, with the jobs' ids;
* :meth:`size` (a classmethod, optional) — (the most jobs a game of these parameters can
  release, machines), so that a run can be costed before it is played;
* :attr:`m` — the number of machines (default: the parameter ``m``), and :attr:`opt` — the
  optimum it constructs (default: the parameter ``T``), known before the game: the adversary
  builds its instance around it, so algorithms that assume T* receive it. The offline solver
  must agree on the realised instance (tests, pipeline).

Timing: batches released at the same time as earlier ones are arrivals of the same slot, so an
algorithm's slot hook has not run between them (it runs once the clock moves past the slot).
An adversary that must see decisions a slot hook makes (held jobs dispatched) releases its
next batch at a later time.
"""

from __future__ import annotations

from typing import Any, Callable, ClassVar

from schedbench.hall.params import Param, ParameterError, resolve

__all__ = ["Adversary", "MAX_JOBS", "power_of_two", "Param", "ParameterError"]

#: The largest instance (job count) an adversary agrees to build.
MAX_JOBS = 2_000_000


def power_of_two(least: int = 1) -> Callable[[int], str | None]:
    """A :class:`Param` ``rule``: the value must be a power of two >= ``least``."""

    def rule(value: int) -> str | None:
        return None if value >= least and not value & (value - 1) else f"must be a power of two >= {least}"

    return rule


class Adversary:
    name: ClassVar[str]
    problem: ClassVar[str] = "load"
    rule_label: ClassVar[str] = "R"
    unit_sizes: ClassVar[bool] = False  # True if every job it releases has size 1
    parameters: ClassVar[dict[str, Param]] = {}
    reference: ClassVar[str] = ""

    def __init__(self, eps: float | None = None, seed: int = 0, **params: Any) -> None:
        self.eps = eps
        self.seed = int(seed)
        self.params = type(self).resolve_params(params, eps=eps)

    @classmethod
    def resolve_params(cls, params: dict[str, Any], **context: Any) -> dict[str, Any]:
        """Defaults filled in (derived ones from ``context``, e.g. ``eps``; without it a default
        derived from ε stays None until the adversary is built), every value checked, then the
        cross-parameter checks."""
        out = resolve(cls.parameters, params, f"adversary {cls.name!r}", context=context)
        cls.check_params(out)
        return out

    @classmethod
    def check_params(cls, params: dict[str, Any]) -> None:
        """Cross-parameter checks; raise ParameterError naming the parameter."""

    @classmethod
    def size(cls, params: dict[str, Any]) -> tuple[int, int] | None:
        """(the most jobs a game with these resolved parameters can release, machines), or None
        if the adversary does not state it (the default). An adversary's ``check_params`` refuses
        too large a game from this count."""
        return None

    @classmethod
    def refuse_too_many_jobs(cls, params: dict[str, Any], K: int, message: Callable[[int | None], str]) -> None:
        """Refuse a game on 2^K machines that :meth:`size` puts above :data:`MAX_JOBS` jobs, or
        any with K > 40 (2**K is then neither computed nor put in a message): ParameterError
        naming the adversary, then ``message(jobs)`` (jobs the count, None when K > 40)."""
        jobs = None if K > 40 else cls.size(params)[0]
        if jobs is None or jobs > MAX_JOBS:
            raise ParameterError(f"adversary {cls.name!r}: {message(jobs)}")

    @classmethod
    def problem_for(cls, params: dict[str, Any]) -> str:
        """The problem the instances built with these parameters belong to (default: ``problem``;
        an adversary with several instantiations overrides it and sets ``self.problem``)."""
        return cls.problem

    @classmethod
    def unit_sizes_for(cls, params: dict[str, Any]) -> bool:
        """Whether every job built with these parameters has size 1 (default: ``unit_sizes``)."""
        return cls.unit_sizes

    @property
    def m(self) -> int:
        """The number of machines: the parameter ``m`` (a construction that derives it overrides this)."""
        if "m" not in self.params:
            raise NotImplementedError
        return self.params["m"]

    @property
    def opt(self) -> float:
        """The optimum the construction builds: the parameter ``T`` (a construction that builds
        another overrides this)."""
        if "T" not in self.params:
            raise NotImplementedError
        return float(self.params["T"])

    def next_jobs(self, view) -> list | None:
        raise NotImplementedError

    def observe(self, view, ids: list[int]) -> None:
        """See the ids the engine gave the last batch (default: nothing to remember)."""

    @classmethod
    def describe(cls) -> dict[str, Any]:
        return {
            "name": cls.name,
            "problem": cls.problem,
            "rule": cls.rule_label,
            "parameters": {k: p.plain_default() for k, p in cls.parameters.items()},
            "reference": cls.reference,
        }
