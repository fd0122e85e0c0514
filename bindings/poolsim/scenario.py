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
# Characters YAML reads as line breaks or a byte order mark even inside quotes: written as escapes.
_YAML_BREAKS = ("\u0085", "\u2028", "\u2029", "\ufeff")


def _at(key: str | None) -> str:
    """The key an error is about, as the library's errors name it."""
    return f"key '{key}': " if key else ""


def _quoted(text: str, key: str | None = None) -> str:
    """A double-quoted YAML scalar. Characters outside the BMP are written as themselves: JSON's
    escapes for them (surrogate pairs) are refused by yaml-cpp."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as e:  # a lone surrogate (a file name read with surrogateescape)
        raise ValueError(f"poolsim: {_at(key)}{text!r} is not UTF-8 text (character {e.start + 1})") from None
    if "\0" in text:  # the library's messages, C strings, would end at it
        raise ValueError(f"poolsim: {_at(key)}{text!r} holds a NUL character, which no scenario value can")
    quoted = json.dumps(text, ensure_ascii=False)
    for ch in _YAML_BREAKS:
        quoted = quoted.replace(ch, f"\\u{ord(ch):04x}")
    return quoted


def _is_missing(value: Any) -> bool:
    """pandas' NA and NaT: no value at all, which a scenario cannot hold."""
    kind = type(value)
    return kind.__module__.split(".")[0] == "pandas" and kind.__name__ in ("NAType", "NaTType")


def _unwrap(value: Any, key: str | None) -> Any:
    """A numpy or pandas value as a plain Python one: a scalar by .item(), an array or a Series (of
    any length, one included) by .tolist(), never silently a scalar."""
    if value is None or isinstance(value, (bool, int, float, str, bytes, Mapping, list, tuple, range)):
        return value
    if _is_missing(value):
        raise ValueError(f"poolsim: {_at(key)}{value!r} is a missing value, which a scenario cannot hold")
    ndim = getattr(value, "ndim", None)
    if ndim == 0 and hasattr(value, "item"):  # numpy scalars and 0-d arrays
        return value.item()
    if ndim is not None and ndim >= 1:
        if ndim == 1 and hasattr(value, "tolist"):
            return value.tolist()
        raise TypeError(f"poolsim: {_at(key)}a {ndim}-dimensional {type(value).__name__} is not a value a scenario can hold")
    return value


def yaml_value(value: Any, key: str | None = None) -> str:
    """The YAML text of an override value: numbers, booleans, strings ("186GiB"), None, lists, dicts.
    ``key`` (the setting's dotted path) is named in the error when the value cannot be written."""
    value = _unwrap(value, key)
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"poolsim: {_at(key)}{value!r} is not a value a scenario can hold (numbers are finite)")
        return repr(value)
    if isinstance(value, str):
        if _PLAIN.match(value) and value.lower() not in ("null", "true", "false", "yes", "no", "on", "off", "~"):
            return value
        return _quoted(value, key)
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{_quoted(str(k), key)}: {yaml_value(v, f'{key}.{k}' if key else str(k))}"
                               for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple, range)):
        return "[" + ", ".join(yaml_value(v, key) for v in value) + "]"
    raise TypeError(f"poolsim: {_at(key)}cannot write a {type(value).__name__} into a scenario")


def _fs(path: str | os.PathLike, argument: str = "path") -> bytes:
    """A path as the native layer takes it: its bytes, so that a name that is not UTF-8 reaches the
    library's check (which names it) instead of failing pybind's conversion. A NUL character is
    refused naming ``argument``: the operating system's calls end a name there, so the file read or
    written would be another one."""
    if isinstance(path, bool) or not isinstance(path, (str, bytes, os.PathLike)):
        raise TypeError(f"poolsim: {argument} must be a path (str, bytes or os.PathLike), got {type(path).__name__}")
    raw = os.fsencode(os.fspath(path))
    if not raw:
        raise ValueError(f"poolsim: {argument} is an empty path")
    if b"\0" in raw:
        raise ValueError(f"poolsim: {argument} {os.fsdecode(raw)!r} holds a NUL character, which no file name can")
    return raw


