"""Scenarios: a ruleset's own tests, written as data in its ``scenarios:`` list.

A scenario names a setup (players, variant, parameter overrides, seed), a ``position`` applied
between ``setup`` and ``flow`` (which components lie in which zones, variable values), and
``steps``: actions to apply and expectations written in the expression language::

    - name: example_rank_30_and_21
      players: 2
      position:
        vars: {first: 0}
        props: {mat-3: {team: 1}}               # mutable properties of components, by id
        zones:
          "flight[0][0]": [card-16, card-29]     # exact contents, bottom/front first
          deck: {top: [card-30, card-21]}        # put on top, the first listed topmost
      steps:
        - apply: draw                   # an action, by its canonical text or its label
        - legal: [keep(card-30), keep(card-21)]   # exactly these are legal (any order)
        - illegal: [take]               # these are refused, and the state stays unchanged
        - expect: len(drawn[0]) == 2    # an expression (or a list of them) that must hold
        - deciding: [0]                 # exactly these seats must decide now
        - position: {zones: {...}}      # rearrange mid-game, as `position` above
        - play_out: first               # play to the end: `first` or `random` legal actions
        - outcome: {winners: [1], scores: [0, 0]}
        - metrics: {trashed_hops: [3, 0]}   # declared metrics now (a per_player one: per seat)

Expectations may read the pending decision's local names (``card`` while placing a card).
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..compile.compiler import find_ruleset, load_ruleset
from ..compile.ruleset import Ruleset
from ..engine.rng import Rng
from ..errors import IllegalActionError, Mark, ScenarioFailure, TapsterError, close_matches
from ..lang.expression import Env, compile_expression
from ..loader.load import load_yaml
from ..model import Component, render

__all__ = ["ScenarioResult", "run_scenarios", "run_scenario", "STEP_KINDS"]

#: The kinds of scenario step, in the order the authoring guide lists them (docs/authoring.md, "Scenarios").
STEP_KINDS = ("apply", "legal", "illegal", "expect", "deciding", "position", "play_out", "outcome", "metrics")


@dataclass
class ScenarioResult:
    """One scenario's result: ``name``, ``ok``, the failure ``message`` (with its mark)."""

    ruleset: str
    name: str
    ok: bool
    message: str = ""


def run_scenarios(name_or_path: str | Path, only: str | None = None) -> list[ScenarioResult]:
    """Run every scenario of a ruleset (or only the one named ``only``).

    Raises:
        TapsterError: the ruleset itself does not load.
    """
    path = find_ruleset(name_or_path)
    doc = load_yaml(path)
    # The base ruleset first: the schema checks the scenarios' own shape (`params` a mapping...).
    cache: dict = {(None, repr([])): load_ruleset(path)}
    scenarios = doc.data.get("scenarios") or []
    results = []
    title = path.resolve().parent.name  # `tapster test .` names the ruleset's folder too
    for i, scen in enumerate(scenarios):
        if not isinstance(scen, dict):
            continue
        name = str(scen.get("name", f"scenario {i + 1}"))
        if only is not None and name != only:
            continue
        try:
            run_scenario(path, scen, ("scenarios", i), doc, cache)
            results.append(ScenarioResult(title, name, True))
        except TapsterError as exc:
            results.append(ScenarioResult(title, name, False, str(exc)))
    return results


