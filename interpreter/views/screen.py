"""A human's turn on one terminal screen: what happened since their last decision, the parts of
the table that changed or matter to this decision, and the question — at most
:data:`SCREEN_LINES` lines from one decision to the next (issue 27).

The parts, most needed first:

1. the question: the decision's prompt and its numbered options (:func:`option_lines`; many
   options are grouped by their shared words and flowed across the line, a card's face under its
   group, the faces left to ``look N`` when even that is too tall);
2. the table's header line and the game's final lines;
3. the sections of the table that show a card an option names, then the sections that changed
   since the seat's last decision, in drawing order, as many as fit — a section too tall drawn
   without its blank rows (a map's picture) — and the others named on one line (``table`` draws
   everything);
4. the account since the last decision (:func:`fold_account`): repeated lines counted
   (``×2``), turn headers dropped when room is short, and only its last lines when it is still too
   long (``log`` prints it whole).

Everything here is text already built for the seat (:func:`interpreter.views.termview.seat_blocks`
of its observation, the log lines it may read, the labels of its legal actions): nothing reads
the state.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

__all__ = ["SCREEN_LINES", "Account", "Screen", "compose", "fold_account", "option_lines", "own_values"]

#: The most lines between two of a human's decisions (the input prompt included) where the
#: terminal's height is unknown (output piped); a terminal's own height otherwise.
SCREEN_LINES = 45
#: More options than this are grouped and flowed (fewer: one a line, each card's face under it).
FLOW_FROM = 12
#: The account keeps at least this many of its lines before the table's less needed sections.
ACCOUNT_RESERVE = 8
#: The fewest options in a run of labels that share their first word to be drawn as a group.
GROUP_FROM = 3


class Account(NamedTuple):
    """One line of the account: ``text`` and whether it is a turn header (``turn``), dropped
    first when room is short."""

    text: str
    turn: bool = False


class Screen(NamedTuple):
    """A composed turn: ``lines`` as ``(text, style)`` pairs (style ``""``, ``"dim"`` or
    ``"bold"``) and the titles of the sections drawn (``shown``)."""

    lines: list[tuple[str, str]]
    shown: list[str]


def fold_account(items: Sequence[Account], drop_turns: bool = False) -> list[Account]:
    """The account with runs of the same line counted (``P2 puts a card face down (×2)``) and,
    with ``drop_turns``, without its turn headers (every line of the account names its seat)."""
    out: list[list] = []
    for it in items:
        if drop_turns and it.turn:
            continue
        if out and out[-1][0] == it:
            out[-1][1] += 1
        else:
            out.append([it, 1])
    return [Account(a.text + (f" (×{k})" if k > 1 else ""), a.turn) for a, k in out]


def _balanced(words: Sequence[str]) -> bool:
    text = " ".join(words)
    depth = 0
    for ch in text:
        depth += ch in "([{"
        depth -= ch in ")]}"
        if depth < 0:
            return False
    return depth == 0


def _common(runs: list[list[str]]) -> tuple[list[str], list[str]]:
    """The longest balanced common word prefix and suffix of ``runs`` (never a whole label)."""
    shortest = min(len(w) for w in runs)
    k = 0
    while k < shortest - 1 and all(w[k] == runs[0][k] for w in runs):
        k += 1
    while k and not _balanced(runs[0][:k]):
        k -= 1
    s = 0
    while s < shortest - k - 1 and all(w[-1 - s] == runs[0][-1 - s] for w in runs):
        s += 1
    while s and not _balanced(runs[0][len(runs[0]) - s:]):
        s -= 1
    return runs[0][:k], runs[0][len(runs[0]) - s:] if s else []


def _flow(items: list[str], width: int, indent: str) -> list[str]:
    """``items`` side by side, three spaces apart, wrapped at ``width`` (an item longer than a
    line has a line of its own)."""
    out: list[str] = []
    line = ""
    for it in items:
        if line and len(indent) + len(line) + 3 + len(it) > width:
            out.append(indent + line)
            line = ""
        line = f"{line}   {it}" if line else it
    if line:
        out.append(indent + line)
    return out


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: max(1, width - 1)] + "…"


def option_lines(listed: Sequence[tuple[int, Any, str]], faces: Callable[[Any], list], width: int,
                 with_faces: bool = True) -> list[str]:
    """The numbered options as text lines at ``width`` characters.

    ``listed``: ``(number, action, label)`` (:func:`interpreter.views.terminal.numbered`);
    ``faces(action)``: the faces of the visible cards it names
    (:func:`interpreter.views.view.action_cards`).  Up to :data:`FLOW_FROM` options: one a line,
    each card's face once on the line under the first option naming it.  More: runs of at least
    :data:`GROUP_FROM` labels sharing their first word become a group — the shared words as its
    title (``Move to …:``), the rest of each label flowed across the line — and the faces of the
    group's cards follow it, one a line, titled.  ``with_faces=False`` leaves the faces out."""
    faced: set = set()
    out: list[str] = []

    def face_lines(action, titled: bool) -> list[str]:
        lines = []
        for f in faces(action) if with_faces else ():
            if f not in faced:
                faced.add(f)
                lines.append(_cut(f"      {f.title + ': ' if titled else ''}{f.one_line()}", width))
        return lines

    if len(listed) <= FLOW_FROM:
        for i, action, label in listed:
            out.append(f"  {i:>2}. {label or action}")
            out.extend(face_lines(action, False))
        return out
    texts = [(i, action, str(label or action)) for i, action, label in listed]
    k = 0
    while k < len(texts):
        first = (texts[k][2].split()[:1], getattr(texts[k][1], "name", None))
        j = k + 1
        while j < len(texts) and (texts[j][2].split()[:1], getattr(texts[j][1], "name", None)) == first:
            j += 1
        run = texts[k:j]
        words = [t.split() for _, _, t in run]
        prefix, suffix = _common(words) if len(run) >= GROUP_FROM else ([], [])
        if not prefix:
            for i, action, text in run:
                out.append(f"  {i:>2}. {text}")
                out.extend(face_lines(action, False))
        else:
            title = " ".join(prefix) + (" … " + " ".join(suffix) if suffix else "") + ":"
            out.append(f"  {title}")
            items = [f"{i}. {' '.join(w[len(prefix):len(w) - len(suffix)])}" for (i, _, _), w in zip(run, words, strict=True)]
            out.extend(_flow(items, width, "    "))
            for _, action, _ in run:
                out.extend(face_lines(action, True))
        k = j
    return out