# The first characters of one line of YAML text that is not a path (a flow collection, a comment, a
# tag or anchor, a quoted or block scalar, a document marker).
_YAML_STARTS = tuple("{[#&*!|>'\"%@`-")


def _looks_like_path(source: str) -> bool:
    """Whether a string given as a scenario names a file. A scenario written as one line of YAML is a
    mapping ("key: value" or "{...}"); any other line is a path, also one that is mistyped, a
    directory, or ends in ".YAML" (they were read as YAML text: "a scenario must be a YAML mapping")."""
    if "\n" in source or "\r" in source:
        return False
    line = source.strip()
    if not line:
        return False
    if os.path.exists(source):
        return True
    if line.lower().endswith((".yaml", ".yml")) and ": " not in line:
        return True
    return not (line.startswith(_YAML_STARTS) or ": " in line or line.endswith(":"))


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
            text = yaml.dump(_plain(source, None), Dumper=_DictDumper, sort_keys=False, default_flow_style=False,
                             allow_unicode=True)
            origin = origin or "<dict>"
        elif isinstance(source, os.PathLike) or (isinstance(source, str) and _looks_like_path(source)):
            path = os.fspath(source)
            text = _read_scenario_file(path)
            origin = origin or path
            base_dir = base_dir or (os.path.dirname(path) or ".")
        elif isinstance(source, str):
            text = source
        elif source is not None:
            raise TypeError(f"poolsim.Scenario: expected a path, YAML text, a dict or a Scenario, got {type(source).__name__}")
        if text is None:
            raise TypeError("poolsim.Scenario: nothing to load (give a path, YAML text or a dict)")
        for argument, value in (("text", text), ("origin", origin)):
            if value is not None and not isinstance(value, str):
                raise TypeError(f"poolsim.Scenario: {argument} must be a str, got {type(value).__name__}")
        if base_dir is not None and not isinstance(base_dir, (str, os.PathLike)):
            raise TypeError(f"poolsim.Scenario: base_dir must be a path, got {type(base_dir).__name__}")
        self.text = text
        self.origin = origin or "<string>"
        self.base_dir = os.path.abspath(base_dir or ".")
        self.overrides = tuple(overrides)

    # Construction helpers -------------------------------------------------------------------
    @classmethod
    def from_file(cls, path: str | os.PathLike) -> "Scenario":
        path = os.fspath(path)
        return cls(text=_read_scenario_file(path), origin=path, base_dir=os.path.dirname(path) or ".")

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
            overrides.append(f"{k}={yaml_value(v, k)}")
        return self._with(overrides)

    def with_sweep(self, axes: Mapping[str, Sequence[Any]]) -> "Scenario":
        """A copy whose sweep also runs these axes, after the scenario's own (the last varies fastest);
        a key already swept gets these values and takes its place among these axes."""
        if not isinstance(axes, Mapping):
            raise TypeError(f"poolsim: the axes of a sweep are a mapping of keys to lists of values "
                            f"({{'workload.threads': [8, 16]}}), got {type(axes).__name__}")
        overrides = list(self.overrides)
        for k, values in axes.items():
            if not isinstance(k, str) or not k:
                raise TypeError("poolsim: sweep keys are dotted paths such as 'workload.threads'")
            if isinstance(values, Mapping):
                # list() of a dict is its keys: the sweep would run the key names as values.
                raise TypeError(f"poolsim: the sweep of '{k}' is a mapping; give a list of values" + _SECTION_HINT)
            values = _unwrap(values, k)
            if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
                values = [values]
            values = [_unwrap(v, k) for v in values]
            if not values:
                raise ValueError(f"poolsim: the sweep of '{k}' has no values")
            for v in values:
                if isinstance(v, (Mapping, list, tuple, range)):
                    raise TypeError(f"poolsim: the sweep of '{k}' has a {'mapping' if isinstance(v, Mapping) else 'list'} "
                                    f"among its values ({v!r}); a sweep's values are single values" + _SECTION_HINT)
            # Given again, the axis moves to the end (as the loader does; one override per axis).
            overrides = [o for o in overrides if o.partition("=")[0] != f"sweep.{k}"]
            overrides.append(f"sweep.{k}={yaml_value(values, k)}")
        return self._with(overrides)

    def pinned(self, params: Mapping[str, Any]) -> "Scenario":
        """A copy that is exactly the point with these params: each single value fixed by a one-value
        sweep, a list, mapping or null (which only a set gives: a sweep's values are single values)
        set as it is."""
        if not isinstance(params, Mapping):
            raise TypeError(f"poolsim: pinned takes a point's params (a mapping), got {type(params).__name__}")
        single = {k: [v] for k, v in params.items() if not _not_single(v)}
        others = {k: v for k, v in params.items() if _not_single(v)}
        pinned = self.with_sweep(single) if single else self
        return pinned.set(others) if others else pinned

    def _with(self, overrides: Iterable[str]) -> "Scenario":
        return Scenario(text=self.text, origin=self.origin, base_dir=self.base_dir, overrides=overrides)

    # Reading --------------------------------------------------------------------------------------
    def spec(self) -> tuple:
        """(yaml_text, origin, base_dir, overrides): what the native layer takes (its loader runs a
        "sweep.K=" override's axis after the file's, so with_sweep()'s order holds)."""
        return (self.text, self.origin, self.base_dir, list(self.overrides))

    def points(self) -> list[dict]:
        """Validates and expands the sweep: one dict per point with its ``params``, ``name`` and
        the validated ``document`` (defaults filled in). Raises poolsim.InputError."""
        text, origin, base_dir, overrides = self.spec()
        return json.loads(_poolsim.load_scenarios(text, origin, overrides, base_dir))

    def validate(self) -> "Scenario":
        """Raises poolsim.InputError when the scenario (with its overrides) is wrong; returns self."""
        self.points()
        return self

    def to_dict(self) -> dict:
        """The document with the overrides applied (scalars as the YAML text has them, e.g. "47GiB").
        The scenario is validated first (poolsim.InputError): an override the loader refuses (a list
        index in a key, an unknown key) would otherwise be written into the document, replacing what
        was there."""
        self.points()
        try:
            doc = _text_document(self.text)
        except yaml.YAMLError as e:  # what the native loader took but PyYAML does not
            mark = getattr(e, "problem_mark", None)
            where = f"{self.origin}:{mark.line + 1}:{mark.column + 1}" if mark else self.origin
            raise _poolsim.InputError(f"{where}: YAML syntax error: {getattr(e, 'problem', None) or e}") from None
        if not isinstance(doc, dict):
            raise _poolsim.InputError(f"{self.origin}:1:1: a scenario must be a YAML mapping")
        set_paths = []
        for override in self.overrides:
            path, _, value = override.partition("=")
            value_doc = _text_document(value)
            if path.startswith("sweep."):
                doc.setdefault("sweep", {})
                if not isinstance(doc["sweep"], dict):
                    doc["sweep"] = {}
                # At the end, where the loader runs it.
                doc["sweep"].pop(path[len("sweep."):], None)
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
        # ...and what a variant gives for it: the loader applies a set after the variant, so a
        # variant's value would otherwise override the set written into the file's section.
        if isinstance(doc.get("variants"), dict):
            for settings in doc["variants"].values():
                if isinstance(settings, dict):
                    for leaf in set_paths:
                        _drop_setting(settings, leaf)
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
    """Writes ``text`` to ``path`` as the CLI's --out writes (sim/output.h): whole or not at all (the
    text made before the file is touched, written beside it and renamed onto it; through a symbolic
    link, the file it names); a device or a FIFO (/dev/null, a pipe) written directly, never replaced
    by a regular file. OSError when the write fails."""
    _poolsim.write_outputs([(_fs(path, "path"), text)])


