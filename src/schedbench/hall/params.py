"""One parameter vocabulary for every plug-in and API of every wing.

A :class:`Param` declares one parameter: its ``type``, its range (``min``/``max``, each inclusive
or exclusive), its ``choices``, its ``doc``, and its default: a value, ``required=True`` (no
default), or a default :class:`Derived` from the other resolved parameters and the run's context
(e.g. ``K = ⌈log₂(1/ε)⌉ + 2`` from ε). :func:`resolve` fills in the defaults of a ``{name: Param}``
table and checks every value; a bad one is a single error that names the owner and the parameter::

    adversary 'anr-flow': parameter 'T' must be an integer >= 1, got 0
    family 'random-restricted': parameter 'm' must be int, got 4.5
    simulate_loss: d must be an integer >= 1, got 0          (queueing: :func:`check_value`)

Refused: an unknown name, a missing required value, the wrong type (a bool is never an int or a
number, a float is an int only with ``integral_float`` and a whole value), NaN and ±inf, a value
outside the range, a value not among the choices, and whatever the optional per-value ``rule``
refuses. Cross-parameter checks stay with the owner (e.g. ``check_params`` of an adversary).

Users: online algorithms and adversaries (``parameters`` of the class), instance families
(``Family.parameters``), and the argument checks of the queueing wings
(:mod:`schedbench.hall.arguments`). Two spellings of the same checks exist so that the
messages users already see keep their wording: ``"words"`` ("must be an integer >= 1", "must be a
finite number") and ``"python"`` (families: "must be int", "must be >= 1", "must be in [0, 1)").
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping

import numpy as np

__all__ = [
    "did_you_mean",
    "Param",
    "Derived",
    "Applies",
    "ParameterError",
    "Invalid",
    "resolve",
    "check_value",
    "check_applies",
    "AUTO",
]


def did_you_mean(name: Any, known: Iterable[str]) -> str:
    """``"; did you mean 'x'?"`` for the known name closest to a mistyped ``name`` (difflib's
    ratio ≥ 0.6), ``";"`` when none is close: appended to an "unknown name" error's first part."""
    import difflib

    if not isinstance(name, str):
        return ";"
    close = difflib.get_close_matches(name, [str(k) for k in known], n=1, cutoff=0.6)
    return f"; did you mean {close[0]!r}?" if close else ";"


#: A value that, for a parameter with a derived default, means "derive it" (as None does).
AUTO = "auto"


class ParameterError(ValueError):
    """A parameter is unknown, missing, of the wrong type, out of range or does not apply; the
    message names it."""


class Invalid(Exception):
    """Raised by :meth:`Param.validate`: ``phrase`` says what the value must be ("must be ...")."""

    def __init__(self, phrase: str) -> None:
        super().__init__(phrase)
        self.phrase = phrase


@dataclass(frozen=True)
class Derived:
    """A default computed from the other resolved parameters and the context.

    ``fn`` receives one mapping: the context (e.g. ``eps``) updated with the parameters resolved
    so far, and returns the value (which is then checked like a given one); it may raise a
    :class:`ParameterError` of its own. ``text`` is how documentation shows it
    ("⌈log₂(1/ε)⌉ + 2"). ``needs`` names context entries it reads: while one is absent (a
    resolve without context, e.g. when a config is checked before ε is known) the value stays
    None, to be derived when the object is built."""

    fn: Callable[[Mapping[str, Any]], Any]
    text: str
    needs: tuple[str, ...] = ()

    def __call__(self, values: Mapping[str, Any]) -> Any:
        return self.fn(values)


@dataclass(frozen=True)
class Applies:
    """Where a parameter applies: only when the selecting parameter ``by`` (e.g. ``policy``)
    is one of ``values``; ``why`` says why the others do not read it ("it uses 'tokens'").
    Anywhere else a value other than the parameter's default is an error that names it
    (:func:`check_applies`), never silently ignored."""

    by: str
    values: frozenset
    why: str


def _is_bool(value: Any) -> bool:
    return isinstance(value, (bool, np.bool_))


_WORDS = {int: "an integer", float: "a finite number", bool: "True or False", str: "text"}


