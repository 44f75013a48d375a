"""A saved state as JSON data: values encoded and decoded, and a document checked before a
state is built from it.

:meth:`State.to_json <interpreter.engine.state.State.to_json>` writes a state with
:func:`encode_value` (components as ids, tuples and dicts tagged, ``while`` conditions by
index) and refuses one too large to save (:func:`check_size`);
:meth:`State.from_json <interpreter.engine.state.State.from_json>` reads it back with
:func:`decode_value` after :func:`check_saved` has checked the document against the ruleset
(seats, zones, every component once, frames, the pending decision), so that a damaged or forged
document is a clear error, never a raw Python one.  :func:`state_to_json` and
:func:`state_from_json` are those two methods' bodies.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, Any

from ..errors import TapsterError
from ..lang.expression import Env
from ..limits import MAX_INT_BITS, MAX_SAVED_DEPTH, MAX_SAVED_SIZE
from ..loader.schema import check_document as schema_check
from ..model import Component
from . import chance as chance_mod
from . import flow
from .chance import ChancePoint
from .places import Keyed
from .rng import is_state as rng_state_ok

if TYPE_CHECKING:  # pragma: no cover
    from ..compile.ruleset import Ruleset
    from .state import State

__all__ = ["encode_value", "decode_value", "check_size", "check_saved", "json_text", "layout", "state_to_json", "state_from_json"]


def encode_value(v: Any, rs: Any = None) -> Any:
    """A value as JSON data: components become ``{"c": id}``, tuples ``{"t": [...]}``,
    dicts ``{"d": [[k, v], ...]}``, compiled conditions (in ``while`` loops) their index."""
    t = type(v)
    if v is None or t in (int, str, bool, float):
        return v
    if t is Component:
        return {"c": v.id}
    if t is list:
        return [encode_value(x, rs) for x in v]
    if t is tuple:
        if rs is not None and v and v[0] == flow.WHILE:
            return {"t": [flow.WHILE, rs.while_conds.index(v[1])]}
        return {"t": [encode_value(x, rs) for x in v]}
    if t is dict or isinstance(v, dict):  # a dict, or a keyed zone's contents
        return {"d": [[encode_value(k, rs), encode_value(x, rs)] for k, x in v.items()]}
    raise TypeError(f"cannot save a value of type {t.__name__}")


def decode_value(v: Any, rs: Ruleset) -> Any:
    """The inverse of :func:`encode_value` for ruleset ``rs``."""
    t = type(v)
    if t is list:
        return [decode_value(x, rs) for x in v]
    if t is dict:
        if "c" in v:
            return rs.by_id[v["c"]]
        if "t" in v:
            return tuple(decode_value(x, rs) for x in v["t"])
        if "d" in v:
            return {decode_value(k, rs): decode_value(x, rs) for k, x in v["d"]}
        raise ValueError(f"unknown saved value {v!r}")
    return v


def check_size(data: Any) -> None:
    """Raise when the JSON data ``data`` would be larger than :data:`MAX_SAVED_SIZE`."""
    left = MAX_SAVED_SIZE
    todo = [data]
    while todo:
        x = todo.pop()
        t = type(x)
        if t is str:
            left -= len(x)
        elif t is list:
            left -= len(x)
            todo.extend(x)
        elif t is dict:
            left -= len(x)
            todo.extend(x.keys())
            todo.extend(x.values())
        if left < 0:
            raise TapsterError(
                f"this state is too large to save (more than {MAX_SAVED_SIZE} characters and items): "
                "a rule keeps a value that grows without end")


def check_saved(rs: Ruleset, data: dict) -> None:
    """Check a saved state (already valid against ``state.schema.json``) against the ruleset
    ``rs``: the seat count in range, exactly the declared zones and variables, each zone's shape,
    every component exactly once, mutable properties that exist, frames that name real blocks
    and effects, a pending decision or chance point that exists, seats in range, values nested
    at most :data:`MAX_SAVED_DEPTH` deep.

    Raises:
        TapsterError: the first problem found, saying where.
    """

    def bad(msg: str):
        return TapsterError(f"malformed saved state: {msg}")

    n = data["num_players"]
    if not rs.min_players <= n <= rs.max_players:
        raise bad(f"{n} players; {rs.title} is for {rs.min_players} to {rs.max_players}")
    if set(data["zones"]) != set(rs.zones):
        raise bad(f"zones {sorted(data['zones'])} are not the ruleset's {sorted(rs.zones)}")
    if set(data["vars"]) != set(rs.vars):
        raise bad(f"variables {sorted(data['vars'])} are not the ruleset's {sorted(rs.vars)}")
    for section in ("zones", "vars", "props", "stack", "pending", "lazy"):
        if section in data and _depth(data[section]) > MAX_SAVED_DEPTH:
            raise bad(f"`{section}` is nested more than {MAX_SAVED_DEPTH} deep")
        problem = _bad_leaf(data.get(section))
        if problem:
            raise bad(f"`{section}` holds {problem}")
    seen: set[str] = set()

    def leaf(z, where):
        if not isinstance(z, list):
            raise bad(f"{where} must be a list of components")
        for c in z:
            if not (isinstance(c, dict) and set(c) == {"c"} and isinstance(c["c"], str) and c["c"] in rs.by_id):
                raise bad(f"{where} holds {json_text(c)}, not a component of the ruleset")
            if c["c"] in seen:
                raise bad(f"component {c['c']} is in two places (again in {where})")
            seen.add(c["c"])

    def nested(z, depth, sizes, where):
        if depth == 0:
            return leaf(z, where)
        if not isinstance(z, list) or len(z) != sizes[0]:
            raise bad(f"{where} must be a list of {sizes[0]}")
        for i, sub in enumerate(z):
            nested(sub, depth - 1, sizes[1:], f"{where}[{i}]")

    for name, decl in rs.zones.items():
        z = data["zones"][name]
        if decl.keyed:
            if not (isinstance(z, dict) and set(z) == {"d"} and isinstance(z["d"], list)):
                raise bad(f"keyed zone `{name}` must be {{\"d\": [[key, [components]], ...]}}")
            for pair in z["d"]:
                if not (isinstance(pair, list) and len(pair) == 2):
                    raise bad(f"keyed zone `{name}` holds {json_text(pair)}, not [key, [components]]")
                leaf(pair[1], f"{name}[{json_text(pair[0])}]")
            continue
        sizes = ([n] if decl.per_player else []) + ([decl.count] if decl.count is not None else [])
        nested(z, decl.depth, sizes, name)
    if len(seen) != len(rs.components):
        missing = [c.id for c in rs.components if c.id not in seen][:5]
        raise bad(f"components missing from every zone: {', '.join(missing)}")
    for cid, props in data["props"].items():
        comp = rs.by_id.get(cid)
        pairs = props.get("d") if isinstance(props, dict) else None
        if comp is None or not isinstance(pairs, list) or not all(
            isinstance(pr, list) and len(pr) == 2 and isinstance(pr[0], str) and pr[0] in comp.mutable for pr in pairs
        ):
            raise bad(f"`props` for {cid!r}: not a component with those mutable properties")
    if not rng_state_ok(int(data["rng"])):
        raise bad("`rng`: the generator's state is neither a 64-bit one nor a secure one (a 256-bit key and a 64-bit counter)")
    for i, (block, pc, _, loop) in enumerate(data["stack"]):
        if block >= len(rs.blocks) or pc > len(rs.blocks[block].effects):
            raise bad(f"frame {i} names block {block} at effect {pc}, which the ruleset does not have")
        if loop is not None:
            kind = loop.get("t", [None])[0] if isinstance(loop, dict) and isinstance(loop.get("t"), list) and loop["t"] else None
            if kind not in (flow.EACH, flow.TIMES, flow.WHILE):
                raise bad(f"frame {i} has a loop {json_text(loop)} of no known kind")
            if kind == flow.WHILE and not (len(loop["t"]) == 2 and type(loop["t"][1]) is int
                                           and 0 <= loop["t"][1] < len(rs.while_conds)):
                raise bad(f"frame {i} names a `while` condition the ruleset does not have")
    pending = data["pending"]
    if pending is not None:
        if "choose" in pending and pending["choose"] >= len(rs.chooses):
            raise bad(f"the pending decision {pending['choose']} does not exist")
        if "chance" in pending and pending["chance"]["effect"] >= len(rs.chance_effects):
            raise bad("the pending chance point does not exist")
    elif not data["finished"]:
        raise bad("no decision is pending and the game has not ended")
    if data["current"] >= n or len(data["turns"]) != n:
        raise bad(f"seat {data['current']} or {len(data['turns'])} turn counts in a game of {n}")
    order = data.get("order", [])
    if any(p >= n or not data["turns"][p] for p in order):
        raise bad(f"the turn order {order} names a seat that has not begun a turn in a game of {n}")


def _bad_leaf(v) -> str | None:
    """What in ``v`` (already known to nest at most MAX_SAVED_DEPTH deep) JSON and a game cannot
    hold: a whole number of more than MAX_INT_BITS bits, a float that is not finite, a value
    that is not JSON data; None when all is well."""
    todo = [v]
    while todo:
        x = todo.pop()
        t = type(x)
        if t is list:
            todo.extend(x)
        elif t is dict:
            todo.extend(x.values())
            if any(type(k) is not str for k in x):
                return "an object key that is not text"
        elif t is int:
            if x.bit_length() > MAX_INT_BITS:
                return f"a whole number of more than {MAX_INT_BITS} bits"
        elif t is float:
            if x != x or x in (float("inf"), float("-inf")):
                return "a number that is not finite"
        elif t not in (str, bool) and x is not None:
            return f"a {t.__name__}, which is not JSON data"
    return None


def _depth(v, limit: int = MAX_SAVED_DEPTH + 1) -> int:
    """How deeply ``v`` nests (lists and objects), counted up to ``limit`` without recursion."""
    deepest = 0
    todo = [(v, 1)]
    while todo:
        x, d = todo.pop()
        if d > deepest:
            deepest = d
            if deepest >= limit:
                return deepest
        if isinstance(x, list):
            todo.extend((y, d + 1) for y in x)
        elif isinstance(x, dict):
            todo.extend((y, d + 1) for y in x.values())
    return deepest


def json_text(v: Any) -> str:
    """A short JSON text of ``v`` for a message."""
    import json

    try:
        text = json.dumps(v)
    except (TypeError, ValueError, RecursionError):
        text = repr(type(v))
    return text if len(text) <= 80 else text[:77] + "..."


def layout(rs: Ruleset) -> str:
    """A fingerprint (64 hex digits) of every place a saved state names in ``rs``: its blocks in
    order, each with its effects' verbs, the names they bind and the procedures they call; its
    decisions with their options and the names those bind; its ``while`` conditions and chance
    points (counted); its components (ids, kinds, mutable properties); its zones' shapes and its
    variables' names; the variant and the chance mode.  Blocks, decisions and conditions are
    saved by number, so a state saved under another version of the ruleset whose flow was
    edited (an effect added, a procedure moved) would resume at the wrong effect:
    :func:`state_from_json` refuses it.  An edit that keeps all these (a number, a condition, a
    label, a comment) keeps the fingerprint: the game resumes under the new rules.  Worked out
    once per compiled ruleset."""
    done = getattr(rs, "_layout", None)
    if done is not None:
        return done
    parts: list = [rs.name, rs.variant, rs.chance]
    for block in rs.blocks:
        parts.append(("block", tuple(
            (e.verb or type(e).__name__, tuple(getattr(e, "binds", ()) or ()), getattr(getattr(e, "proc", None), "name", None))
            for e in block.effects
        )))
    for choose in rs.chooses:
        parts.append(("choose", choose.name, tuple((o.name, tuple(o.names)) for o in choose.options)))
    parts += [("while", len(rs.while_conds)), ("chance", len(rs.chance_effects))]
    parts += [("component", c.id, c.kind, tuple(sorted(c.mutable))) for c in rs.components]
    parts += [("zone", name, depth) for name, depth in rs.zone_depths]
    parts += [("var", name, rs.vars[name].per_player) for name in rs.vars]
    done = hashlib.sha256(repr(parts).encode("utf-8", "backslashreplace")).hexdigest()
    rs._layout = done
    return done


def state_to_json(self: State) -> dict:
    """The whole state as JSON data (components as ids, blocks as ids)."""
    rs = self.ruleset
    pending = None
    if self.pending is not None:
        choose, loc, _, _ = self.pending
        if type(choose) is ChancePoint:
            pending = {"chance": choose.to_json(lambda v: encode_value(v, rs)), "locals": encode_value(loc)}
        else:
            pending = {"choose": choose.id, "locals": encode_value(loc)}
    out = {
        "ruleset": rs.name,
        "variant": rs.variant,
        "layout": layout(rs),
        "num_players": self.num_players,
        "zones": {name: encode_value(self.zones[name]) for name, _ in rs.zone_depths},
        "vars": {k: encode_value(v) for k, v in self.vars.items()},
        "props": {rs.components[i].id: encode_value(d) for i, d in sorted(self.props.items())},
        "rng": str(self.rng),
        "stack": [
            [block.id, pc, encode_value(loc), encode_value(loop, rs)] for block, pc, loc, loop in self.stack
        ],
        "pending": pending,
        "current": self.current,
        "turns": list(self.turns),
        "order": list(self.order),
        "phase": self.phase,
        "finished": self.finished,
        "reason": self.reason,
        "log": None if self.log is None else [[list(to) if to else None, text] for to, text in self.log],
    }
    if self.chance != "sample":
        out["chance"] = self.chance
        out["lazy"] = [
            [encode_value(list(k)), [sorted(c.id for c in g) for g in v]]
            for k, v in sorted(self.lazy.items(), key=lambda kv: repr(kv[0]))
        ]
    check_size(out)
    return out


def state_from_json(cls: type[State], ruleset: Ruleset, data: dict) -> State:
    """Rebuild a state saved by :meth:`to_json` for the same (compiled) ruleset.

    ``data`` is checked against the published ``schemas/state.schema.json`` and then against
    the ruleset (:func:`~interpreter.engine.saved.check_saved`) before anything is built from it.

    Raises:
        TapsterError: the data is for another ruleset or variant, or is malformed (never
            a raw Python error, whatever the document holds).
    """
    if not isinstance(data, dict):
        raise TapsterError(f"malformed saved state: expected a JSON object, found {type(data).__name__}")
    problem = schema_check(data, "state.schema.json")
    if problem is not None:
        raise TapsterError(f"malformed saved state: {problem}")
    try:
        mode = data.get("chance", "sample")
        if mode not in chance_mod.MODES:
            raise TapsterError(f"malformed saved state: unknown chance mode {mode!r}")
        ruleset = ruleset.with_chance(mode)
        if data.get("ruleset") != ruleset.name or data.get("variant") != ruleset.variant:
            raise TapsterError(
                f"this state is for {data.get('ruleset')!r} (variant {data.get('variant')!r}), "
                f"not {ruleset.name!r} (variant {ruleset.variant!r})"
            )
        if "layout" in data and data["layout"] != layout(ruleset):  # (a state saved before layouts were written has none)
            raise TapsterError(
                f"this game was saved with another version of {ruleset.name!r}: its flow, decisions or components "
                "are not where they were when it was saved, so it cannot be resumed (replay its actions in a new game)"
            )
        check_saved(ruleset, data)
        st = cls.__new__(cls)
        st.ruleset = ruleset
        st.num_players = int(data["num_players"])
        st.zones = {name: decode_value(data["zones"][name], ruleset) for name, _ in ruleset.zone_depths}
        for name, depth in ruleset.zone_depths:
            if depth < 0:
                st.zones[name] = Keyed(st.zones[name])
        st.vars = {k: decode_value(v, ruleset) for k, v in data["vars"].items()}
        st.props = {ruleset.by_id[k].index: decode_value(v, ruleset) for k, v in data["props"].items()}
        st.rng = int(data["rng"])
        st.stack = []
        for block_id, pc, loc, loop in data["stack"]:
            loop = decode_value(loop, ruleset)
            if loop is not None and loop[0] == flow.WHILE:
                loop = (flow.WHILE, ruleset.while_conds[loop[1]])
            elif loop is not None:
                loop = (getattr(flow, loop[0].upper()),) + tuple(loop[1:])
            st.stack.append((ruleset.blocks[block_id], pc, decode_value(loc, ruleset), loop))
        st.current = data["current"]
        st.turns = list(data["turns"])
        st.order = tuple(data.get("order", ()))
        st.phase = data["phase"]
        st.finished = data["finished"]
        st.reason = data["reason"]
        st.log = None if data["log"] is None else [(tuple(to) if to else None, text) for to, text in data["log"]]
        st.env = Env(st, {})
        st._outcome = None
        st.pending = None
        st.chance = mode
        st.base = ("data", ruleset, data)
        st.history = None
        st.record = None
        st.lazy = {}
        st.where = {}
        st.places = {}
        for key, groups in data.get("lazy") or ():
            st.lazy[tuple(decode_value(key, ruleset))] = [{ruleset.by_id[i] for i in ids} for ids in groups]
        if data["pending"] is not None and "chance" in data["pending"]:
            point, _, actions, players = chance_mod.restore_point(st, data["pending"]["chance"], lambda v: decode_value(v, ruleset))
            st.pending = (point, decode_value(data["pending"]["locals"], ruleset), actions, players)
        elif data["pending"] is not None:
            choose = ruleset.chooses[data["pending"]["choose"]]
            loc = decode_value(data["pending"]["locals"], ruleset)
            env = st.env
            env.loc = loc
            player = choose.player(env)
            players = tuple(player) if isinstance(player, (list, tuple)) else (player,)
            st.pending = (choose, loc, choose.legal(st, loc), players)
        return st
    except TapsterError:
        raise
    except (KeyError, IndexError, TypeError, ValueError, AttributeError, RecursionError, ArithmeticError) as exc:
        raise TapsterError(f"malformed saved state: {type(exc).__name__}: {exc}") from None
