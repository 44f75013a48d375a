"""Stage 2: check a ruleset document against ``schemas/ruleset.schema.json`` (Draft 2020-12).

Every schema error is mapped back to the YAML node it concerns, so it prints as
``file:line:col: message``; errors are ordered most relevant first (jsonschema's ``relevance``).
"""

from __future__ import annotations

import heapq
import json
from functools import lru_cache
from pathlib import Path

from jsonschema import Draft202012Validator
from jsonschema.exceptions import relevance

from .errors import SchemaError
from .load import Document

__all__ = ["validate", "schema_path", "validator"]


def _data_dir(name: str) -> Path:
    """A data folder shipped with the package (installed copy) or beside it (checkout)."""
    here = Path(__file__).resolve().parent
    for cand in (here / name, here.parent / name):
        if cand.is_dir():
            return cand
    return here.parent / name


def schema_path() -> Path:
    """The path of ``ruleset.schema.json``."""
    return _data_dir("schemas") / "ruleset.schema.json"


@lru_cache(maxsize=1)
def validator() -> Draft202012Validator:
    """The one validator, built once and reused."""
    schema = json.loads(schema_path().read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def validate(doc: Document) -> list[SchemaError]:
    """Every schema problem in ``doc``, most relevant first, each with file:line:column."""
    errors = sorted(validator().iter_errors(doc.data), key=relevance, reverse=True)
    out: list[SchemaError] = []
    seen: set[str] = set()
    for err in errors:
        # Descend into `anyOf`/`oneOf` to the deepest cause, as jsonschema's best_match does.
        while err.context:
            smallest = heapq.nsmallest(2, err.context, key=relevance)
            if len(smallest) == 2 and relevance(smallest[0]) == relevance(smallest[1]):
                break
            err = smallest[0]
        path = tuple(err.absolute_path)
        where = "/".join(str(p) for p in path) or "the ruleset"
        message = f"{err.message} (at {where})"
        if message in seen:
            continue
        seen.add(message)
        out.append(SchemaError(message, doc.mark(path)))
    return out