@dataclass(frozen=True)
class Param:
    """One parameter. Positional form ``Param(default, choices, doc)``; everything else by keyword.

    ``type``: a type or tuple of types (None: any value, only ``choices`` checked); ``int`` takes
    any integer (numpy too) and gives an int, ``float`` any finite real and gives a float.
    ``min``/``max`` with ``min_open``/``max_open``: the range (numbers only). ``required``: no
    default, must be given. ``derive``: a :class:`Derived` default (None or ``"auto"`` given
    also mean "derive"). ``nullable``: whether None is a value (default: for a typed parameter
    when its literal default is None; for an untyped one unless its choices leave None out).
    ``rule``: an extra per-value check returning a phrase ("must be a power of two >= 2") when
    the value is refused, else None. ``applies``: an :class:`Applies` when only some values of
    another parameter read this one (checked by :func:`check_applies`)."""

    default: Any = None
    choices: tuple | None = None
    doc: str = ""
    type: type | tuple | None = None
    min: float | None = None
    max: float | None = None
    min_open: bool = False
    max_open: bool = False
    required: bool = False
    derive: Derived | None = None
    nullable: bool | None = None
    integral_float: bool = False
    rule: Callable[[Any], str | None] | None = None
    applies: Applies | None = None

    # ------------------------------------------------------------------ checks
    @property
    def kinds(self) -> tuple:
        return () if self.type is None else (self.type if isinstance(self.type, tuple) else (self.type,))

    @property
    def optional(self) -> bool:
        """Whether the parameter may be left out and stay None ("not given")."""
        return self.accepts_none() and not self.required and self.derive is None

    def accepts_none(self) -> bool:
        if self.nullable is not None:
            return self.nullable
        if self.type is None:  # untyped: None is a value unless the choices leave it out
            return self.choices is None or None in self.choices
        return self.default is None and not self.required and self.derive is None

    def validate(self, value: Any, spelling: str = "words") -> Any:
        """``value`` checked and normalised (int, float, bool), or :class:`Invalid` with a phrase."""
        if value is None and self.accepts_none():
            return None
        if self.kinds:
            value = self._typed(value, spelling)
        if self.choices is not None and value not in self.choices:
            raise Invalid(f"must be one of {list(self.choices)}")
        if (self.min is not None or self.max is not None) and isinstance(value, numbers.Real) and not _is_bool(value):
            self._in_range(value, spelling)
        if self.rule is not None:
            phrase = self.rule(value)
            if phrase:
                raise Invalid(phrase)
        return value

    def _typed(self, value: Any, spelling: str) -> Any:
        kinds = self.kinds
        if _is_bool(value):
            if bool in kinds:
                return bool(value)
            raise Invalid(self._type_phrase(spelling, bounds=False))
        if int in kinds and isinstance(value, numbers.Integral):
            return int(value)
        elif (
            int in kinds
            and self.integral_float
            and isinstance(value, numbers.Real)
            and math.isfinite(float(value))
            and float(value).is_integer()
        ):
            return int(value)
        elif float in kinds and isinstance(value, numbers.Real):
            if not math.isfinite(float(value)):
                raise Invalid(f"must be {_WORDS[float]}")
            return float(value)
        else:
            for kind in kinds:
                if kind not in (int, float, bool) and isinstance(value, kind):
                    return value
        raise Invalid(self._type_phrase(spelling))

    def _type_phrase(self, spelling: str, bounds: bool = True) -> str:
        if spelling == "python":
            return "must be " + "/".join(k.__name__ for k in self.kinds)
        if self.choices is not None:
            return f"must be one of {list(self.choices)}"
        words = " or ".join(_WORDS.get(k, k.__name__) for k in self.kinds)
        if bounds and self.kinds == (int,) and self.min is not None:
            words += f" {'>' if self.min_open else '>='} {self.min}"
        return f"must be {words}"

    def _in_range(self, value: float, spelling: str) -> None:
        low_bad = self.min is not None and (value <= self.min if self.min_open else value < self.min)
        high_bad = self.max is not None and (value >= self.max if self.max_open else value > self.max)
        if not (low_bad or high_bad):
            return
        if spelling == "python":
            if self.min is not None and self.max is not None:
                raise Invalid(
                    f"must be in {'(' if self.min_open else '['}{self.min}, {self.max}{')' if self.max_open else ']'}"
                )
            bound, sign = (
                (self.min, ">" if self.min_open else ">=") if low_bad else (self.max, "<" if self.max_open else "<=")
            )
            raise Invalid(f"must be {sign} {bound}")
        bound, sign = (
            (self.min, ">" if self.min_open else ">=") if low_bad else (self.max, "<" if self.max_open else "<=")
        )
        if self.kinds == (int,):
            raise Invalid(f"must be an integer {sign} {bound}")
        raise Invalid(f"must be {sign} {bound:g}")

    # ------------------------------------------------------------------ documentation
    def default_text(self) -> str:
        """The default as documentation shows it: "default: 4", "default: ⌈log₂ m⌉", "required"."""
        if self.required:
            return "required"
        if self.derive is not None:
            return f"default: {self.derive.text}"
        return f"default: {self.default!r}"

    def range_text(self) -> str:
        """Type, range and choices in one line ("int >= 1", "float in (0, 2]", "one of ['a', 'b']")."""
        parts = ["/".join(k.__name__ for k in self.kinds)] if self.kinds else []
        if self.min is not None and self.max is not None:
            parts.append(f"in {'(' if self.min_open else '['}{self.min}, {self.max}{')' if self.max_open else ']'}")
        elif self.min is not None:
            parts.append(f"{'>' if self.min_open else '>='} {self.min}")
        elif self.max is not None:
            parts.append(f"{'<' if self.max_open else '<='} {self.max}")
        if self.choices is not None:
            parts.append(f"one of {list(self.choices)}")
        if self.accepts_none() and self.kinds:
            parts.append("or null")
        return " ".join(parts)

    def describe(self) -> dict[str, Any]:
        """A JSON-friendly summary (listings, generated docs)."""
        return {"type": self.range_text(), "default": self.default_text(), "doc": self.doc}

    def plain_default(self) -> Any:
        """The literal default (None when required or derived)."""
        return None if self.required or self.derive is not None else self.default