#: Own values not worth the ``yours:`` line.
_NOTHING = ("", "0", "no", "nothing", "empty", "?", "none")
#: A line of a map's picture: single characters apart (nodes, letters), no words.
_PICTURE = re.compile(r"^[\s·*A-Z]+$")
_TRACK = re.compile(r"^\S+ [·●]+ \S+\s+\((.*)\)$")


def own_values(blocks: Sequence[tuple[str, list[str]]]) -> dict[str, str]:
    """The viewing seat's own value in each section that has one (its row, marked ``(you)``), in
    short: ``{"Hidden Hand": "Dubbel Donkey (Mount 3), ...", "Time (TU)": "17"}`` — for the line
    that keeps a seat's own resources on the screen when their sections are not drawn."""
    out: dict[str, str] = {}
    for title, lines in blocks:
        for line in lines:
            m = re.search(r"\(you\):?\s+(.*)$", line)
            if m:
                value = re.split(r";\s+P\d+\b", m.group(1))[0].strip()
                track = _TRACK.match(value)
                out[title] = track.group(1) if track else value
                break
    return out


def compose(header: list[str], blocks: list[tuple[str, list[str]]], before: dict | None, named: list[str],
            account: Sequence[Account], question: list[str], options: Callable[[bool], list[str]], final: list[str],
            height: Callable[[str], int], budget: int = SCREEN_LINES, pinned: Sequence[str] = (),
            own: dict[str, str] | None = None) -> Screen:
    """One turn's screen in at most ``budget`` lines (one kept for the input prompt).

    ``header``/``blocks``/``final``: the table (:func:`interpreter.views.termview.seat_blocks`);
    ``before``: the sections as last shown to the seat (``{title: lines}``; None: draw them all);
    ``named``: the short forms of the cards the options name (a section showing one is needed);
    ``account``: the lines since the seat's last decision; ``question``: the prompt's lines;
    ``options(with_faces)``: the numbered options' lines; ``height(text)``: the lines a text takes
    on the terminal; ``budget``: the terminal's height.  ``pinned``: the titles of sections always
    drawn (the board; without blank rows when short of room); ``own``: the seat's own value by
    section (:func:`own_values`): those not drawn go on one ``yours:`` line, always drawn.
    Returns the :class:`Screen`; parts that do not fit are named on one line or counted so
    that ``table`` and ``log`` can show them."""
    room = budget - 1  # the input prompt
    opts = options(True)
    fixed = question + header + final

    def h(lines) -> int:
        return sum(height(t) for t in lines)

    if h(fixed) + h(opts) > room - 4:
        opts = options(False) + ["  (`look N` shows the cards option N names)"]
    room -= h(fixed) + h(opts) + 1  # one line for the note naming sections not drawn
    lines_of = dict(blocks)
    shown: set[str] = set()
    own = own or {}

    def yours(titles) -> list[str]:
        items = [f"{t}: {own[t]}" for t, _ in blocks if t in titles and own[t] not in _NOTHING]
        return ["yours: " + " | ".join(items)] if items else []

    boards = [t for t, _ in blocks if t in pinned]
    for t in boards:  # the board: always; without its blank rows, then without its picture if need be
        full = lines_of[t]
        tight = [ln for ln in full if ln.strip()]
        words = [ln for ln in tight if not _PICTURE.match(ln)]
        spare = room - h(yours(own)) - sum(h(lines_of[b]) for b in boards if b not in shown and b != t) - 2
        lines_of[t] = next((lines for lines in (full, tight) if h(lines) <= spare), words)
        shown.add(t)
        room -= h(lines_of[t])
    own_room = h(yours([t for t in own if t not in shown]))
    room -= own_room
    folded = fold_account(account)
    reserve = min(h(a.text for a in folded), ACCOUNT_RESERVE)
    if before is None:
        wanted = [t for t, _ in blocks if t not in shown]
    else:
        wanted = [t for t, b in blocks if t not in shown and (before.get(t) != b or any(n in line for n in named for line in b))]
    needed = [t for t, b in blocks if t not in shown and any(n in line for n in named for line in b)]
    order = [t for t in needed if t in wanted] + [t for t in wanted if t not in needed]
    for t in order:
        for lines in (lines_of[t], [ln for ln in lines_of[t] if ln.strip()]):  # then without its blank rows
            cost = h(lines)
            if cost <= room - (reserve if t not in needed else 0):
                shown.add(t)
                lines_of[t] = lines
                room -= cost
                break
    own_line = yours([t for t in own if t not in shown])
    room += own_room - h(own_line)
    left_out = [t for t in wanted if t not in shown]
    unchanged = [t for t, _ in blocks if t not in wanted and t not in shown]
    # the account: folded, then without turn headers, then its last lines
    acc = folded
    if h(a.text for a in acc) > room:
        acc = fold_account(account, drop_turns=True)
    earlier = 0
    if h(a.text for a in acc) > room:
        keep: list[Account] = []
        spare = room - 1
        for a in reversed(acc):
            if height(a.text) > spare:
                break
            keep.insert(0, a)
            spare -= height(a.text)
        earlier = len(acc) - len(keep)
        acc = keep
    out: list[tuple[str, str]] = []
    if earlier and room >= 1:
        out.append((f"(… {earlier} earlier line{'s' if earlier > 1 else ''}: `log` shows them all)", "dim"))
    out.extend((a.text, "dim" if a.turn else "") for a in acc)
    out.extend((t, "bold") for t in header)
    for t, _ in blocks:
        if t in shown:
            out.extend((line, "") for line in lines_of[t])
    out.extend((line, "bold") for line in own_line)
    if unchanged or left_out:
        out.append((_left_out_note(unchanged, left_out, height), "dim"))
    out.extend((t, "") for t in final)
    out.extend((t, "bold") for t in question)
    out.extend((t, "") for t in opts)
    return Screen(out, [t for t, _ in blocks if t in shown])


def _left_out_note(unchanged: list[str], left_out: list[str], height: Callable[[str], int]) -> str:
    """The one line saying what a screen did not draw: the sections ``unchanged`` since the last
    screen and those ``left_out`` for room, named as far as one line of the terminal holds them
    (``height(text)``: the lines a text takes), the rest counted (``… and 4 more``)."""

    def note(k_unchanged: int, k_left: int) -> str:
        parts = []
        for label, names, k in (("unchanged", unchanged, k_unchanged), ("not drawn for room", left_out, k_left)):
            if names:
                shown = names[:k]
                more = len(names) - len(shown)
                parts.append(f"{label}: " + ", ".join(shown) + (f" … and {more} more" if more and shown else "")
                             if shown else f"{label}: {len(names)}")
        return "(" + "; ".join(parts) + "; `table` shows everything)"

    k_u, k_l = len(unchanged), len(left_out)
    while height(note(k_u, k_l)) > 1 and (k_u or k_l):
        if k_l >= k_u and k_l:  # drop names from the longer list first
            k_l -= 1
        else:
            k_u -= 1
    text = note(k_u, k_l)
    return text if height(text) <= 1 else f"({len(unchanged) + len(left_out)} sections left out; `table`)"