def run_scenario(path: Path, scen: dict, spath: tuple, doc, cache: dict | None = None) -> None:
    """Run one scenario; return quietly when every expectation holds.

    Raises:
        ScenarioFailure: an expectation did not hold (message and mark of the step).
        TapsterError: the ruleset or the scenario is malformed.
    """
    cache = {} if cache is None else cache
    variant = scen.get("variant")
    params = scen.get("params")
    key = (variant, repr(sorted((params or {}).items())))
    if key not in cache:
        cache[key] = load_ruleset(path, variant, {"params": params} if params else None)
    rs: Ruleset = cache[key]
    players = scen.get("players", rs.default_players)
    seed = scen.get("seed", 0)
    position = scen.get("position")
    pos_fn = (lambda st: _apply_position(st, position, doc, spath + ("position",))) if position else None
    try:
        st = rs.new_game(players, seed=seed, log=True, position=pos_fn)  # logs on: a broken template fails here too
    except TapsterError as exc:
        if exc.mark is not None or type(exc) is not TapsterError:
            raise
        raise TapsterError(exc.message, doc.mark(spath + ("players",))) from None  # the player count
    agent_rng = Rng(seed)
    catalogue: dict = {}  # the actions options can ever produce, worked out when an `illegal:` needs them
    for j, step in enumerate(scen.get("steps") or []):
        here = spath + ("steps", j)
        mark = doc.mark(here)
        if not isinstance(step, dict) or len(step) != 1:
            raise TapsterError(f"a step is a mapping with one key: {', '.join(STEP_KINDS)}", mark)
        (kind, arg), = step.items()
        if kind == "apply":
            try:
                st.apply(_action_text(st, arg, mark))
            except IllegalActionError as exc:
                raise ScenarioFailure(f"step {j + 1}: {exc.message}", mark) from None
        elif kind == "legal":
            want = sorted(_action_text(st, a, doc.mark(here + ("legal",))) for a in arg)
            got = sorted(str(a) for a in st.legal_actions())
            if want != got:
                raise ScenarioFailure(
                    f"step {j + 1}: legal actions are [{', '.join(got)}], expected [{', '.join(want)}]", mark
                )
        elif kind == "illegal":
            for i, a in enumerate(arg):
                text = _action_text(st, a, mark)
                _check_possible(st, text, players, catalogue, doc.text_mark(here + ("illegal", i))
                                if isinstance(arg, list) else mark)
                before = st.to_json()
                try:
                    st.apply(text)
                except IllegalActionError:
                    if st.to_json() != before:
                        raise ScenarioFailure(f"step {j + 1}: refusing `{text}` changed the state", mark) from None
                    continue
                raise ScenarioFailure(f"step {j + 1}: `{text}` was accepted but should be illegal", mark)
        elif kind == "expect":
            exprs = arg if isinstance(arg, list) else [arg]
            for k, text in enumerate(exprs):
                emark = doc.text_mark(here + ("expect", k) if isinstance(arg, list) else here + ("expect",))
                value = _evaluate(st, text, emark)
                if not value:
                    raise ScenarioFailure(f"step {j + 1}: expected `{text}` to hold{_explain(st, text, emark)}", emark)
        elif kind == "deciding":
            want = sorted(arg if isinstance(arg, list) else [arg])
            got = sorted(st.current_players())
            if want != got:
                raise ScenarioFailure(f"step {j + 1}: seats {got} are deciding, expected {want}", mark)
        elif kind == "position":
            # A position mid-game (after a shuffle in the flow, say): rearrange, then list the
            # pending decision's legal actions anew.
            _apply_position(st, arg or {}, doc, here + ("position",))
            if st.pending is not None:
                choose, loc, _, players = st.pending
                st.pending = (choose, loc, choose.legal(st, loc), players)
            st.checkpoint()  # a later failing move is undone back to here
        elif kind == "play_out":
            n = 0
            while not st.is_terminal():
                actions = st.legal_actions()
                st.apply(actions[0] if arg == "first" else agent_rng.choice(actions))
                n += 1
                if n >= rs.action_limit and not st.is_terminal():
                    raise ScenarioFailure(f"step {j + 1}: play_out did not end after {n} actions "
                                          f"(`limits: {{actions: {rs.action_limit}}}`)", mark)
        elif kind == "outcome":
            out = st.outcome()
            if out is None:
                raise ScenarioFailure(f"step {j + 1}: the game has not ended (deciding: {st.current_players()})", mark)
            for field, want in (arg or {}).items():
                got = getattr(out, field, None)
                if field in ("winners", "ranking", "scores"):
                    got, want = list(got), list(want)
                if got != want:
                    raise ScenarioFailure(f"step {j + 1}: outcome {field} is {got!r}, expected {want!r}", mark)
        elif kind == "metrics":
            got_all = rs.metric_values(st)
            for name, want in (arg or {}).items():
                if name not in got_all:
                    known = ", ".join(got_all) or "none"
                    raise ScenarioFailure(f"step {j + 1}: no declared metric `{name}` (declared: {known})", mark)
                got = got_all[name]
                want = [float(x) for x in want] if isinstance(want, list) else float(want)
                if got != want:
                    raise ScenarioFailure(f"step {j + 1}: metric {name} is {_plain(got)}, expected {_plain(want)}", mark)
        else:
            raise TapsterError(f"unknown step `{kind}` ({', '.join(STEP_KINDS)})", mark)