def _read_scenario_file(path: str) -> str:
    """A scenario file's text; poolsim.InputError naming the file (and the line and byte) when it is
    not there, a directory, or not UTF-8 (latin-1, UTF-16), as the CLI reads it."""
    return _poolsim.read_scenario_file(_fs(path, "source"))


_SECTION_HINT = (" (to vary several keys, or a list, together: name each combination under the scenario's "
                 "`variants:` and sweep `variant`)")


def _not_single(value: Any) -> bool:
    """A params value no sweep can hold: a list, a mapping or null (they come from set())."""
    return value is None or isinstance(value, (Mapping, list, tuple))


def _plain(value: Any, key: str | None) -> Any:
    """A dict of Python values as plain YAML-safe values: numpy and pandas scalars by .item(), arrays
    and Series by .tolist(), tuples as lists. A value no scenario can hold (NaN, infinity, pandas' NA,
    a table) is refused naming its key."""
    value = _unwrap(value, key)
    if isinstance(value, Mapping):
        return {str(k): _plain(v, f"{key}.{k}" if key else str(k)) for k, v in value.items()}
    if isinstance(value, (list, tuple, range)):
        return [_plain(v, key) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"poolsim: {_at(key)}{value!r} is not a value a scenario can hold (numbers are finite)")
    if isinstance(value, str):
        _quoted(value, key)  # refuses text that is not UTF-8
    elif not (value is None or isinstance(value, (bool, int, float))):
        raise TypeError(f"poolsim: {_at(key)}cannot write a {type(value).__name__} into a scenario")
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


