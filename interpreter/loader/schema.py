"""Stage 2: check a ruleset document against ``schemas/ruleset.schema.json`` (Draft 2020-12).

Every schema error is mapped back to the YAML node it concerns, so it prints as
``file:line:col: message``; errors are ordered most relevant first (jsonschema's ``relevance``).
"""

from __future__ import annotations

import hashlib
import heapq
import json
import os
import re
from collections import deque
from functools import lru_cache
from pathlib import Path

from ..errors import SchemaError
from .load import Document

__all__ = ["validate", "schema_path", "validator", "check_document"]


def _data_dir(name: str) -> Path:
    """A data folder shipped with the package (installed copy) or beside it (checkout)."""
    package = Path(__file__).resolve().parents[1]  # interpreter/
    for cand in (package / name, package.parent / name):
        if cand.is_dir():
            return cand
    return package.parent / name


def schema_path() -> Path:
    """The path of ``ruleset.schema.json``."""
    return _data_dir("schemas") / "ruleset.schema.json"


@lru_cache(maxsize=1)
def validator():
    """The one ``Draft202012Validator``, built once and reused (jsonschema is imported here, on
    first use: a ruleset already known to be valid never needs it).  The schema itself is
    checked against the meta-schema by the test suite, not on every run."""
    from jsonschema import Draft202012Validator

    return Draft202012Validator(json.loads(_schema_text()))


@lru_cache(maxsize=1)
def _schema_text() -> str:
    return schema_path().read_text(encoding="utf-8")


def _digest(data, piece: str | None = None) -> str | None:
    """A digest of the schema and the document (or of one top-level ``piece`` of a document,
    ``data`` its value: a digest no whole document can have), or None when the data is not
    plain JSON (such a document is always validated)."""
    try:
        text = json.dumps(data, sort_keys=True, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError, RecursionError):
        return None
    h = hashlib.sha256(_schema_text().encode("utf-8"))
    h.update(b"\0" if piece is None else b"\1piece\1" + json.dumps(piece).encode("utf-8") + b"\1")
    h.update(text.encode("utf-8", "surrogatepass"))
    return h.hexdigest()


#: The keywords the schema's top level may use for a document to be checked piece by piece: with
#: only these, a document is valid exactly when its keys are allowed and required ones present,
#: and each top-level value is valid against its property's schema.
_PIECEWISE_KEYWORDS = frozenset({"$schema", "$id", "$comment", "$defs", "title", "description", "type", "required",
                                 "properties", "additionalProperties"})


@lru_cache(maxsize=1)
def _piecewise_schema() -> dict | None:
    """The schema when its top level can be checked piece by piece (see
    :data:`_PIECEWISE_KEYWORDS`), else None."""
    root = json.loads(_schema_text())
    if set(root) - _PIECEWISE_KEYWORDS or root.get("type") != "object" or root.get("additionalProperties") is not False:
        return None
    return root


@lru_cache(maxsize=64)
def _piece_validator(key: str):
    """A validator of ``{key: value}`` alone: the whole schema (every ``$defs`` entry and
    ``$ref`` as they are) with only ``key``'s property and nothing required."""
    from jsonschema import Draft202012Validator

    root = dict(_piecewise_schema())
    root["required"] = []
    root["properties"] = {key: root["properties"][key]}
    return Draft202012Validator(root)


def _valid_by_pieces(data) -> bool:
    """True when ``data`` is valid against the schema, checked one top-level value at a time,
    each value found valid remembered by its digest (:func:`_remember_valid`): a variant, which
    changes a few keys of its ruleset, costs the validation of those keys only.  False when it
    is not valid, or cannot be checked this way (then :func:`validate` checks it whole, for the
    errors)."""
    root = _piecewise_schema()
    if root is None or not isinstance(data, dict):
        return False
    props = root["properties"]
    if not set(root.get("required", ())) <= data.keys() or any(k not in props for k in data):
        return False
    for k, v in data.items():
        key = _digest(v, piece=k)
        if key is None:
            return False
        if _known_valid(key):
            continue
        if not _piece_validator(k).is_valid({k: v}):
            return False
        _remember_valid(key)
    return True


_VALID: set[str] = set()


def _cache_dir() -> Path | None:
    """Where digests of documents found valid are remembered across runs:
    ``$TAPSTER_CACHE_DIR``, else ``~/.cache/tapster/valid``; ``TAPSTER_CACHE_DIR=`` (empty)
    switches the cache off."""
    base = os.environ.get("TAPSTER_CACHE_DIR")
    if base == "":
        return None
    root = Path(base) if base else Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "tapster"
    return root / "valid"


def _known_valid(key: str) -> bool:
    if key in _VALID:
        return True
    d = _cache_dir()
    if d is not None and (d / key).is_file():
        _VALID.add(key)
        return True
    return False


def _remember_valid(key: str) -> None:
    _VALID.add(key)
    d = _cache_dir()
    if d is None:
        return
    try:
        d.mkdir(parents=True, exist_ok=True)
        (d / key).touch()
    except OSError:
        pass  # a read-only home: the next run validates again


