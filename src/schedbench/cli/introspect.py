"""Plug-in descriptions, read from the registry only, through the classes' public attributes, so
that ``schedbench list``, ``schedbench describe`` and the generated tables of config/README.md
cannot go stale. Parameter objects are read by attribute name (default, doc, choices, kind,
minimum, ...), whatever class holds them."""

from __future__ import annotations

import re
import sys
from typing import Any

from schedbench.scheduling.registry import get, is_builtin, names

#: where each kind of plug-in is documented when its own docstrings do not say
DOCS = {
    "algorithm": "docs/models/rejection-model.md §7",
    "adversary": "docs/models/rejection-model.md §6",
    "family": "docs/models/rejection-model.md §11",
}


def declared_params(obj: Any) -> dict[str, Any]:
    """{name: parameter object} of an algorithm or adversary class or a family object: the first
    of ``params`` / ``parameters`` that holds parameter declarations (objects with a default),
    as a mapping or as a sequence of objects with a ``name``."""
    for attr in ("params", "parameters"):
        value = getattr(obj, attr, None)
        if isinstance(value, dict) and all(hasattr(p, "default") for p in value.values()):
            return dict(value)
        if isinstance(value, (list, tuple)) and value and all(hasattr(p, "name") for p in value):
            return {p.name: p for p in value}
    return {}


def _type_name(kind: Any) -> str:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    words = {bool: "bool", int: "int", float: "number", str: "string"}
    return "/".join(words.get(k, getattr(k, "__name__", str(k))) for k in kinds)


def _fmt(value: Any) -> str:
    return "none" if value is None else str(value)


def param_info(name: str, p: Any, none_means: str = "none") -> dict[str, str]:
    """One parameter as strings: name, type, range, default and doc. A default of None is shown
    as ``none`` (derived or not given, the doc says which) or ``required``: by the parameter's
    ``optional`` flag if it has one, else ``none_means`` unless its doc explains None."""
    choices = getattr(p, "choices", None)
    kind = getattr(p, "kind", None) or getattr(p, "type", None)
    default = getattr(p, "default", None)
    derived = next(
        (getattr(p, a) for a in ("derive", "derived", "default_from") if callable(getattr(p, a, None))), None
    )
    if kind is None:
        sample = default if default is not None else (choices[0] if choices else None)
        kind = type(sample) if isinstance(sample, (bool, int, float, str)) else None
    rng = []
    if choices:
        rng.append("one of " + ", ".join(_fmt(c) for c in choices))
    for attrs, op, opened in (
        (("minimum", "low", "min"), "≥", "min_open"),
        (("maximum", "high", "max"), "≤", "max_open"),
    ):
        bound = next((getattr(p, a) for a in attrs if getattr(p, a, None) is not None), None)
        if getattr(p, opened, False):
            op = {"≥": ">", "≤": "<"}[op]
        if bound is not None and not callable(bound):
            rng.append(f"{op} {bound:g}" if isinstance(bound, (int, float)) else f"{op} {bound}")
    if callable(default) or derived is not None:
        text = getattr(derived, "text", None)
        shown = f"derived: {text}" if text else "derived"
    elif default is None:
        optional = getattr(p, "optional", None)
        if optional is None:
            optional = none_means != "required" or "none:" in str(getattr(p, "doc", "")).lower()
        shown = "none" if optional else "required"
    else:
        shown = str(default)
    return {
        "name": name,
        "type": _type_name(kind) if kind is not None else "any",
        "range": "; ".join(rng) or "-",
        "default": shown,
        "doc": " ".join(str(getattr(p, "doc", "") or "").split()),
    }


def _drop_asides(text: str) -> str:
    """``text`` without its parenthesised and bracketed asides (citations, labels: `describe`
    shows them on their own lines). An aside opens after a space and closes before a space or a
    punctuation mark, so ``O(1)`` and ``(t − r)/S`` stay."""
    out, i = [], 0
    pairs = {"(": ")", "[": "]"}
    while i < len(text):
        ch = text[i]
        if ch in pairs and (i == 0 or text[i - 1] == " "):
            depth, j = 0, i
            while j < len(text):
                depth += (text[j] == ch) - (text[j] == pairs[ch])
                if depth == 0:
                    break
                j += 1
            if j < len(text) and (j + 1 == len(text) or text[j + 1] in " ,;:."):
                i = j + 1
                continue
        out.append(ch)
        i += 1
    return re.sub(r"\s+([,;:.])", r"\1", " ".join("".join(out).split()))


