"""Checks of an experiment config that a JSON schema cannot express.

The Snakefile validates ``config`` against ``workflow/schemas/config.schema.yaml`` (unknown keys,
types) and then calls :func:`check_config` before any job runs: families and algorithms must be
registered, their parameters must exist and be in range, unit-size-only algorithms may not run
on sized families. Every error names the offending key path.
"""

from __future__ import annotations

import copy
import hashlib
import json
import math
import os
import stat
from collections.abc import Mapping
from pathlib import Path

import yaml

from schedbench.hall.grids import algorithm_grid, balanced_chunks, batches  # noqa: F401 (re-exported)

__all__ = [
    "ConfigError",
    "algorithm_grid",
    "config_hash",
    "batches",
    "balanced_chunks",
    "load_config",
    "load_config_strict",
    "read_config",
    "check_schema",
    "fill_defaults",
    "resolve_config",
    "schema_defaults",
    "CONFIG_SCHEMA",
]

#: The pipeline's config schema: the one place every config default is written (``default:``);
#: :func:`resolve_config` fills them into the config every rule, script and command reads.
CONFIG_SCHEMA = Path(__file__).resolve().parents[3] / "workflow" / "schemas" / "config.schema.yaml"


class ConfigError(ValueError):
    """The config is wrong; the message names the key."""


class _StrictLoader(yaml.SafeLoader):
    """YAML with duplicate keys refused (PyYAML silently keeps the last one)."""


def _mapping_without_duplicates(loader, node, deep=False):
    seen = {}
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)
        if key in seen:
            raise ConfigError(
                f"line {key_node.start_mark.line + 1}: key {key!r} given twice (first on line {seen[key]})"
            )
        seen[key] = key_node.start_mark.line + 1
    return loader.construct_mapping(node, deep=deep)


_StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping_without_duplicates)


#: A config file larger than this is refused before it is read (the default config is ~30 kB).
MAX_CONFIG_BYTES = 16 * 2**20


def load_config_strict(path: str) -> dict:
    """Read a config file as the pipeline will, but strictly: a YAML syntax error or a
    duplicate key is a :class:`ConfigError` naming the file and the line. Only a regular file of
    at most :data:`MAX_CONFIG_BYTES` is opened: a FIFO, a device (``/dev/zero``) or a huge file
    is refused before any read (it would block or fill memory)."""
    try:
        st = os.stat(path)
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read the config ({exc.strerror})") from None
    if not stat.S_ISREG(st.st_mode):
        kind = "a folder" if stat.S_ISDIR(st.st_mode) else "not a regular file (a FIFO, a device or a socket)"
        raise ConfigError(f"{path}: {kind}: a config is a YAML text file")
    if st.st_size > MAX_CONFIG_BYTES:
        raise ConfigError(f"{path}: {st.st_size} bytes, more than a config may hold ({MAX_CONFIG_BYTES} bytes)")
    try:
        with open(path, encoding="utf-8") as handle:
            data = yaml.load(handle, Loader=_StrictLoader)  # noqa: S506 (a SafeLoader subclass)
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read the config ({exc.strerror})") from None
    except UnicodeDecodeError as exc:  # a binary file, or text in another encoding
        raise ConfigError(
            f"{path}: not a UTF-8 text file (byte 0x{exc.object[exc.start]:02x} at offset {exc.start}): "
            "a config is YAML text"
        ) from None
    except ConfigError as exc:
        raise ConfigError(f"{path}: {exc}") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark is not None else ""
        raise ConfigError(f"{path}: {where}not valid YAML ({getattr(exc, 'problem', None) or exc})") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: the config must be a mapping of keys, got {type(data).__name__}")
    return data


def deep_merge(base: dict, over: dict) -> dict:
    """``over`` on top of ``base``: mappings merge key by key, any other value (a list, a number,
    null) replaces the base's."""
    out = dict(base)
    for key, value in over.items():
        out[key] = deep_merge(out[key], value) if isinstance(value, dict) and isinstance(out.get(key), dict) else value
    return out