def _plain(v: Any) -> str:
    """A metric's value as written: whole numbers without ``.0``."""
    if isinstance(v, list):
        return "[" + ", ".join(_plain(x) for x in v) + "]"
    return str(int(v)) if float(v).is_integer() else str(v)


def _action_text(st, a: Any, mark: Mark) -> str:
    """An action's canonical text; ``keep(drawn[2][0])`` style arguments are evaluated."""
    text = str(a).strip()
    if "(" in text and text.endswith(")"):
        name, inner = text[:-1].split("(", 1)
        for action in st.legal_actions():
            if str(action) == text:
                return text
        try:
            value = _evaluate(st, f"({inner},)", mark)
            from ..model import Action

            return str(Action(name.strip(), tuple(value)))
        except TapsterError:
            return text
    return text


#: An option's argument tuples listed for the `illegal:` check at most (a larger domain is
#: taken as unknown: its option then matches any action of its name and number of arguments).
MAX_LISTED_ACTIONS = 200_000

_ACTION_SHAPE = re.compile(r"^([A-Za-z_][A-Za-z0-9_-]*)(?:\((.*)\))?$", re.S)


def _check_possible(st, text: str, players: int, catalogue: dict, mark: Mark) -> None:
    """Refuse an ``illegal:`` action that no option of the ruleset could ever produce: such a
    step passes whatever the rules say (a typo, ``place(space-feilds)``, is indeed illegal).

    An action's name must be some option's ``action:``, its number of arguments that option's
    ``for`` names, and where the option's values are known without playing
    (:func:`interpreter.interop.domains.option_domain`, a superset of what its ``if:`` lets
    through) the action must be one of them.  A text that is not shaped as an action (a label,
    ``Buy a card``), the label of a legal action now or the label of an option without ``for``
    names (``Stand``) is not checked.  ``catalogue``
    caches, per scenario, the options by name and the texts of their known actions.

    Raises:
        TapsterError: at ``mark``, naming what was expected, the nearest real action(s) and a fix.
    """
    if text.count("(") != text.count(")"):
        raise TapsterError(
            f"`illegal: {text}`: expected an action, found unbalanced brackets; inside a flow list `[...]` "
            "a comma ends the item: quote an action with several arguments (`illegal: [\"lay(c, (1, 0))\"]`)", mark)
    m = _ACTION_SHAPE.match(text)
    if m is None:
        return
    name, inner = m.group(1), m.group(2)
    if st.pending is not None and text in st.decision().labels:
        return
    options = catalogue.get("options")
    if options is None:
        options = catalogue["options"] = {}
        labels = catalogue["labels"] = set()
        for choose in st.ruleset.chooses:
            for o in choose.options:
                options.setdefault(o.name, []).append(o)
                if not o.names:  # a label that reads nothing (`Pass`), shown whenever the option is
                    try:
                        labels.add(o.label(Env(st, {})))
                    except Exception:  # noqa: BLE001 - a label that reads the state: not listed
                        pass
    if text in catalogue["labels"]:
        return
    mine = options.get(name)
    if not mine:
        close = close_matches(name, list(options), n=3)
        hint = f"; did you mean {', '.join(f'`{c}`' for c in close)}?" if close else ""
        known = ", ".join(sorted(options)[:12]) + (", ..." if len(options) > 12 else "")
        raise TapsterError(
            f"`illegal: {text}`: no option of the ruleset has the action `{name}`, so the step would pass "
            f"whatever the rules say{hint} (expected one of the options' actions: {known}; "
            "write an action a decision could offer, as `legal:` lists them)", mark)
    nargs = 0 if inner is None else len(_split_args(inner))
    fitting = [o for o in mine if len(o.names) == nargs]
    if not fitting:
        counts = sorted({len(o.names) for o in mine})
        raise TapsterError(
            f"`illegal: {text}`: the action `{name}` takes {' or '.join(map(str, counts))} argument(s) "
            f"(its option's `for`), found {nargs}; write it as `legal:` lists it", mark)
    texts = []
    for o in fitting:
        key = ("texts", id(o))
        if key not in catalogue:
            catalogue[key] = _option_texts(st.ruleset, o, players)
        if catalogue[key] is None:
            return  # values not known without playing: any action of this name and shape may be real
        if text in catalogue[key]:
            return
        texts.extend(catalogue[key])
    close = close_matches(text, texts, n=3)
    hint = f"; did you mean {', '.join(f'`{c}`' for c in close)}?" if close else ""
    raise TapsterError(
        f"`illegal: {text}`: no option could ever offer this action (its values are listed from the "
        f"option's `in:`), so the step would pass whatever the rules say{hint} (write an action a "
        "decision could offer, as `legal:` lists them)", mark)