def _derives(param: Param, value: Any) -> bool:
    return param.derive is not None and (value is None or (isinstance(value, str) and value == AUTO))


def resolve(
    declared: Mapping[str, Param],
    given: Mapping[str, Any],
    owner: str,
    *,
    context: Mapping[str, Any] | None = None,
    error: type[Exception] = ParameterError,
    spelling: str = "words",
) -> dict[str, Any]:
    """Every declared parameter resolved: given values checked, defaults filled in, derived
    defaults computed (in declaration order, after the given and literal ones) from the
    ``context`` and the values resolved so far. ``owner`` starts each message ("algorithm
    'greedy'"); ``error`` is the exception raised (a :class:`ParameterError` or subclass)."""
    unknown = sorted(set(given) - set(declared))
    if unknown:
        known = ", ".join(sorted(declared)) or "none"
        raise error(
            f"{owner} has no parameter '{unknown[0]}'{did_you_mean(unknown[0], declared)} its parameters: {known}"
        )
    out: dict[str, Any] = {}
    later = []
    for key, param in declared.items():
        value = given[key] if key in given else param.plain_default()
        if _derives(param, value):
            later.append(key)
            out[key] = None
        else:
            out[key] = _checked(owner, key, param, value, error, spelling)
    context = dict(context or {})
    for key in later:
        param = declared[key]
        if any(name not in context for name in param.derive.needs):
            continue  # derived when the context is known (stays None until then)
        value = param.derive({**context, **out})
        out[key] = _checked(owner, key, param, value, error, spelling)
    return out


def _checked(owner: str, key: str, param: Param, value: Any, error: type[Exception], spelling: str) -> Any:
    if value is None and not param.accepts_none() and (param.kinds or param.required):
        raise error(f"{owner}: parameter '{key}' is required")
    try:
        return param.validate(value, spelling)
    except Invalid as exc:
        raise error(f"{owner}: parameter '{key}' {exc.phrase}, got {value!r}") from None


def check_value(func: str, name: str, param: Param, value: Any, error: type[Exception] = ValueError) -> Any:
    """One function argument checked against ``param`` (the queueing APIs): the value, or
    ``error("func: name must be ..., got value")``."""
    try:
        return param.validate(value, "words")
    except Invalid as exc:
        raise error(f"{func}: {name} {exc.phrase}, got {value!r}") from None


def check_applies(
    owner: str, declared: Mapping[str, Param], values: Mapping[str, Any], error: type[Exception] = ParameterError
) -> None:
    """Every declared parameter with an :class:`Applies` that is given a non-default value
    while its selector is elsewhere is an error:
    ``owner: parameter 'd' does not apply to policy 'jsq' (only 'jsq-d' samples d servers); got d=3``."""
    for key, param in declared.items():
        where = param.applies
        if where is None or key not in values:
            continue
        selected = values[where.by]
        if selected in where.values:
            continue
        value, default = values[key], param.plain_default()
        is_default = value is None if default is None else (value is not None and value == default)
        if not is_default:
            raise error(
                f"{owner}: parameter {key!r} does not apply to {where.by} {selected!r} ({where.why}); got {key}={value!r}"
            )