def _resolved(path: str, seen: tuple[str, ...] = ()) -> tuple[dict, dict | None]:
    """The config file ``path`` (without its ``base`` key) and the config it builds on (its
    ``base:`` file over that file's own base, and so on; None without a base). Each file is read
    once."""
    data = load_config_strict(path)
    if "base" not in data:
        return data, None
    base = data.pop("base")
    if not isinstance(base, str) or not base:
        raise ConfigError(f"{path}: base: must be the path of another config file, got {base!r}")
    here = seen + (os.path.normpath(path),)
    base_path = os.path.normpath(os.path.join(os.path.dirname(path), base))
    if base_path in here:
        raise ConfigError(f"{path}: base: {base} makes a cycle of base configs")
    if not os.path.isfile(base_path):
        raise ConfigError(f"{path}: base: {base_path} is not a file (a base path is relative to the config file)")
    own, grand = _resolved(base_path, here)
    return data, own if grand is None else deep_merge(grand, own)


def apply_base(config: dict, paths: list[str]) -> dict:
    """The config a run uses: ``config`` (the given files as Snakemake read them, ``--config``
    overrides included) merged over the ``base:`` config one of the files names, if any (so
    ``config/large.yaml`` is the paper config with only its scale changed)."""
    chains = [(p, chain) for p in paths if (chain := _resolved(p)[1]) is not None]
    if len(chains) > 1:
        raise ConfigError(f"base: declared by {' and '.join(p for p, _ in chains)}; at most one config file may")
    own = {k: v for k, v in config.items() if k != "base"}
    return deep_merge(chains[0][1], own) if chains else own


def load_config_file(path: str) -> dict:
    """One config file as read, over its ``base:`` if any, *not* yet checked: the defaults are
    not filled (:func:`load_config` is the loader that does both)."""
    return apply_base(load_config_strict(path), [path])


def load_config(
    paths, schema_path: str | os.PathLike | None = None, sections: Mapping[str, Mapping] | None = None
) -> dict:
    """The config the pipeline runs with ``--configfile paths``: each file read strictly, merged
    in order, over the ``base:`` one of them names, checked against the schema and with every
    schema default filled in (:func:`resolve_config`). The Snakefile does the same to the config
    Snakemake read (``--config`` overrides included); ``schedbench check-config`` and ``plan``
    and the archive's run configs load through this. ``sections``: the sections of the wings
    the schema file does not hold (:func:`resolve_config`)."""
    return resolve_config(read_config(paths), schema_path, sections)


def read_config(paths) -> dict:
    """The config files ``paths`` read strictly and merged in order over the ``base:`` one of
    them names, *not* yet checked (what :func:`load_config` checks; its ``wings:`` name the
    wings whose sections the check needs)."""
    strs = [str(p) for p in paths]
    cfg: dict = {}
    for p in strs:
        cfg = deep_merge(cfg, load_config_strict(p))
    return apply_base(cfg, strs)


def resolve_config(
    config: dict, schema_path: str | os.PathLike | None = None, sections: Mapping[str, Mapping] | None = None
) -> dict:
    """``config`` (read, ``base:`` merged) checked against the schema (:data:`CONFIG_SCHEMA`
    unless given) with the schema's defaults filled in, nested sections and per-experiment
    entries included; changed in place and returned. Code that reads a config after this
    indexes the keys the schema defaults (``config["batch_size"]``): no default is restated.
    ``sections``: top-level sections the schema file does not hold, by name (a registered wing's
    :attr:`~schedbench.hall.wing.Wing.schema`)."""
    check_schema(config, str(schema_path or CONFIG_SCHEMA), sections)
    return config


def schema_defaults(schema_path: str | os.PathLike | None = None) -> dict[str, object]:
    """Every ``default:`` of the config schema by its key path (``<section>.points_per_job``;
    ``experiments.*.params`` for a default of every entry of a mapping)."""
    schema = yaml.safe_load(open(schema_path or CONFIG_SCHEMA))
    out: dict[str, object] = {}

    def walk(node, path):
        if not isinstance(node, dict):
            return
        if "default" in node and path:
            out[".".join(path)] = node["default"]
        for name, sub in (node.get("properties") or {}).items():
            walk(sub, path + (name,))
        if isinstance(node.get("additionalProperties"), dict):
            walk(node["additionalProperties"], path + ("*",))
        if isinstance(node.get("items"), dict):
            walk(node["items"], path + ("[]",))

    walk(schema, ())
    return out


