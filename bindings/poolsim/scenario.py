"""Scenarios: YAML text (from a file, a string or a dict) plus overrides, as the CLI's ``--set``.

A Scenario is immutable: ``set`` returns a changed copy. Nothing is validated until the scenario is
loaded (``points()``, ``run``, ``sweep``); errors then name the file, line and column of the original
text, or the override (``--set key=value``) that is wrong.
"""

from __future__ import annotations

import json
import math
import os
import re
from typing import Any, Iterable, Mapping, Sequence

import yaml  # python3-yaml

from . import _poolsim

__all__ = ["Scenario", "yaml_value"]

_PLAIN = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_./%+-]*\Z")


def yaml_value(value: Any) -> str:
    """The YAML text of an override value: numbers, booleans, strings ("186GiB"), None, lists, dicts."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):  # numpy scalars
        try:
            value = value.item()
        except (TypeError, ValueError):
            pass
        if isinstance(value, bool):
            return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"poolsim: {value!r} is not a value a scenario can hold")
        return repr(value)
    if isinstance(value, str):
        if _PLAIN.match(value) and value.lower() not in ("null", "true", "false", "yes", "no", "on", "off", "~"):
            return value
        return json.dumps(value)
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{json.dumps(str(k))}: {yaml_value(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple, range)) or (hasattr(value, "tolist") and not isinstance(value, (str, bytes))):
        items = value.tolist() if hasattr(value, "tolist") else list(value)
        return "[" + ", ".join(yaml_value(v) for v in items) + "]"
    raise TypeError(f"poolsim: cannot write a {type(value).__name__} into a scenario")


def _looks_like_path(source: str) -> bool:
    if "\n" in source:
        return False
    return os.path.isfile(source) or (source.endswith((".yaml", ".yml")) and ": " not in source)


class Scenario:
    """A scenario: YAML text, the name errors give it, and overrides.

    ``Scenario("scenarios/default.yaml")``, ``Scenario("name: x\\nworkload: ...")`` (YAML text),
    ``Scenario({"name": "x", ...})`` (a dict, quantities as strings: ``"47GiB"``), or another
    Scenario (a copy). ``set("workload.threads", 64)`` returns a changed copy.
    """

    __slots__ = ("text", "origin", "base_dir", "overrides")

    def __init__(self, source: Any = None, *, text: str | None = None, origin: str | None = None,
                 base_dir: str | None = None, overrides: Iterable[str] = ()):
        if isinstance(source, Scenario):
            text, origin = source.text, source.origin
            base_dir, overrides = source.base_dir, tuple(source.overrides) + tuple(overrides)
        elif isinstance(source, Mapping):
            text = yaml.dump(_plain(source), Dumper=_DictDumper, sort_keys=False, default_flow_style=False)
            origin = origin or "<dict>"
        elif isinstance(source, os.PathLike) or (isinstance(source, str) and _looks_like_path(source)):
            path = os.fspath(source)
            with open(path, encoding="utf-8") as f:
                text = f.read()
            origin = origin or path
            base_dir = base_dir or (os.path.dirname(path) or ".")
        elif isinstance(source, str):
            text = source
        elif source is not None:
            raise TypeError(f"poolsim.Scenario: expected a path, YAML text, a dict or a Scenario, got {type(source).__name__}")
        if text is None:
            raise TypeError("poolsim.Scenario: nothing to load (give a path, YAML text or a dict)")
        self.text = text
        self.origin = origin or "<string>"
        self.base_dir = os.path.abspath(base_dir or ".")
        self.overrides = tuple(overrides)

    # Construction helpers -------------------------------------------------------------------
    @classmethod
    def from_file(cls, path: str | os.PathLike) -> "Scenario":
        path = os.fspath(path)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        return cls(text=text, origin=path, base_dir=os.path.dirname(path) or ".")

    @classmethod
    def from_yaml(cls, text: str, origin: str = "<string>", base_dir: str = ".") -> "Scenario":
        return cls(text=text, origin=origin, base_dir=base_dir)

    @classmethod
    def from_dict(cls, doc: Mapping, origin: str = "<dict>") -> "Scenario":
        return cls(doc, origin=origin)

    # Changes ----------------------------------------------------------------------------------
    def set(self, key: str | Mapping[str, Any], value: Any = None) -> "Scenario":
        """A copy with ``key`` (a dotted path, e.g. "workload.threads") set to ``value``; or with every
        key of a dict set. Values are Python numbers, booleans, strings ("47GiB") or lists."""
        changes = key.items() if isinstance(key, Mapping) else [(key, value)]
        overrides = list(self.overrides)
        for k, v in changes:
            if not isinstance(k, str) or not k:
                raise TypeError("poolsim: keys are dotted paths such as 'workload.threads'")
            overrides.append(f"{k}={yaml_value(v)}")
        return self._with(overrides)

    def with_sweep(self, axes: Mapping[str, Sequence[Any]]) -> "Scenario":
        """A copy whose sweep also runs these axes (a key already swept gets these values)."""
        overrides = list(self.overrides)
        for k, values in axes.items():
            if isinstance(values, Mapping):
                # list() of a dict is its keys: the sweep would run the key names as values.
                raise TypeError(f"poolsim: the sweep of '{k}' is a mapping; give a list of values "
                                "(a list of mappings to sweep a section)")
            if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
                values = [values]
            values = list(values.tolist() if hasattr(values, "tolist") else values)
            if not values:
                raise ValueError(f"poolsim: the sweep of '{k}' has no values")
            overrides.append(f"sweep.{k}={yaml_value(values)}")
        return self._with(overrides)

    def pinned(self, params: Mapping[str, Any]) -> "Scenario":
        """A copy that is exactly the point with these params (every key fixed by a one-value sweep)."""
        return self.with_sweep({k: [v] for k, v in params.items()})

    def _with(self, overrides: Iterable[str]) -> "Scenario":
        return Scenario(text=self.text, origin=self.origin, base_dir=self.base_dir, overrides=overrides)

    # Reading --------------------------------------------------------------------------------------
    def spec(self) -> tuple:
        """(yaml_text, origin, base_dir, overrides): what the native layer takes."""
        return (self.text, self.origin, self.base_dir, list(self.overrides))

    def points(self) -> list[dict]:
        """Validates and expands the sweep: one dict per point with its ``params``, ``name`` and
        the validated ``document`` (defaults filled in). Raises poolsim.InputError."""
        return json.loads(_poolsim.load_scenarios(self.text, self.origin, list(self.overrides), self.base_dir))

    def validate(self) -> "Scenario":
        """Raises poolsim.InputError when the scenario (with its overrides) is wrong; returns self."""
        self.points()
        return self

    def to_dict(self) -> dict:
        """The document with the overrides applied (scalars as the YAML text has them, e.g. "47GiB")."""
        doc = yaml.load(self.text, Loader=yaml.BaseLoader) or {}
        if not isinstance(doc, dict):
            raise _poolsim.InputError(f"{self.origin}:1:1: a scenario must be a YAML mapping")
        set_paths = []
        for override in self.overrides:
            path, _, value = override.partition("=")
            value_doc = yaml.load(value, Loader=yaml.BaseLoader)
            if path.startswith("sweep."):
                doc.setdefault("sweep", {})
                if not isinstance(doc["sweep"], dict):
                    doc["sweep"] = {}
                doc["sweep"][path[len("sweep."):]] = value_doc
                continue
            # As the native loader does: a mapping given for a section sets the keys it names.
            for leaf, leaf_value in _leaf_settings(path, value_doc):
                set_paths.append(leaf)
                node = doc
                parts = leaf.split(".")
                for part in parts[:-1]:
                    if not isinstance(node.get(part), dict):
                        node[part] = {}
                    node = node[part]
                node[parts[-1]] = leaf_value
        # A key given by a set replaces the file's sweep of it (file < sweep < set).
        if isinstance(doc.get("sweep"), dict):
            for leaf in set_paths:
                doc["sweep"].pop(leaf, None)
            if not doc["sweep"]:
                del doc["sweep"]
        return doc

    def to_yaml(self) -> str:
        """YAML text of the scenario with its overrides applied (comments are not kept)."""
        return yaml.dump(self.to_dict(), Dumper=_TextDumper, sort_keys=False, default_flow_style=None, width=100)

    def save(self, path: str | os.PathLike) -> None:
        _write_whole(path, self.to_yaml())

    @property
    def name(self) -> str:
        return self.to_dict().get("name", "")

    def __repr__(self) -> str:
        extra = f", overrides={list(self.overrides)!r}" if self.overrides else ""
        return f"poolsim.Scenario({self.origin!r}{extra})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Scenario) and self.spec() == other.spec()

    def __hash__(self) -> int:
        return hash((self.text, self.origin, self.base_dir, self.overrides))

    def __getstate__(self):
        return self.spec()

    def __setstate__(self, state):
        self.text, self.origin, self.base_dir, overrides = state
        self.overrides = tuple(overrides)


def _write_whole(path: str | os.PathLike, text: str) -> None:
    """Writes ``text`` to ``path`` whole or not at all: the text is made before the file is touched,
    written beside it and renamed onto it. (Opened first, a scenario whose YAML could not be made
    emptied the file it was to replace.)"""
    path = os.fspath(path)
    if os.path.islink(path):  # the file the link names, as the CLI's --out (a rename would replace the link)
        path = os.path.realpath(path)
    tmp = path + ".tmp-poolsim"
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.remove(tmp)
        except OSError:
            pass
        raise


def _plain(value: Any) -> Any:
    """A dict of Python values as plain YAML-safe values (numpy scalars and tuples converted)."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):
        try:
            return value.item()
        except (TypeError, ValueError):
            return value
    return value


