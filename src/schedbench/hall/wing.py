"""What the hall knows of a wing: one :class:`Wing` description per wing, and the registry the
hall reads them from without importing any wing by name.

A wing is a model with its pipeline stage (docs/architecture.md). Its stage package exports one
object, ``WING`` (``schedbench.<wing>.stage.WING``), describing what the shared machinery needs
of it: its config section, its results tables as :class:`TableSpec`\\ s (what ``diff``,
``merge`` and ``archive`` compare), its paper macros, captions and section groups, its claims
and findings, its report tables, its config check and cost plan, its rules file and the files its rules make
for a config. The hall (the archive and diff, the paper's generated source), the faces
(``checks``), the workflow's scripts (``paper_generated``, ``claims_table``, ``report_tables``)
and the workflow itself (the Snakefile includes :func:`rule_files`; the targets, the paper's
sections, the claims inputs and the explorer's tables add the ``wing_*`` lists below) loop over
:func:`wings` instead of naming them.

Registering a wing is one line: its stage module in ``WINGS`` of ``src/schedbench/__init__.py``
(the package's list, read here by name when the wings are first asked for: the package does not
import this module, so a job that never reads the wings does not depend on it). The modules are
imported on first use (:func:`wings`), so importing the package imports no wing. More wings
(a test's toy wing) are added with :func:`register` or, for a ``with`` block, :func:`registered`.

**A wing outside the package** (docs/architecture.md, "Adding a wing"): a module file in a
researcher's own folder exporting ``WING``, named by the pipeline's ``wings:`` config key
(relative to the working directory). :func:`use_wings` loads and registers each file and adds it
to :data:`WINGS_ENV`, from which every process started from there (the pipeline's jobs) registers
the same files when it first asks for the wings; a relative :attr:`Wing.rules` of such a wing is
relative to its file's folder. The hall's commands that read a finished run (``diff``,
``archive``, ``merge``) register the wings its config names (:mod:`.run_config`).
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib
import importlib.util
import os
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

__all__ = [
    "READERS",
    "SiteView",
    "WINGS_ENV",
    "TableSpec",
    "Wing",
    "WingError",
    "experiment_files",
    "register",
    "registered",
    "rule_files",
    "section_hook",
    "section_schemas",
    "stage_fields",
    "use_wings",
    "wing_bench_keys",
    "wing_claims_inputs",
    "wing_figures",
    "wing_files",
    "wing_modules",
    "wing_named",
    "wing_paper_contents",
    "wing_pdf_inputs",
    "wing_report_tables",
    "wing_site_tables",
    "wing_site_views",
    "wing_targets",
    "wings",
]


@dataclass(frozen=True)
class TableSpec:
    """How to compare (and merge) one results table: its identity columns, its estimates with
    their CI columns, and the deterministic columns compared exactly (None: every other column)."""

    identity: tuple[str, ...]
    estimates: dict[str, tuple[str, str]] = field(default_factory=dict)
    exact: tuple[str, ...] | None = None
    schema: str | None = None


@dataclass(frozen=True)
class SiteView:
    """How the sweeps page shows one of a wing's tables: a section with its title, the table's
    ``columns`` (None: all; one the table lacks is left out) and a CSV download, and — when ``x`` and ``y`` are given — one plot
    per value of ``per`` with one line per setting: a setting is the values of the ``lines``
    columns, each a (column, label) pair printed ``label=value`` (the value alone for an empty
    label), a column constant within a plot left out of its names. ``lo``/``hi``: the interval
    of ``y`` drawn at each point. On a log axis a point with a non-positive coordinate is not
    drawn (a non-positive ``lo`` is drawn at ``y``)."""

    table: str
    title: str
    columns: tuple[str, ...] | None = None
    x: str | None = None
    y: str | None = None
    lo: str | None = None
    hi: str | None = None
    per: str = "experiment"
    lines: tuple[tuple[str, str], ...] = ()
    xlabel: str | None = None
    ylabel: str | None = None
    logx: bool = False
    logy: bool = False

    def __post_init__(self) -> None:
        if (self.x is None) != (self.y is None):
            raise WingError(f"view of {self.table}: a plot needs both x and y")
        if (self.lo is None) != (self.hi is None):
            raise WingError(f"view of {self.table}: an interval needs both lo and hi")

    def plotted(self) -> list[str]:
        """The columns its plots read (a table without one of them cannot be plotted)."""
        if self.x is None:
            return []
        return [c for c in (self.x, self.y, self.lo, self.hi, self.per, *(c for c, _ in self.lines)) if c is not None]


def _no_macros(config: dict) -> dict[str, str]:
    return {}


def _no_caption(stem: str, kind: str | None) -> str | None:
    return None


def _no_claims(tables: Mapping[str, Any], present: Sequence[str]) -> list[Any]:
    return []


def _no_findings(tables: Mapping[str, Any], frame: Any, params: Mapping[str, Any]) -> list[str]:
    return []


def _no_views(tables: Mapping[str, Any]) -> dict[str, tuple[Any, str]]:
    return {}


def _no_check(config: dict) -> None:
    return None


def _no_stages(config: dict) -> list[Any]:
    return []


def _no_files(config: dict) -> list[str]:
    return []


def _no_named_files(config: dict) -> dict[str, str]:
    return {}


def _no_contents(config: dict) -> dict[str, tuple[list[Any], list[str]]]:
    return {}


@dataclass(frozen=True)
class Wing:
    """One wing as the hall sees it.

    * ``name``: the wing's name (a word: its folder, its config section unless ``section`` says
      otherwise).
    * ``section``: its config section (None: its keys are at the config's top level).
    * ``schema``: the JSON schema of that section when the config schema
      (``workflow/schemas/config.schema.yaml``) does not hold it (None: it does), with its
      ``default:``\\ s — what ``check-config`` and ``plan`` check and fill a section by.
    * ``tables``: its results tables, ``results/<name>.parquet`` → the
      :class:`TableSpec` ``diff``/``merge``/``archive`` compare them by (identity,
      estimates with their CI columns, the columns compared exactly, schema). The runs table,
      whose comparison is its own (:mod:`.group_diff`), is not among them.
    * ``paper_macros``: the config → the macros the paper's text quotes (name → LaTeX), written
      after the hall's own in ``paper/macros_config.tex``, in the order of the registry.
    * ``figure_caption``: (figure stem, kind) → its caption, or None for a figure not its own.
    * ``table_captions``: table stem → its caption, for the tables the paper floats.
    * ``paper_groups``: the paper's section groups it writes (``paper/generated/<group>.tex``).
    * ``long_tables``: its tables that are ``longtable``\\ s (input as they are, never floated).
    * ``claims``: (the claims rule's results tables by name, the figure and table labels the
      paper holds) → its claims judged (:class:`~.claims.Claim`), in the claims table's order.
    * ``findings``: (those tables, the judged claims as a frame, the claims rule's params) → the
      LaTeX lines of its findings macros (``paper/macros_findings.tex``).
    * ``report_views``: the report rule's tables by input name → its HTML report tables by output
      name, each a (frame, title) pair.
    * ``check``: the whole config → None, raising ``ConfigError`` on a bad key of its part.
    * ``plan``: the whole config → its stages' cost estimates (:class:`~.plan.StageEstimate`).
    * ``plan_outputs``: the whole config → the cost estimates of the rules building its tables
      and figures (:func:`~.plan.output_stages`).
    * ``rules``: its Snakemake rules file, relative to the workflow's root (the Snakefile's
      folder), e.g. ``workflow/rules/<name>.smk``, which the Snakefile includes; None for a wing
      whose rules are the workflow's core files. A wing loaded from a file (:func:`use_wings`)
      gives it absolute or relative to that file's folder (its rules' ``script:`` paths are
      relative to the rules file, as Snakemake reads them).
    * ``targets``: the whole config → the files its rules make that the paper and the report are
      made of (results tables, figures, the paper's tables and macros): the targets of the
      pipeline's default rule; none for a config that runs none of its experiments.
    * ``report_tables``: the whole config → its HTML report tables (``results/report/*.html``).
    * ``claims_inputs``: the whole config → the results tables its :attr:`claims` are judged on,
      by the name the claims rule hands them under.
    * ``site_tables``: the whole config → the results tables the results explorer shows, by name.
    * ``site_views``: how the explorer's sweeps page shows those tables
      (:class:`SiteView`\\ s, in order; a table without a view is only in the downloads).
    * ``figures``: the whole config → every figure its rules draw (``paper/figures/*.pdf``, each
      with its PNG twin): those the paper's body does not show are the HTML report's.
    * ``paper_contents``: the whole config → what the PDF shows of it, by section group (one of
      the paper's groups: its own :attr:`paper_groups` or the appendix's ``tables``): the
      figures (a stem, or a (stem, kind) pair) and the tables (stems).
    * ``bench_keys``: the whole config → the keys its jobs' benchmark files are named by
      (``results/benchmarks/<rule>/<key>[-...].tsv``, e.g. its experiments), read by the paper's
      stage-time table.
    * ``pdf_inputs``: the whole config → the files besides its figures and tables that the
      PDF reads (e.g. a macros file its tables rule writes).
    """

    name: str
    section: str | None = None
    schema: Mapping[str, Any] | None = None
    tables: Mapping[str, TableSpec] = field(default_factory=dict)
    paper_macros: Callable[[dict], Mapping[str, str]] = _no_macros
    figure_caption: Callable[[str, str | None], str | None] = _no_caption
    table_captions: Mapping[str, str] = field(default_factory=dict)
    paper_groups: tuple[str, ...] = ()
    long_tables: tuple[str, ...] = ()
    claims: Callable[[Mapping[str, Any], Sequence[str]], list[Any]] = _no_claims
    findings: Callable[[Mapping[str, Any], Any, Mapping[str, Any]], list[str]] = _no_findings
    report_views: Callable[[Mapping[str, Any]], Mapping[str, tuple[Any, str]]] = _no_views
    check: Callable[[dict], None] = _no_check
    plan: Callable[[dict], list[Any]] = _no_stages
    plan_outputs: Callable[[dict], list[Any]] = _no_stages
    rules: str | None = None
    targets: Callable[[dict], list[str]] = _no_files
    report_tables: Callable[[dict], list[str]] = _no_files
    claims_inputs: Callable[[dict], Mapping[str, str]] = _no_named_files
    site_tables: Callable[[dict], Mapping[str, str]] = _no_named_files
    site_views: tuple[SiteView, ...] = ()
    figures: Callable[[dict], list[str]] = _no_files
    paper_contents: Callable[[dict], Mapping[str, tuple[list[Any], list[str]]]] = _no_contents
    bench_keys: Callable[[dict], list[str]] = _no_files
    pdf_inputs: Callable[[dict], list[str]] = _no_files

    def __post_init__(self) -> None:
        if not self.name.isidentifier():
            raise WingError(f"wing name {self.name!r}: one word (a folder and a config section)")
        if self.schema is not None and self.section is None:
            raise WingError(f"wing {self.name}: a section schema needs its section's name")
        bad = [t for t in self.tables if not (t.startswith("results/") and t.endswith(".parquet"))]
        if bad:
            raise WingError(f"wing {self.name}: tables are results/<name>.parquet, not {bad}")
        if self.rules is not None and not self.rules.endswith(".smk"):
            raise WingError(f"wing {self.name}: its rules are a Snakemake file (.smk), not {self.rules!r}")
        # read-only views: a frozen description whose tables cannot be edited in place either
        object.__setattr__(self, "tables", MappingProxyType(dict(self.tables)))
        object.__setattr__(self, "table_captions", MappingProxyType(dict(self.table_captions)))


def section_hook(section: str, hook: Callable[[dict | None], Any]) -> Callable[[dict], Any]:
    """A :class:`Wing` hook of the whole config (``check``, ``plan``, ``plan_outputs``) that hands
    ``hook`` the wing's own ``section`` of it (None when the config has none)."""
    return lambda config: hook(config.get(section))


def experiment_files(runs: Callable[[dict], Any], files: list[str] | dict[str, str]) -> Callable[[dict], Any]:
    """A :class:`Wing` hook of the whole config (``report_tables``, ``claims_inputs``,
    ``site_tables``, ``pdf_inputs``) giving (a copy of) ``files``, a list or paths by name, when
    ``runs(config)`` (the wing's own "experiments this config runs") is not empty, and none of
    them when it is."""
    return lambda config: type(files)(files) if runs(config) else type(files)()


def stage_fields(
    section: str,
    tables: Any,
    claims: Any,
    report: Any,
    check: Callable[[dict | None], None],
    plan: Callable[[dict | None], list[Any]],
    plan_outputs: Callable[[dict | None], list[Any]],
) -> dict[str, Any]:
    """The :class:`Wing` fields of a wing whose stage package has the usual modules, its config
    ``section``, paper section group and rules file (``workflow/rules/<section>.smk``) named
    after the section: its paper text from its ``tables`` module (``paper_macros``,
    ``figure_caption``, ``TABLE_CAPTIONS``), its claims and findings from its ``claims`` module
    (``judged_claims``, ``findings_lines``), its report tables from its ``report`` module
    (``report_views``), and its config ``check`` and cost ``plan`` and ``plan_outputs``, each
    handed its section (:func:`section_hook`)."""
    return {
        "section": section,
        "paper_macros": tables.paper_macros,
        "figure_caption": tables.figure_caption,
        "table_captions": tables.TABLE_CAPTIONS,
        "paper_groups": (section,),
        "claims": claims.judged_claims,
        "findings": claims.findings_lines,
        "report_views": report.report_views,
        "check": section_hook(section, check),
        "plan": section_hook(section, plan),
        "plan_outputs": section_hook(section, plan_outputs),
        "rules": f"workflow/rules/{section}.smk",
    }


class WingError(ValueError):
    """A wing that does not fit: the message names it."""


#: the names of this module that read the registered wings: a module importing one of them depends
#: on every registered wing's ``WING`` module (:mod:`.sources`)
READERS = (
    "wings",
    "wing_named",
    "section_schemas",
    "rule_files",
    "wing_targets",
    "wing_report_tables",
    "wing_claims_inputs",
    "wing_site_tables",
    "wing_site_views",
    "wing_figures",
    "wing_paper_contents",
    "wing_bench_keys",
    "wing_pdf_inputs",
)

#: the wings registered besides the package's own (``schedbench.WINGS``): stage modules or
#: :class:`Wing` objects handed directly, in order
_REGISTRY: list[str | Wing] = []

#: The environment variable listing the out-of-tree wing files (``os.pathsep``-separated, resolved
#: paths): :func:`use_wings` adds to it, so that the processes started from there (the pipeline's
#: jobs) register the same wings.
WINGS_ENV = "SCHEDBENCH_WINGS"

#: the wing files loaded so far: resolved path -> the module name it is imported under
_FILES: dict[str, str] = {}
#: module name of a wing file -> its WING, its relative rules file made relative to the file's folder
_FILE_WINGS: dict[str, Wing] = {}


def _env_files() -> list[str]:
    return [p for p in os.environ.get(WINGS_ENV, "").split(os.pathsep) if p.strip()]


def _entries() -> list[str | Wing]:
    """The package's wings (its ``WINGS``, read by name), then the wing files of
    :data:`WINGS_ENV`, then those registered here."""
    package = importlib.import_module(__name__.split(".")[0])
    out = list(getattr(package, "WINGS", ()))
    for entry in [_load_file(Path(p), WINGS_ENV) for p in _env_files()] + _REGISTRY:
        if entry not in out:
            out.append(entry)
    return out


def register(*entries: str | Wing) -> None:
    """Register wings besides the package's own: a module exporting ``WING`` (by name, imported
    on first use) or a :class:`Wing` itself. Registering one twice is a no-op."""
    for entry in entries:
        if not isinstance(entry, (str, Wing)):
            raise WingError(f"register: a module name or a Wing, not {entry!r}")
        if entry not in _REGISTRY:
            _REGISTRY.append(entry)


def _load_file(path: Path, source: str) -> str:
    """Import the wing module file ``path`` (once) and return its module name; ``source`` names
    where it was given, for the errors (a missing file, a file that does not import, no ``WING``)."""
    resolved = path.expanduser().resolve()
    if not resolved.exists():  # checked before the cache: a file gone since is gone
        raise WingError(f"{source}: {path}: no such file (a wing module file, .py)")
    if not resolved.is_file() or resolved.suffix != ".py":
        raise WingError(f"{source}: {path}: not a Python file (a wing module file, .py)")
    if str(resolved) in _FILES:
        return _FILES[str(resolved)]
    digest = hashlib.sha1(str(resolved).encode()).hexdigest()[:10]
    name = f"schedbench_wing_{resolved.stem}_{digest}"
    spec = importlib.util.spec_from_file_location(name, resolved)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except (Exception, SystemExit) as exc:  # sys.exit at import must not end the command
        del sys.modules[name]
        raise WingError(f"{source}: {path}: does not import: {type(exc).__name__}: {exc}") from exc
    wing = getattr(module, "WING", None)
    if not isinstance(wing, Wing):
        del sys.modules[name]
        got = "nothing" if wing is None else f"a {type(wing).__name__}"
        raise WingError(f"{source}: {path}: its WING must be a schedbench.hall.wing.Wing, it exports {got}")
    if wing.rules is not None and not Path(wing.rules).is_absolute():
        wing = dataclasses.replace(wing, rules=str(resolved.parent / wing.rules))
    _FILES[str(resolved)] = name
    _FILE_WINGS[name] = wing
    return name


def use_wings(
    paths: Sequence[str | os.PathLike] | None, source: str = "wings", base: str | os.PathLike = "."
) -> list[str]:
    """Register the wings of the module files ``paths`` (relative to ``base``; ``source`` names
    where they were given, for errors: the config's ``wings``) and add them to :data:`WINGS_ENV`,
    so that the processes started from here register them too. A file that is missing, does not
    import or exports no :class:`Wing`, or a wing whose name or table another wing has, is a
    :class:`WingError` naming the entry. Returns the files (resolved)."""
    if paths is None:
        return []
    if isinstance(paths, (str, os.PathLike)) or not isinstance(paths, Sequence):
        raise WingError(f"{source}: a list of wing module files (.py), got {paths!r}")
    files, names = [], []
    for i, p in enumerate(paths):
        if not isinstance(p, (str, os.PathLike)) or not str(p).strip():
            raise WingError(f"{source}[{i}]: the path of a wing module file (.py), got {p!r}")
        path = Path(p).expanduser()
        path = path if path.is_absolute() else Path(base) / path
        names.append(_load_file(path, f"{source}[{i}]"))
        files.append(str(path.resolve()))
    before = list(_REGISTRY)
    register(*names)
    try:
        wings()
    except WingError as exc:
        _REGISTRY[:] = before
        raise WingError(f"{source}: {exc}") from None
    known = _env_files()
    os.environ[WINGS_ENV] = os.pathsep.join(known + [f for f in dict.fromkeys(files) if f not in known])
    return files


def wing_modules() -> tuple[str, ...]:
    """The registered wings given by module name (a job's sources come from these)."""
    return tuple(e for e in _entries() if isinstance(e, str))


def wing_files() -> dict[str, str]:
    """The wing modules loaded from files (:func:`use_wings`) by module name: their files."""
    return {name: path for path, name in _FILES.items()}


def _load(entry: str | Wing) -> Wing:
    if isinstance(entry, Wing):
        return entry
    if entry in _FILE_WINGS:
        return _FILE_WINGS[entry]
    wing = getattr(importlib.import_module(entry), "WING", None)
    if not isinstance(wing, Wing):
        raise WingError(f"{entry}: exports no WING (a schedbench.hall.wing.Wing)")
    return wing


def wings() -> tuple[Wing, ...]:
    """The registered wings in registry order; two with one name or one table are an error."""
    found = tuple(_load(e) for e in _entries())
    names: set[str] = set()
    owners: dict[str, str] = {}
    for w in found:
        if w.name in names:
            raise WingError(f"two wings named {w.name!r}")
        names.add(w.name)
        for table in w.tables:
            if table in owners:
                raise WingError(f"{table}: claimed by the wings {owners[table]} and {w.name}")
            owners[table] = w.name
    return found


def wing_named(name: str) -> Wing:
    """The registered wing called ``name``."""
    found = {w.name: w for w in wings()}
    if name not in found:
        raise WingError(f"no registered wing {name!r} (registered: {', '.join(found)})")
    return found[name]


def section_schemas() -> dict[str, Mapping[str, Any]]:
    """The config sections the registered wings describe themselves (:attr:`Wing.schema`), by name."""
    return {w.section: w.schema for w in wings() if w.schema is not None and w.section is not None}


def rule_files() -> list[str]:
    """The registered wings' rules files (:attr:`Wing.rules`), in registry order: what the
    Snakefile includes besides its core files."""
    return [w.rules for w in wings() if w.rules is not None]


def wing_targets(config: dict) -> list[str]:
    """Every registered wing's targets for ``config`` (:attr:`Wing.targets`), in registry order."""
    return [path for w in wings() for path in w.targets(config)]


def wing_report_tables(config: dict) -> list[str]:
    """Every registered wing's HTML report tables for ``config``, in registry order."""
    return [path for w in wings() for path in w.report_tables(config)]


def wing_figures(config: dict) -> list[str]:
    """Every figure the registered wings draw for ``config``, in registry order."""
    return [path for w in wings() for path in w.figures(config)]


def wing_paper_contents(config: dict) -> list[tuple[str, list[Any], list[str]]]:
    """What the PDF shows of the registered wings for ``config``: (section group, figures,
    tables), wing by wing in registry order (the appendix lists their tables in that order)."""
    return [(group, list(f), list(t)) for w in wings() for group, (f, t) in w.paper_contents(config).items()]


def wing_bench_keys(config: dict) -> list[str]:
    """The benchmark file keys of the registered wings' jobs for ``config``, in registry order."""
    return [key for w in wings() for key in w.bench_keys(config)]


def wing_pdf_inputs(config: dict) -> list[str]:
    """The files besides figures and tables the PDF reads of the registered wings for ``config``."""
    return [path for w in wings() for path in w.pdf_inputs(config)]


def _named_files(config: dict, what: str) -> dict[str, str]:
    """The wings' ``what`` (name → path) for ``config`` in one mapping; a name two wings give is
    an error (one would hide the other)."""
    out: dict[str, str] = {}
    owners: dict[str, str] = {}
    for w in wings():
        for name, path in getattr(w, what)(config).items():
            if name in owners:
                raise WingError(f"{what} {name!r}: given by the wings {owners[name]} and {w.name}")
            owners[name] = w.name
            out[name] = path
    return out


def wing_claims_inputs(config: dict) -> dict[str, str]:
    """The results tables the registered wings' claims are judged on for ``config``, by name."""
    return _named_files(config, "claims_inputs")


def wing_site_views() -> list[SiteView]:
    """The registered wings' :attr:`Wing.site_views`, in registry order."""
    return [view for w in wings() for view in w.site_views]


def wing_site_tables(config: dict) -> dict[str, str]:
    """The results tables the explorer shows of the registered wings for ``config``, by name."""
    return _named_files(config, "site_tables")


@contextmanager
def registered(*entries: str | Wing) -> Iterator[tuple[Wing, ...]]:
    """Register ``entries`` for the duration of a ``with`` block (a test's own wing), then
    restore the registry (and :data:`WINGS_ENV`); yields every registered wing."""
    before, env = list(_REGISTRY), os.environ.get(WINGS_ENV)
    try:
        register(*entries)
        yield wings()
    finally:
        _REGISTRY[:] = before
        if env is None:
            os.environ.pop(WINGS_ENV, None)
        else:
            os.environ[WINGS_ENV] = env