def section_defaults(section: str, schema_path: str | os.PathLike | None = None) -> dict[str, object]:
    """The schema's defaults of a top-level ``section`` (a wing's, :attr:`.wing.Wing.section`): what the
    pipeline reads of a section a config leaves out (its rules are parsed all the same)."""
    prefix = section + "."
    return {
        k[len(prefix) :]: v
        for k, v in schema_defaults(schema_path).items()
        if k.startswith(prefix) and "." not in k[len(prefix) :]
    }


def check_schema(config: dict, schema_path: str, sections: Mapping[str, Mapping] | None = None) -> None:
    """The config against its JSON schema, with one line per error: the failing key path and
    the reason (the full schema and config stay out of the message). A NaN or infinite number
    anywhere is refused first (JSON Schema's ranges let NaN through). Defaults the schema gives
    are filled in, as Snakemake's ``validate`` does, so that what checks the config after this
    (the cross-field rules, the run planner) sees what the pipeline's jobs will see.
    ``sections``: more top-level sections' schemas (one the file holds already is an error)."""
    import jsonschema

    _check_finite(config, ())
    schema = _schema(schema_path, sections)
    validator = jsonschema.Draft202012Validator(schema)
    errors = sorted(validator.iter_errors(config), key=lambda e: list(e.absolute_path))
    if errors:
        err = jsonschema.exceptions.best_match(errors)
        where = ".".join(str(p) for p in err.absolute_path) or "(top level)"
        raise ConfigError(f"{where}: {err.message}")
    _with_defaults(jsonschema.Draft202012Validator)(schema).validate(config)


def _schema(schema_path: str | os.PathLike, sections: Mapping[str, Mapping] | None) -> dict:
    """The config schema read, with ``sections`` added as top-level properties."""
    schema = yaml.safe_load(open(schema_path))
    for name, section in (sections or {}).items():
        if name in schema["properties"]:
            raise ConfigError(f"{name}: a section the config schema {schema_path} holds already")
        schema["properties"][name] = copy.deepcopy(dict(section))
    return schema


def fill_defaults(
    config: dict, schema_path: str | os.PathLike | None = None, sections: Mapping[str, Mapping] | None = None
) -> dict:
    """The schema's defaults filled into ``config`` (changed in place and returned) wherever its
    shape lets them go, without checking it: what a check that names its own errors reads
    before :func:`check_schema` (a section that is not a mapping is left as it is)."""
    import jsonschema

    validator = _with_defaults(jsonschema.Draft202012Validator)(_schema(schema_path or CONFIG_SCHEMA, sections))
    for _ in validator.iter_errors(config):  # walking the config sets the defaults
        pass
    return config


def _check_finite(node, path: tuple) -> None:
    if isinstance(node, float) and not math.isfinite(node):
        where = ".".join(str(p) for p in path) or "(top level)"
        raise ConfigError(f"{where}: {node} is not a finite number")
    if isinstance(node, dict):
        for key, value in node.items():
            _check_finite(value, path + (key,))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            _check_finite(value, path + (i,))


def _with_defaults(validator_class):
    """A validator that also sets each missing property that has a ``default`` (the recipe of
    the jsonschema documentation; what Snakemake's ``validate(set_default=True)`` does)."""
    import jsonschema

    properties = validator_class.VALIDATORS["properties"]

    def set_defaults(validator, props, instance, schema):
        if isinstance(instance, dict):
            for name, sub in props.items():
                if isinstance(sub, dict) and "default" in sub:
                    instance.setdefault(name, copy.deepcopy(sub["default"]))
        yield from properties(validator, props, instance, schema)

    return jsonschema.validators.extend(validator_class, {"properties": set_defaults})


def config_hash(config: dict) -> str:
    """SHA-256 (first 16 hex digits) of the config in canonical JSON."""
    return hashlib.sha256(json.dumps(config, sort_keys=True, default=str).encode()).hexdigest()[:16]