class _Quoted(str):
    """A scalar the YAML text quoted ("null", "8", "yes" as text): written quoted again."""


def _text_document(text: str) -> Any:
    """YAML text as Python values with every scalar kept as its text (as PyYAML's BaseLoader reads
    it), except that a quoted scalar is a _Quoted and an empty plain one (``sweep:``) is None: so
    written back, "null" stays text and an empty value stays empty."""
    def value(node):
        if isinstance(node, yaml.MappingNode):
            return {value(k): value(v) for k, v in node.value}
        if isinstance(node, yaml.SequenceNode):
            return [value(v) for v in node.value]
        if node.style in ("'", '"'):
            return _Quoted(node.value)
        return None if node.value == "" and node.style is None else node.value
    root = yaml.compose(text, Loader=yaml.BaseLoader)
    return {} if root is None else value(root)


def _drop_setting(settings: dict, leaf: str) -> None:
    """Removes what a variant's settings (dotted keys, or sections as mappings) give for ``leaf``."""
    for key in list(settings):
        if not isinstance(key, str):
            continue
        if key == leaf or key.startswith(leaf + "."):
            del settings[key]
        elif leaf.startswith(key + ".") and isinstance(settings[key], dict):
            _drop_setting(settings[key], leaf[len(key) + 1:])


class _TextDumper(yaml.SafeDumper):
    """Writes strings as they were read (every scalar kept as text): no quotes around "8" or
    "true", which poolsim reads by their text; quoted ones quoted, an empty value as null."""

    def represent_quoted(self, data):
        return self.represent_scalar("tag:yaml.org,2002:str", str(data), style='"')

    def represent_empty(self, _data):
        return self.represent_scalar("tag:yaml.org,2002:str", "null")


_TextDumper.yaml_implicit_resolvers = {}
_TextDumper.add_representer(_Quoted, _TextDumper.represent_quoted)
_TextDumper.add_representer(type(None), _TextDumper.represent_empty)


class _DictDumper(yaml.SafeDumper):
    """A dict's YAML with numbers given as text ("8", as to_dict() gives them) written as numbers: poolsim
    refuses a quoted number where a number belongs, and safe_dump would quote them to keep them text."""

    def represent_str(self, data):
        tag = self.resolve(yaml.ScalarNode, data, (True, False))
        if tag in ("tag:yaml.org,2002:int", "tag:yaml.org,2002:float"):
            return self.represent_scalar(tag, data)
        return super().represent_str(data)


_DictDumper.add_representer(str, _DictDumper.represent_str)