def _option_texts(rs, option, players: int) -> set | None:
    """The canonical texts of every action ``option`` can ever produce, or None when they are
    not known without playing (or more than MAX_LISTED_ACTIONS)."""
    from ..interop.domains import option_domain
    from ..model import Action

    if not option.names:
        return {option.name}
    dom = option_domain(rs, option, players)
    if dom is None or len(dom) > MAX_LISTED_ACTIONS:
        return None
    return {str(Action(option.name, tuple(args))) for args in dom}


def _split_args(inner: str) -> list[str]:
    """The top-level comma-separated parts of an action's argument text (``(1, 0)`` is one)."""
    parts, depth, start, quote = [], 0, 0, None
    for i, ch in enumerate(inner):
        if quote:
            if ch == quote and inner[i - 1] != "\\":
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(inner[start:i])
            start = i + 1
    parts.append(inner[start:])
    return [p for p in parts if p.strip()] or ([] if not inner.strip() else [inner])


def _scope_for(st):
    scope = st.ruleset.scope
    if st.pending is not None:
        scope = scope.with_locals(st.pending[1].keys())
    return scope


def _evaluate(st, text: Any, mark: Mark) -> Any:
    loc = dict(st.pending[1]) if st.pending is not None else {}
    compiled = compile_expression(text, _scope_for(st), mark)
    return compiled(Env(st, loc))


