"""A saved game names places in its ruleset by number (blocks, effects, decisions, ``while``
conditions), so a state saved before the ruleset's flow was edited would resume at the wrong
effect.  ``State.to_json`` writes the ruleset's layout (interpreter/engine/saved.py, ``layout``)
and ``State.from_json`` refuses a state saved under another one; ``tapster serve`` then replays
a stored table's actions in the ruleset as it is now (interpreter/web/tables.py)."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from interpreter import find_ruleset, load_ruleset
from interpreter.engine.saved import layout
from interpreter.engine.state import State
from interpreter.errors import TapsterError
from interpreter.web.store import SQLiteStore
from interpreter.web.tables import TableServer

TTT = find_ruleset("tic_tac_toe").read_text()
# An effect more at the start of the option's body: every later effect of that block moves on by one.
LOGGED = TTT.replace("                        - set: {\"board[cell]\": current}",
                     "                        - log: \"a mark\"\n                        - set: {\"board[cell]\": current}")
# Only numbers and texts changed: nothing a saved state names moves.
TWEAKED = TTT.replace('"{marks[current]} to play"', '"{marks[current]}, your move"')


def _write(folder: Path, text: str) -> Path:
    folder.mkdir(exist_ok=True)
    path = folder / "ruleset.yaml"
    path.write_text(text)
    return path


def test_the_layout_names_what_a_saved_state_refers_to(tmp_path):
    assert LOGGED != TTT and TWEAKED != TTT
    base = load_ruleset(_write(tmp_path / "tic_tac_toe", TTT))
    assert layout(base) == layout(load_ruleset(_write(tmp_path / "tic_tac_toe", TTT)))  # the same text, the same layout
    assert layout(load_ruleset(_write(tmp_path / "tic_tac_toe", TWEAKED))) == layout(base)
    assert layout(load_ruleset(_write(tmp_path / "tic_tac_toe", LOGGED))) != layout(base)
    assert layout(base.with_chance("explicit")) != layout(base)
    knight = load_ruleset("beer_knight")
    assert len({layout(knight), layout(load_ruleset("beer_knight", "tag_teams")), layout(base)}) == 3


def test_a_state_saved_before_the_flow_was_edited_is_refused(tmp_path):
    rs = load_ruleset(_write(tmp_path / "tic_tac_toe", TTT))
    st = rs.new_game(2)
    st.apply("mark(4)")
    saved = st.to_json()
    assert saved["layout"] == layout(rs)
    # the same ruleset, or one with only a text changed: it resumes
    assert State.from_json(rs, saved).to_json() == saved
    tweaked = load_ruleset(_write(tmp_path / "tic_tac_toe", TWEAKED))
    assert State.from_json(tweaked, saved).legal_actions() == st.legal_actions()
    # an effect added: refused, with what to do instead
    edited = load_ruleset(_write(tmp_path / "tic_tac_toe", LOGGED))
    with pytest.raises(TapsterError, match="saved with another version of 'tic_tac_toe'.*replay its actions"):
        State.from_json(edited, saved)
    # a state saved before layouts were written (none) is read as it always was
    old = {k: v for k, v in saved.items() if k != "layout"}
    assert State.from_json(rs, old).to_json() == saved
    with pytest.raises(TapsterError, match="malformed saved state"):
        State.from_json(rs, {**saved, "layout": "not hex"})


def test_a_served_table_whose_ruleset_was_edited_is_replayed(tmp_path, caplog):
    path = _write(tmp_path / "tic_tac_toe", TTT)
    server = TableServer(SQLiteStore(str(tmp_path / "tables.sqlite")), [str(path)])
    table, _ = server.create("tic_tac_toe", None, 2, ["human", "human"], seed=5)
    for seat, action in ((0, "mark(4)"), (1, "mark(0)"), (0, "mark(8)")):
        server.take(table, seat, action, None)
    tid = table.record.id
    server.close()

    _write(tmp_path / "tic_tac_toe", LOGGED)
    with caplog.at_level(logging.WARNING, logger="tapster.serve"):
        again = TableServer(SQLiteStore(str(tmp_path / "tables.sqlite")), [str(path)])
    restored = again.tables[tid].state
    expected = load_ruleset(path).new_game(2, seed=5, log=True)
    for action in ("mark(4)", "mark(0)", "mark(8)"):
        expected.apply(action)
    assert json.dumps(restored.to_json()) == json.dumps(expected.to_json())
    assert "a mark" in " ".join(text for _, text in restored.log)  # played under the edited rules
    assert any(tid in r.getMessage() and "replayed" in r.getMessage() for r in caplog.records)
    again.take(again.tables[tid], 1, "mark(1)", None)  # and play goes on
    again.close()

    # edited again (the log taken out), into rules that do not allow its actions: the server
    # says which table and why
    _write(tmp_path / "tic_tac_toe", TTT.replace("in: range(9)", "in: range(4)"))
    with pytest.raises(TapsterError, match=f"stored table {tid}: .*does not load.*action 1 \\(mark\\(4\\)\\) does not replay"):
        TableServer(SQLiteStore(str(tmp_path / "tables.sqlite")), [str(path)])
