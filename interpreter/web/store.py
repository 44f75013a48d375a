"""Where ``tapster serve`` keeps its tables: a small store interface and its SQLite implementation.

A table is its settings (ruleset, variant, parameters, seed, the agent of every seat), the hashes
of its seats' tokens, the engine's JSON state (``State.to_json``) and its action log.  Each
action is committed in the same transaction as the state it led to, so a table read back after a
crash is a position that was reached, with the actions that reached it.

:class:`TableStore` is the interface (a server database can take SQLite's place);
:class:`SQLiteStore` keeps everything in one file through the standard library's ``sqlite3``, in
WAL mode.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
from dataclasses import dataclass, field
from typing import Protocol

from ..errors import TapsterError

__all__ = ["TableRecord", "TableStore", "SQLiteStore", "StaleTableError"]


class StaleTableError(TapsterError):
    """The table moved on since the version an update was based on (nothing was written)."""


@dataclass
class TableRecord:
    """One table as stored.

    ``id`` (text), ``settings`` (JSON data: ruleset, variant, params, players, seed, agents by
    seat), ``token_hashes`` (hex SHA-256 of each seat's token, None for an agent's seat),
    ``state`` (``State.to_json()``), ``version`` (actions taken so far), ``actions`` (their
    texts with the seat that took each: ``[seat, text]``), ``updated`` (seconds since the epoch
    of the last change; 0 for a new record), ``undone`` (twice the actions taken back, plus one
    for each take-back asked, answered or done: the pages' revision, ``version + undone``, only
    grows).
    """

    id: str
    settings: dict
    token_hashes: list
    state: dict
    version: int = 0
    actions: list = field(default_factory=list)
    updated: float = 0.0
    undone: int = 0


class TableStore(Protocol):
    """What the server needs from a database."""

    def create(self, table: TableRecord) -> None:
        """Store a new table (version 0, no actions).  Raises TapsterError when the id exists."""

    def record(self, table_id: str, version: int, seat: int, action: str, state: dict) -> None:
        """Append action number ``version + 1`` and the new state in one transaction.

        Raises:
            StaleTableError: the stored version is not ``version`` (nothing is written).
        """

    def load_all(self) -> list[TableRecord]:
        """Every stored table with its actions, oldest first."""

    def rewind(self, table_id: str, version: int, keep: int, seat: int, state: dict) -> None:
        """Take back the actions after the first ``keep`` (seat ``seat`` asked), leaving ``state``
        and version ``keep``, in one transaction; the take-back is recorded.

        Raises:
            StaleTableError: the stored version is not ``version`` (nothing is written).
        """

    def note(self, table_id: str, seat: int) -> None:
        """Record a take-back asked, agreed or refused by ``seat`` (the pages' revision grows)."""

    def delete(self, table_id: str) -> None:
        """Delete a table and its actions (nothing happens for an unknown id)."""

    def update_settings(self, table_id: str, settings: dict) -> None:
        """Replace a table's settings (its agents lowered to today's limits); nothing happens for
        an unknown id."""

    def close(self) -> None:
        """Release the database."""


def _private(path: str) -> None:
    """Mode 600 on the database ``path`` and on each of its ``-wal``, ``-shm`` and ``-journal``
    files that exists (those of an older server included).  Raises OSError (not the owner)."""
    for suffix in ("", "-wal", "-shm", "-journal"):
        try:
            mode = os.stat(path + suffix).st_mode
        except FileNotFoundError:
            continue
        if mode & 0o077:
            os.chmod(path + suffix, 0o600)


class SQLiteStore:
    """A :class:`TableStore` in one SQLite file (``path``; ``":memory:"`` for tests), WAL mode.

    The file holds every table's hidden state and seed: it is created readable and writable by
    its owner only (mode 600), and on opening the file and every ``-wal``, ``-shm`` and
    ``-journal`` file beside it (an older server's, perhaps 644) are set so; SQLite gives the
    files it creates later the database's mode.  A write waits up to ``busy_seconds`` for another process's
    lock.  Safe to share between threads (one connection behind a lock).

    Raises TapsterError when the file cannot be opened.
    """

    def __init__(self, path: str, busy_seconds: float = 5.0):
        try:
            private = path != ":memory:" and not path.startswith("file:")
            if private:
                os.close(os.open(path, os.O_RDWR | os.O_CREAT, 0o600))
                _private(path)
            self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None, timeout=busy_seconds)
            self._db.execute("PRAGMA journal_mode=WAL")
            if private:
                _private(path)  # the -wal and -shm files opening may have made
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.executescript(
                """
                CREATE TABLE IF NOT EXISTS tables (
                    id TEXT PRIMARY KEY, settings TEXT NOT NULL, token_hashes TEXT NOT NULL,
                    state TEXT NOT NULL, version INTEGER NOT NULL, created REAL NOT NULL, updated REAL NOT NULL);
                CREATE TABLE IF NOT EXISTS actions (
                    table_id TEXT NOT NULL REFERENCES tables(id), n INTEGER NOT NULL, seat INTEGER NOT NULL,
                    action TEXT NOT NULL, at REAL NOT NULL, PRIMARY KEY (table_id, n));
                CREATE TABLE IF NOT EXISTS takebacks (
                    table_id TEXT NOT NULL REFERENCES tables(id), at_version INTEGER NOT NULL, seat INTEGER NOT NULL,
                    undone INTEGER NOT NULL, at REAL NOT NULL);
                """
            )
        except (sqlite3.Error, OSError) as exc:
            raise TapsterError(f"cannot open the table database {path}: {getattr(exc, 'strerror', None) or exc}") from None
        self._lock = threading.Lock()

    def create(self, table: TableRecord) -> None:
        """See :meth:`TableStore.create`."""
        now = time.time()
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._db.execute(
                    "INSERT INTO tables VALUES (?, ?, ?, ?, 0, ?, ?)",
                    (table.id, json.dumps(table.settings), json.dumps(table.token_hashes), json.dumps(table.state), now, now),
                )
            except sqlite3.IntegrityError:
                self._db.execute("ROLLBACK")
                raise TapsterError(f"table {table.id!r} exists already") from None
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def record(self, table_id: str, version: int, seat: int, action: str, state: dict) -> None:
        """See :meth:`TableStore.record`."""
        now = time.time()
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                cur = self._db.execute(
                    "UPDATE tables SET state = ?, version = ?, updated = ? WHERE id = ? AND version = ?",
                    (json.dumps(state), version + 1, now, table_id, version),
                )
                if cur.rowcount != 1:
                    raise StaleTableError(f"table {table_id!r} is not at version {version}")
                self._db.execute("INSERT INTO actions VALUES (?, ?, ?, ?, ?)", (table_id, version + 1, seat, action, now))
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def load_all(self) -> list[TableRecord]:
        """See :meth:`TableStore.load_all`."""
        with self._lock:
            rows = self._db.execute(
                "SELECT id, settings, token_hashes, state, version, updated FROM tables ORDER BY created, id").fetchall()
            out = []
            for tid, settings, hashes, state, version, updated in rows:
                acts = self._db.execute("SELECT seat, action FROM actions WHERE table_id = ? ORDER BY n", (tid,)).fetchall()
                undone = self._db.execute("SELECT COALESCE(2 * SUM(undone) + COUNT(*), 0) FROM takebacks WHERE table_id = ?",
                                          (tid,)).fetchone()[0]
                out.append(TableRecord(tid, json.loads(settings), json.loads(hashes), json.loads(state), version,
                                       [[s, a] for s, a in acts], updated, int(undone)))
            return out

    def note(self, table_id: str, seat: int) -> None:
        """See :meth:`TableStore.note`."""
        with self._lock:
            self._db.execute("INSERT INTO takebacks SELECT id, version, ?, 0, ? FROM tables WHERE id = ?", (seat, time.time(), table_id))

    def rewind(self, table_id: str, version: int, keep: int, seat: int, state: dict) -> None:
        """See :meth:`TableStore.rewind`."""
        now = time.time()
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                cur = self._db.execute(
                    "UPDATE tables SET state = ?, version = ?, updated = ? WHERE id = ? AND version = ?",
                    (json.dumps(state), keep, now, table_id, version),
                )
                if cur.rowcount != 1 or not 0 <= keep < version:
                    raise StaleTableError(f"table {table_id!r} is not at version {version}")
                self._db.execute("DELETE FROM actions WHERE table_id = ? AND n > ?", (table_id, keep))
                self._db.execute("INSERT INTO takebacks VALUES (?, ?, ?, ?, ?)", (table_id, keep, seat, version - keep, now))
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def delete(self, table_id: str) -> None:
        """See :meth:`TableStore.delete`."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._db.execute("DELETE FROM actions WHERE table_id = ?", (table_id,))
                self._db.execute("DELETE FROM takebacks WHERE table_id = ?", (table_id,))
                self._db.execute("DELETE FROM tables WHERE id = ?", (table_id,))
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def update_settings(self, table_id: str, settings: dict) -> None:
        """See :meth:`TableStore.update_settings`."""
        with self._lock:
            self._db.execute("UPDATE tables SET settings = ? WHERE id = ?", (json.dumps(settings), table_id))

    def close(self) -> None:
        """See :meth:`TableStore.close`."""
        with self._lock:
            self._db.close()