def _sentence(para: str) -> str:
    """The first sentence of one paragraph (the first '. ' outside parentheses), on one line."""
    para = _drop_asides(" ".join(para.split()).replace("``", ""))
    depth = 0
    for i, ch in enumerate(para):
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if ch == "." and depth <= 0 and (i + 1 == len(para) or para[i + 1] == " "):
            return para[: i + 1]
    return para


def _first_sentence(text: str | None, limit: int = 320, follow: bool = False) -> str:
    """The first sentence of a docstring, on one line without asides; with ``follow``, also the
    first sentence of the next paragraph (a plug-in module names the rule first, then states it)."""
    if not text:
        return ""
    paras = [p for p in text.strip().split("\n\n") if p.strip()]
    out = _sentence(paras[0])
    if follow and len(paras) > 1 and not paras[1].lstrip().startswith(("*", "-", "1.", "=")):
        out += " " + _sentence(paras[1])
    return out if len(out) <= limit else out[: limit - 1].rstrip() + "…"


def _own_doc(obj: Any) -> str | None:
    """The class's own docstring, else its module's (a plug-in module holds one class)."""
    doc = obj.__dict__.get("__doc__") if isinstance(obj, type) else None
    if doc:
        return doc
    mod = sys.modules.get(getattr(obj if isinstance(obj, type) else type(obj), "__module__", ""))
    return getattr(mod, "__doc__", None)


def _docs_link(*texts: str | None, kind: str) -> str:
    """The first docs/models section a plug-in's reference or docstring cites, else its kind's page."""
    for text in texts:
        if text:
            hit = re.search(r"(?:docs/models/)?([a-z-]+\.md)`{0,2} (§[0-9][0-9.–]*)", text)
            if hit:
                return f"docs/models/{hit.group(1)} {hit.group(2).rstrip('.')}"
    return DOCS[kind]


def plugin_info(kind: str, name: str) -> dict[str, Any]:
    """What `schedbench describe` shows of one registered algorithm, adversary or family."""
    if kind == "family":
        fam = get(kind, name)
        mod = sys.modules.get(getattr(getattr(fam, "generator", None), "__module__", ""), None)
        doc = getattr(fam, "doc", "") or getattr(mod, "__doc__", "")
        return {
            "name": name,
            "kind": kind,
            "rule": _first_sentence(doc),
            "problems": ["any"],
            "model": "instance family",
            "label": "-",
            "source": "-",
            "docs": DOCS[kind],
            "parameters": [param_info(k, p) for k, p in declared_params(fam).items()],
        }
    cls = get(kind, name)
    reference = str(getattr(cls, "reference", "") or "")
    doc = _own_doc(cls)
    if kind == "algorithm":
        problems = list(cls.solved_problems())
        model = cls.model + (" (migratory)" if getattr(cls, "migratory", False) else "")
        notes = [
            n
            for n, on in (
                ("assumes T*", getattr(cls, "needs_opt", False)),
                ("unit sizes only", getattr(cls, "unit_sizes_only", False)),
                ("may hold jobs", getattr(cls, "deferred_dispatch", False)),
                ("may reject late", getattr(cls, "late_reject", False)),
                ("compiled path", cls.has_compiled_path() if hasattr(cls, "has_compiled_path") else False),
            )
            if on
        ]
        model += "".join(f"; {n}" for n in notes)
    else:
        problems = [cls.problem]
        model = "adaptive adversary" + ("; unit sizes" if getattr(cls, "unit_sizes", False) else "")
    module_doc = getattr(sys.modules.get(cls.__module__), "__doc__", None)
    own = isinstance(cls, type) and bool(cls.__dict__.get("__doc__"))
    rule = _first_sentence(doc, follow=kind == "algorithm" and not own)
    return {
        "name": name,
        "kind": kind,
        "rule": rule,
        "problems": problems,
        "model": model,
        "label": getattr(cls, "rule_label", "-"),
        "source": reference or "-",
        "docs": _docs_link(reference, module_doc, kind=kind),
        "parameters": [
            param_info(k, p, "required" if kind == "adversary" else "none") for k, p in declared_params(cls).items()
        ],
    }


def builtin_names(kind: str) -> list[str]:
    """The names the package itself registers (the generated docs document these, never a
    user's out-of-tree plug-ins)."""
    return [n for n in names(kind) if is_builtin(kind, n)]


def compact_params(info: dict[str, Any]) -> str:
    return (
        ", ".join(
            p["name"] if p["default"] in ("required",) else f"{p['name']}={p['default']}" for p in info["parameters"]
        )
        or "-"
    )
