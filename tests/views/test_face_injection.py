"""Card-face text from a ruleset is data, never markup or code (issue 27): titles, short forms,
ability templates and table cells carrying HTML, JavaScript, template and Rich-markup payloads
are escaped on the page (and run nothing in Chromium), printed literally in the terminal, and a
cell's braces are never evaluated a second time."""

from __future__ import annotations

import io
import random

import pytest
from rich.console import Console
from rich.text import Text

from interpreter import load_ruleset
from interpreter.agents.core import HumanAgent
from interpreter.views.faces import face_of
from interpreter.views.render import view_observation
from interpreter.views.terminal import numbered, option_names
from interpreter.views.termview import seat_text
from interpreter.views.view import action_cards, visible_ids
from interpreter.views.webview import seat_html
from tests.conftest import copy_ruleset, replace_once

TITLE = "<img src=x onerror=window.__pwned=1>"
SHORT = "<script>window.__pwned=2</script>"
ABILITY = '"><svg onload=window.__pwned=3>'
MARKUP = "[bold red]loud[/bold red]"
CELL = "{7*7} {{7*7}} ${7*7}"  # in a table cell: text, never an expression


@pytest.fixture(scope="module")
def poisoned(tmp_path_factory):
    path = copy_ruleset(tmp_path_factory.mktemp("faces"), "beer_knight")
    replace_once(path, '      title: "{name}"\n      short: "{name} ({type} {power})"',
                 f'      title: "{TITLE}{{name}}"\n      short: "{SHORT}{{name}} {MARKUP} ({{type}} {{power}})"')
    for word in ("bonus", "reroll_any", "reroll_low", "extra_die", "steal_random", "force_lowest"):
        text = path.read_text(encoding="utf-8")
        start = text.index(f"\n    {word}: ") + len(f"\n    {word}: ")
        end = text.index("\n", start)
        old = text[start:end]
        body = old[1:-1] if old.startswith('"') else old
        text = text[:start] + "'" + ABILITY.replace("'", "''") + " " + body.replace("'", "''") + "'" + text[end:]
        path.write_text(text, encoding="utf-8")
    cards = path.parent / "cards.csv"
    lines = cards.read_text(encoding="utf-8").splitlines()
    header = next(i for i, ln in enumerate(lines) if not ln.startswith("#"))
    cols = lines[header].split(",")
    k = cols.index("name")
    whole = "\n".join(lines)
    for i in range(header + 1, len(lines)):
        if lines[i] and not lines[i].startswith("#") and '"' not in lines[i]:
            row = lines[i].split(",")
            if whole.count(row[k]) == 1:  # a name no other card refers to (Pairings name cards)
                row[k] = row[k] + " " + CELL
                lines[i] = ",".join(row)
    cards.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return load_ruleset(path)


def _a_seat_with_faces(rs):
    st = rs.new_game(2, seed=4)
    for p in (0, 1):
        obs = view_observation(st, p)
        faced = [cid for cid in visible_ids(rs, obs) if face_of(rs, cid) is not None]
        if faced:
            return st, p, obs, faced
    raise AssertionError("no face visible at the start")


def test_face_payloads_are_escaped_in_the_html(poisoned):
    st, p, obs, faced = _a_seat_with_faces(poisoned)
    html = seat_html(poisoned, obs, [])
    for raw in ("<img", "<script", "<svg onload", "\"><svg"):  # as markup: every payload is text (&lt;...)
        assert raw not in html, raw
    assert "&lt;img src=x onerror=window.__pwned=1&gt;" in html and "&lt;script&gt;window.__pwned=2&lt;/script&gt;" in html
    assert "&quot;&gt;&lt;svg onload=window.__pwned=3&gt;" in html or not any(
        ABILITY in " ".join(face_of(poisoned, c).lines) for c in faced)
    assert "49" not in " ".join(face_of(poisoned, c).title for c in faced)
    assert any("{7*7} {{7*7}} ${7*7}" in face_of(poisoned, c).title for c in faced), "the cell's text, as it is"


def test_face_payloads_are_literal_in_the_terminal(poisoned):
    rs = poisoned
    st, p, obs, faced = _a_seat_with_faces(poisoned)
    text = seat_text(poisoned, obs)
    assert SHORT in text and MARKUP in text and CELL in text
    buf = io.StringIO()
    console = Console(file=buf, width=250, highlight=False, color_system="truecolor", force_terminal=True)
    HumanAgent(console=console).show(st, p, everything=True)
    out = buf.getvalue()
    assert MARKUP in out, "Rich markup in a face is printed as text, not interpreted"
    assert "\x1b[1;31mloud" not in out
    # `look N` prints a named card's whole face literally (the first decision naming a faced card)
    rng = random.Random(4)
    for _ in range(300):
        q = st.current_players()[0]
        for n in range(1, len(st.decision().actions) + 1):
            buf.seek(0)
            buf.truncate()
            HumanAgent(console=console).look(st, q, f"look {n}")
            if TITLE in buf.getvalue():
                action = numbered(st.decision(), option_names(st))[n - 1][1]
                faces = action_cards(rs, view_observation(st, q), action)
                plain = Text.from_ansi(buf.getvalue()).plain
                for face in faces:  # every line as the ruleset composed it, payloads and all, as text
                    assert face.title in plain and all(line in plain for line in face.lines)
                assert any(ABILITY in line for f in faces for line in f.lines) or ABILITY not in plain
                assert "\x1b[1;31m" not in buf.getvalue()  # no bold red: markup is never interpreted
                return
        st.apply(rng.choice(st.legal_actions()))
    pytest.fail("no option names a card with a face")


def test_face_payloads_run_nothing_in_chromium(poisoned):
    from tests.conftest import CHROMIUM, need_chromium, required_in_ci

    need_chromium()
    if not required_in_ci():
        pytest.importorskip("playwright.sync_api")
    from playwright import sync_api

    from tests.web.test_browser import ARGS

    st, p, obs, faced = _a_seat_with_faces(poisoned)
    html = seat_html(poisoned, obs, [])
    with sync_api.sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        try:
            page = b.new_page()
            dialogs = []
            page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
            page.set_content(f"<html><body><main id='view'>{html}</main></body></html>")
            for card in page.locator(".card.has-face").all()[:6]:
                card.hover()
                card.focus()
            page.wait_for_timeout(200)
            assert page.evaluate("() => window.__pwned") is None
            assert not page.locator("img, script, svg[onload]").count()
            body = page.inner_text("body")
        finally:
            b.close()
    assert not dialogs
    assert SHORT in body and CELL in body and MARKUP in body
