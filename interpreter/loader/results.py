"""Results remembered by content: a command's plain-text result (``tapster validate``'s lines)
kept on disk under a key made of everything that decides it, and reused only while every file
it read is byte for byte the same.

The key is a SHA-256 of: the engine's own source (every file of the ``interpreter`` package,
the grammar and the schemas, and the Python and library versions that read them,
:func:`source_version`), and the caller's inputs (the command, its arguments, the resolved
ruleset path).  The entry records every file the loader read or tried to read while the result
was computed (``load.recording``: the ruleset, its tables), each with a SHA-256 of its bytes
(None for a file that was missing); a lookup re-hashes those files and misses on any change.

Safe: an entry is JSON holding only strings; nothing loaded from it is executed, and a damaged
or unexpected entry is a miss.  The folder is the user's own cache (``$TAPSTER_CACHE_DIR``,
``TAPSTER_CACHE_DIR=`` switches it off), as for the schema's and the parser's caches.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path
from typing import Any

from .load import MAX_BYTES, recording
from .schema import _cache_dir

__all__ = ["source_version", "recording", "lookup", "store"]

#: The most bytes of one cache entry that are read back (a larger one is a miss).
MAX_ENTRY_BYTES = 16 * 1024 * 1024

_VERSION: str | None = None


def source_version() -> str:
    """A SHA-256 (hex) of the engine's own source: every ``.py``, ``.lark`` and ``.json`` file of
    the ``interpreter`` package and of the schemas, with their paths, and the versions of
    Python, PyYAML, jsonschema, Lark and networkx.  Computed once a process (about 1 MB)."""
    global _VERSION
    if _VERSION is not None:
        return _VERSION
    from importlib import metadata

    from .schema import _data_dir

    h = hashlib.sha256(sys.version.encode())
    for dist in ("PyYAML", "jsonschema", "lark", "networkx"):
        try:
            h.update(f"\0{dist}={metadata.version(dist)}".encode())
        except metadata.PackageNotFoundError:
            h.update(f"\0{dist}=none".encode())
    package = Path(__file__).resolve().parent.parent
    roots = [(package, ("*.py", "*.lark")), (_data_dir("schemas"), ("*.json",))]
    for root, patterns in roots:
        for pattern in patterns:
            for p in sorted(root.rglob(pattern)):
                h.update(b"\0" + str(p.relative_to(root)).encode("utf-8", "surrogatepass") + b"\0")
                h.update(p.read_bytes())
    _VERSION = h.hexdigest()
    return _VERSION


def _file_digest(path: str) -> str | None:
    """SHA-256 of the file's bytes and of where it really is (a link's target); None when it
    cannot be read, "too large" beyond the loader's MAX_BYTES (which the loader refuses)."""
    try:
        real = os.path.realpath(path)
        if os.stat(path).st_size > MAX_BYTES:  # more than the loader reads: never hashed
            return "too large"
        data = Path(path).read_bytes()
    except (OSError, ValueError):
        return None
    h = hashlib.sha256(real.encode("utf-8", "surrogatepass") + b"\0")
    h.update(data)
    return h.hexdigest()


def _entry_path(kind: str, parts: list) -> Path | None:
    d = _cache_dir()
    if d is None:
        return None
    h = hashlib.sha256(source_version().encode())
    h.update(json.dumps([kind, parts], sort_keys=True, default=str).encode("utf-8", "surrogatepass"))
    return d.parent / "results" / f"{h.hexdigest()}.json"


def lookup(kind: str, parts: list) -> Any:
    """The value stored for ``(kind, parts)`` while every file it read is unchanged, else None.

    ``parts``: JSON data naming the inputs (the same list as given to :func:`store`)."""
    path = _entry_path(kind, parts)
    if path is None:
        return None
    try:
        if path.stat().st_size > MAX_ENTRY_BYTES:
            return None
        entry = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return None
    if not isinstance(entry, dict) or not isinstance(entry.get("files"), dict) or "value" not in entry:
        return None
    for file, digest in entry["files"].items():
        if _file_digest(file) != digest:
            return None
    return entry["value"]


def store(kind: str, parts: list, reads: list[str], value: Any) -> None:
    """Remember ``value`` (JSON data) for ``(kind, parts)``, valid while the files ``reads`` hold
    what they hold now.  A cache that cannot be written is skipped silently."""
    path = _entry_path(kind, parts)
    if path is None:
        return
    entry = {"files": {f: _file_digest(f) for f in sorted(set(reads))}, "value": value}
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(entry), encoding="utf-8")
        os.replace(tmp, path)  # a reader never sees half an entry
    except OSError:
        pass