_SCHEMA: dict | None = None


def _is_section(path: str) -> bool:
    """Whether the dotted path names a section with named fields (a JSON Schema object with
    `properties`), into which a mapping merges; a dictionary or a value is replaced."""
    global _SCHEMA
    if _SCHEMA is None:
        _SCHEMA = json.loads(_poolsim.scenario_schema())
    node = _SCHEMA
    for part in path.split("."):
        props = node.get("properties")
        if not isinstance(props, dict) or part not in props:
            return False
        node = props[part]
    return isinstance(node.get("properties"), dict)


def _leaf_settings(path: str, value: Any) -> list:
    """(dotted path, value) pairs a setting makes: a mapping for a section, one per key it names."""
    if not isinstance(value, dict) or not _is_section(path):
        return [(path, value)]
    out = []
    for k, v in value.items():
        out.extend(_leaf_settings(f"{path}.{k}", v))
    return out


class _TextDumper(yaml.SafeDumper):
    """Writes strings as they were read (BaseLoader keeps every scalar as text): no quotes around
    "8" or "true", which poolsim reads by their text."""


_TextDumper.yaml_implicit_resolvers = {}


class _DictDumper(yaml.SafeDumper):
    """A dict's YAML with numbers given as text ("8", as to_dict() gives them) written as numbers: poolsim
    refuses a quoted number where a number belongs, and safe_dump would quote them to keep them text."""

    def represent_str(self, data):
        tag = self.resolve(yaml.ScalarNode, data, (True, False))
        if tag in ("tag:yaml.org,2002:int", "tag:yaml.org,2002:float"):
            return self.represent_scalar(tag, data)
        return super().represent_str(data)


_DictDumper.add_representer(str, _DictDumper.represent_str)
