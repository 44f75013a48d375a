"""Take the documentation's screenshot of a browser table: ``python tools/table_screenshot.py [OUT.png]``
(``docs/browser_table.png``, shown in docs/user-guide.md).

Starts ``tapster serve`` on a free port with a throw-away database, creates a table of
``--ruleset`` (default Drink & Beat) with ``--variant`` (default none; the user guide's picture is
``--variant complex``) and ``--players`` (default the ruleset's own number), every seat a person,
plays ``--moves`` random moves through the API (fewer if the game ends first), and photographs
P1's page (its first screen, or with ``--full-page`` all of it) with Debian's Chromium through
Playwright (``TAPSTER_CHROMIUM`` overrides
``/usr/bin/chromium``).  ``--seed`` seeds the table and the moves.  Exits 1 with the server's
message when the table cannot be created (an unknown ruleset or variant, a bad player count).

``--page`` photographs another page of the same table (issue 48): ``spectate`` the spectator's
page (``docs/browser_spectate.png``), ``replay`` the replay viewer of the game played to its end,
at its middle step (``docs/browser_replay.png``), ``takeback`` the page of the seat asked to agree
to a take-back by the seat that moved last (``docs/browser_takeback.png``).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from html import unescape
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parent.parent
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]


def _post(url: str, body: dict) -> tuple[int, dict]:
    req = urllib.request.Request(url, json.dumps(body).encode(), {"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", nargs="?", default=str(ROOT / "docs" / "browser_table.png"))
    ap.add_argument("--ruleset", default="drink_and_beat")
    ap.add_argument("--variant", default=None, help="a variant of the ruleset (several: comma-separated)")
    ap.add_argument("--players", type=int, default=None, help="seats (default: the ruleset's default number of players)")
    ap.add_argument("--moves", type=int, default=14)
    ap.add_argument("--seed", type=int, default=4)
    ap.add_argument("--full-page", action="store_true", help="the whole page, not only the first screen")
    ap.add_argument("--page", choices=["seat", "spectate", "replay", "takeback"], default="seat",
                    help="the page photographed: a seat's (default), the spectator's, the replay viewer, a take-back asked")
    a = ap.parse_args()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    base = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory() as tmp:
        proc = subprocess.Popen([sys.executable, "-m", "interpreter.cli", "serve", "--port", str(port), "--db", f"{tmp}/t.sqlite"],
                                cwd=ROOT)
        try:
            for _ in range(100):
                try:
                    urllib.request.urlopen(base + "/", timeout=2)
                    break
                except OSError:
                    time.sleep(0.2)
            body = {"ruleset": a.ruleset, "variant": a.variant, "agents": ["human"], "seed": a.seed}
            if a.players is not None:
                body["players"] = a.players
            status, t = _post(base + "/api/tables", body)  # one "human" repeats for every seat
            if "seats" not in t:
                print(f"table_screenshot: the server refused the table ({status}): {t.get('error', t)}", file=sys.stderr)
                return 1
            seats = t["seats"]
            first = seats[min(seats, key=int)]
            rng = random.Random(a.seed)
            moves = 0
            last = first
            if a.page == "replay":
                a.moves = 10**6  # to the end
            while True:  # the moves, then on to P1's turn (so that the picture shows P1's buttons)
                with urllib.request.urlopen(base + first + "/view") as r:
                    view = json.loads(r.read())
                if view["finished"] or (moves >= a.moves and view["yours"]):
                    break
                moves += 1
                for link in seats.values():
                    with urllib.request.urlopen(base + link + "/view") as r:
                        view = json.loads(r.read())
                    if view["yours"]:
                        actions = [x.split('"')[0] for x in view["html"].split('data-action="')[1:]]
                        _post(base + link + "/act", {"action": unescape(rng.choice(actions)), "version": view["version"]})
                        last = link
                        break
            shot = base + first
            if a.page == "spectate":
                shot = base + t["spectate"]
            elif a.page == "replay":
                shot = base + first + "/replay"
            elif a.page == "takeback":
                _post(base + last + "/undo", {"answer": "ask"})
                shot = base + next((link for link in seats.values() if link != last), last)
            with sync_playwright() as pw:
                b = pw.chromium.launch(executable_path=os.environ.get("TAPSTER_CHROMIUM", "/usr/bin/chromium"), args=ARGS)
                page = b.new_page(viewport={"width": 1200, "height": 900})
                page.goto(shot)
                if a.page == "replay":
                    page.wait_for_selector("main.replay-viewer[data-step='0']")
                    page.select_option("select.replay-turn", index=len(page.locator("select.replay-turn option").all()) // 2)
                    page.wait_for_function("document.querySelector('main.replay-viewer').dataset.step !== '0'")
                page.wait_for_selector("#view .status")
                page.screenshot(path=a.out, full_page=a.full_page)
                b.close()
        finally:
            proc.terminate()
            proc.wait(timeout=30)
    print(f"wrote {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