def _explain(st, text: str, mark: Mark) -> str:
    """Why an expectation failed: for an ``and``/``or`` chain (nested ones flattened, in the
    order written), each operand with its value (``` `board[4] == 0` is true (left side is 0,
    right side is 0); `current == 1` is false (left side is 0, right side is 1)```), every
    operand evaluated (expressions are pure; one that fails says so); for a comparison, its two
    sides; else "".  Operands are evaluated from the parse tree, so their values are exact; the
    texts shown are cut from ``text`` at the operands' positions."""
    from ..lang.evaluator import Evaluator
    from ..lang.expression import Compiled, parse

    text = str(text)
    try:
        tree = parse(text, mark)
    except TapsterError:
        return ""
    loc = dict(st.pending[1]) if st.pending is not None else {}
    scope = _scope_for(st)

    def value(node) -> tuple[bool, Any]:
        try:
            fn = Evaluator(text, mark).c(node, scope)
            return True, Compiled(fn, text, mark, source=(node, scope))(Env(st, loc))
        except TapsterError as exc:
            return False, exc.message

    def sides(node) -> str:
        if getattr(node, "data", None) != "compare" or len(node.children) != 3:
            return ""
        (lok, lv), (rok, rv) = value(node.children[0]), value(node.children[2])
        if not (lok and rok):
            return ""
        return f"left side is {_show(lv)}, right side is {_show(rv)}"

    if tree.data not in ("and_", "or_"):
        both = sides(tree)
        return f": {both}" if both else ""
    leaves: list = []
    todo = [tree]
    while todo:  # left to right: the operands of and/or, nested chains opened
        node = todo.pop()
        if getattr(node, "data", None) in ("and_", "or_"):
            todo.extend(reversed(node.children))
        else:
            leaves.append(node)
    starts = [_offset(text, leaf) for leaf in leaves] + [len(text)]
    parts = []
    for i, leaf in enumerate(leaves):
        shown = _operand_text(text, starts[i], starts[i + 1])
        ok, v = value(leaf)
        if not ok:
            parts.append(f"`{shown}` fails ({v})")
            continue
        detail = sides(leaf)
        truth = "true" if v else "false"
        what = truth if isinstance(v, bool) else f"{_show(v)} ({truth})"
        parts.append(f"`{shown}` is {what}" + (f" ({detail})" if detail else ""))
    return ": " + "; ".join(parts)


def _offset(text: str, node) -> int:
    """Where ``node`` (a parse tree node or token of ``text``) starts in ``text``."""
    meta = getattr(node, "meta", node)
    line, column = getattr(meta, "line", 1), getattr(meta, "column", 1)
    lines = text.split("\n")
    return sum(len(x) + 1 for x in lines[: line - 1]) + column - 1


def _operand_text(text: str, start: int, end: int) -> str:
    """The text of an operand of an and/or chain from its ``start`` to where the next one
    starts: the joining ``and``/``or`` and brackets that belong around it left out, an opening
    bracket just before it taken in when it closes one."""
    s = text[start:end].rstrip()
    for _ in range(2):
        while s.endswith("(") or s.endswith(" "):
            s = s[:-1]
        for word in (" and", " or"):
            if s.endswith(word):
                s = s[: -len(word)].rstrip()
    while s.count(")") > s.count("(") and s.endswith(")"):
        s = s[:-1].rstrip()
    i = start
    while s.count(")") > s.count("(") and i > 0:
        i -= 1
        if text[i] == "(":
            s = "(" + s
        elif not text[i].isspace():
            break
    return s


def _show(v: Any) -> str:
    if isinstance(v, Component):
        return v.id
    if isinstance(v, list):
        return "[" + ", ".join(_show(x) for x in v) + "]"
    return render(v) if not isinstance(v, (int, float, str)) else repr(v)