def validate(doc: Document) -> list[SchemaError]:
    """Every schema problem in ``doc``, most relevant first, each with file:line:column.

    A document found valid is remembered by a digest of its data and of the schema (in memory
    and in a cache folder, see :func:`_cache_dir`): validating the same text again, a variant
    that changes nothing the schema checks, or the next run, costs a hash, not a validation
    (jsonschema takes about 0.3 s for a large ruleset).  A document not seen before is checked
    one top-level value at a time, each remembered the same way (:func:`_valid_by_pieces`), so
    a ruleset's variants, which share most of its values, cost the values they change; only a
    document that is not valid is checked whole, for its errors."""
    key = _digest(doc.data)
    if key is not None and _known_valid(key):
        return []
    if key is not None and _valid_by_pieces(doc.data):
        _remember_valid(key)
        return []
    errors = sorted(validator().iter_errors(doc.data), key=_relevance, reverse=True)
    out: list[SchemaError] = []
    seen: set[str] = set()
    for err in errors:
        # Descend into `anyOf`/`oneOf` to the deepest cause, as jsonschema's best_match does.
        while err.context:
            smallest = heapq.nsmallest(2, err.context, key=_relevance)
            if len(smallest) == 2 and _relevance(smallest[0]) == _relevance(smallest[1]):
                break
            err = smallest[0]
        path = _key_path(err, doc.data)
        shown = repr(err.instance)
        if len(shown) > 80 and shown in err.message:  # `{...3000 entries...} has too many properties`
            err.message = err.message.replace(shown, shown[:60] + "...")
        # a key that is not a plain word (`"\r"`, `"a b"`) shows quoted, so a message stays one line
        where = "/".join(p if isinstance(p, str) and p.isidentifier() else repr(p) if isinstance(p, str) else str(p)
                         for p in path) or "the ruleset"
        message = f"{err.message} (at {where})" + _unquoted_hint(err, path) + _required_hint(err)
        if message in seen:
            continue
        seen.add(message)
        out.append(SchemaError(message, doc.mark(path)))
    if not out and key is not None:
        _remember_valid(key)
    return out


def _relevance(err) -> tuple:
    """jsonschema's ``relevance`` key with the error's path made comparable: YAML allows keys
    that are not text (``1:``), and comparing the path ``(zones, 1)`` with ``(zones, deck)``
    would raise a TypeError."""
    from jsonschema.exceptions import relevance

    return tuple(_comparable(part) if isinstance(part, deque) else part for part in relevance(err))


def _comparable(path) -> tuple:
    return tuple((0, p, "") if isinstance(p, (int, float)) else (1, 0, str(p)) for p in path)


def _unquoted_hint(err, path: tuple) -> str:
    """A hint for an unexpected key holding a space or an operator (`'or none' was unexpected`):
    what usually makes one is an unquoted comma inside a flow mapping `{if: a, or b}`, which
    splits the expression into a second key."""
    if err.validator != "additionalProperties" or not path or not isinstance(path[-1], str):
        return ""
    key = path[-1]
    if " " in key.strip() or any(op in key for op in ("==", "!=", "<", ">", "(", ")", "[", "+", "*")):
        return ("; a comma (or colon) inside a flow mapping `{...}` ends the value there: "
                "quote this expression (`{if: \"a, or b\"}`) or write the mapping in block style")
    return ""


def _required_hint(err) -> str:
    """For a key a condition requires (an ``if``/``then`` of the schema: ``visibility: owner``
    needs ``per_player``): the ``then`` branch's own description of that key, which says why
    and what to write."""
    path = list(err.absolute_schema_path)
    if err.validator != "required" or path[-2:] != ["then", "required"] or not isinstance(err.schema, dict):
        return ""
    missing = re.match(r"'([^']+)' is a required property", err.message)
    prop = (err.schema.get("properties") or {}).get(missing.group(1)) if missing else None
    text = prop.get("description") if isinstance(prop, dict) else None
    return f"; {text}" if text else ""


def _key_path(err, data) -> tuple:
    """The path of the node ``err`` concerns.  jsonschema reports an unexpected key
    (``additionalProperties``) or a badly named one (``propertyNames``) at the mapping that holds
    it; the author needs the key's own line."""
    path = tuple(err.absolute_path)
    if err.validator == "additionalProperties" and isinstance(err.instance, dict):
        known = err.schema.get("properties", {})
        patterns = err.schema.get("patternProperties", {})
        extra = [
            k for k in err.instance
            if k not in known and not (isinstance(k, str) and any(re.search(p, k) for p in patterns))
        ]
        return path + (extra[0],) if extra else path
    if "propertyNames" in err.absolute_schema_path:
        node = data
        try:
            for k in path:
                node = node[k]
        except (KeyError, IndexError, TypeError):
            return path
        if isinstance(node, dict) and err.instance in node:
            return path + (err.instance,)
    return path


@lru_cache(maxsize=4)
def _document_validator(name: str):
    from jsonschema import Draft202012Validator

    return Draft202012Validator(json.loads((_data_dir("schemas") / name).read_text(encoding="utf-8")))


def check_document(data, name: str) -> str | None:
    """The first problem of the JSON document ``data`` against the published schema ``name``
    (``state.schema.json``, ``log.schema.json``), as ``message (at path)``, or None."""
    try:
        errors = sorted(_document_validator(name).iter_errors(data), key=_relevance, reverse=True)
    except RecursionError:
        return "the document is nested too deeply"
    if not errors:
        return None
    err = errors[0]
    while err.context:
        err = min(err.context, key=_relevance)
    where = "/".join(str(p) for p in err.absolute_path) or "the document"
    message = err.message if len(err.message) <= 300 else err.message[:300] + "..."
    return f"{message} (at {where})"