def _apply_position(st, position: dict, doc, ppath: tuple) -> None:
    rs = st.ruleset
    for name, value in (position.get("vars") or {}).items():
        if name not in st.vars:
            raise TapsterError(f"no variable `{name}`", doc.mark(ppath + ("vars", name)))
        st.vars[name] = copy.deepcopy(value)
    displaced: list = []
    for zone_text, contents in (position.get("zones") or {}).items():
        zmark = doc.mark(ppath + ("zones", zone_text))
        keyed = _keyed_stack(st, zone_text, zmark)
        if keyed is not None:
            zone = keyed[0].setdefault(keyed[1], [])
        else:
            compiled = compile_expression(zone_text, rs.scope, zmark)
            zone = compiled(Env(st, {}))
        if not isinstance(zone, list) or (zone and isinstance(zone[0], list)):
            raise TapsterError(f"`{zone_text}` is not a single zone", zmark)
        if isinstance(contents, dict):
            top = [_component(rs, c, zmark) for c in contents.get("top", [])]
            for c in top:
                st.remove_anywhere(c, zmark)
            zone.extend(reversed(top))
        else:
            comps = [_component(rs, c, zmark) for c in contents]
            # Components displaced from an exact zone must land somewhere (checked below).
            displaced.extend((c, zmark) for c in zone if c not in comps)
            zone.clear()
            for c in comps:
                if st.zone_of(c) is not None:
                    st.remove_anywhere(c, zmark)
            zone.extend(comps)
        if keyed is not None:  # a keyed zone stores no empty stack; re-store one a removal emptied
            if zone:
                keyed[0][keyed[1]] = zone
            else:
                keyed[0].pop(keyed[1], None)
    if not position.get("remove_displaced"):
        _conserve(st, displaced, position.get("displaced"), doc, ppath)
    for ident, values in (position.get("props") or {}).items():
        pmark = doc.mark(ppath + ("props", ident))
        c = _component(rs, ident, pmark)
        for pname, value in (values or {}).items():
            if pname not in c.mutable:
                known = ", ".join(sorted(c.mutable)) or "none"
                raise TapsterError(f"{c.id} has no mutable property `{pname}` (its properties: {known})", pmark)
            st.props[c.index][pname] = value


def _conserve(st, displaced: list, to: Any, doc, ppath: tuple) -> None:
    """Keep every component in exactly one place: the components an exact zone list displaced
    and no other entry of the position placed go to the zone ``to`` (the position's
    ``displaced:``, e.g. ``deck``), on top in the order they were displaced; without it the
    position is refused naming them (a scenario never silently takes components out of the game;
    ``remove_displaced: true`` says so, for a short deck).

    Raises:
        TapsterError: components would lie in no zone, or ``displaced:`` is not a single zone.
    """
    lost = []
    for c, _zmark in displaced:
        if st.zone_of(c) is None and c not in lost:
            lost.append(c)
    if not lost:
        return
    if to is None:
        names = ", ".join(c.id for c in lost[:8]) + (f" and {len(lost) - 8} more" if len(lost) > 8 else "")
        raise TapsterError(
            f"this position takes {len(lost)} component(s) out of the game ({names}): every component stays in "
            "exactly one place, so list them in another zone, say where the displaced ones go "
            "(`displaced: deck`) or that they leave the game (`remove_displaced: true`)", displaced[0][1])
    dmark = doc.mark(ppath + ("displaced",))
    zone = compile_expression(str(to), st.ruleset.scope, dmark)(Env(st, {})) if isinstance(to, str) else None
    if not isinstance(zone, list) or (zone and isinstance(zone[0], list)):
        raise TapsterError(f"`displaced` must name a single zone (`deck`, `hand[0]`), not {to!r}", dmark)
    zone.extend(lost)


def _keyed_stack(st, zone_text: str, mark: Mark):
    """(the keyed zone's dict, the key) for a position entry such as ``"field[(0, 1)]"``, or None
    when the text names no keyed zone."""
    name, bracket, rest = zone_text.partition("[")
    decl = st.ruleset.zones.get(name.strip())
    if decl is None or not decl.keyed or not bracket or not rest.rstrip().endswith("]"):
        return None
    key = compile_expression(rest.rstrip()[:-1], st.ruleset.scope, mark)(Env(st, {}))
    return st.zones[decl.name], key


def _component(rs: Ruleset, ident: Any, mark: Mark) -> Component:
    c = rs.by_id.get(str(ident))
    if c is None:

        close = close_matches(str(ident), list(rs.by_id), n=3)
        raise TapsterError(f"no component {ident!r}{'; did you mean ' + ', '.join(close) + '?' if close else ''}", mark)
    return c


