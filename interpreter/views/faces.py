"""Card faces: what a card shows its reader, composed from its table row by the ruleset's
``display.faces`` and ``display.abilities`` (the shared ability vocabulary in words).

::

    display:
      abilities:                                # one template per ability name; `arg` is its argument
        bonus: "+{arg} to your Battle Bonus"
        draw: "Draw a {arg}"
      faces:
        card:                                   # a component kind
          title: "{name}"                       # default: the card's label
          short: "{name} ({type} {power})"      # hands, piles, beside option labels; default: the title
          lines: ["{type} · Card Power {power}"]   # the fields a player reads; empty lines left out
          abilities:                            # one line per slot whose `name` field is filled:
            - {title: Liquid Courage, name: lc, arg: lc_arg}   #   "Liquid Courage: +3 to your Battle Bonus"

Every template reads only the card's static fields (its row, ``derived`` fields, ``id``,
``kind``) and the parameters, never the game, and is evaluated once when the ruleset compiles:
a face is a function of the card alone.  So a view shows a face exactly where it shows the
card's identity (a card it may not see is a count or a back, and has no face there), and no
face can tell a seat more than the card's name already does.

:func:`compile_faces` builds ``{component id: Face}``; :func:`face_of` looks one up.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

from ..errors import TapsterError
from ..lang.expression import Env, Scope

if TYPE_CHECKING:  # pragma: no cover
    from ..compile.compiler import Ctx
    from ..compile.ruleset import Ruleset

__all__ = ["Face", "compile_faces", "face_of"]


class Face(NamedTuple):
    """A card's face: ``title`` (str), ``short`` (str, the one-line form) and ``lines`` (tuple
    of str: the fields, then one ``TITLE: TEXT`` line per ability)."""

    title: str
    short: str
    lines: tuple

    def one_line(self) -> str:
        """The face on one line: its lines joined with `` · `` (the title left out)."""
        return " · ".join(self.lines)

    def to_json(self) -> dict:
        """``{"title", "short", "lines"}``."""
        return {"title": self.title, "short": self.short, "lines": list(self.lines)}


def face_of(rs: Ruleset, cid: Any) -> Face | None:
    """The face of component ``cid`` (an id), or None when its kind declares none."""
    d = getattr(rs, "display", None)
    faces = getattr(d, "faces", None) if d is not None else None
    return faces.get(cid) if faces and isinstance(cid, str) else None


def compile_faces(ctx: Ctx, spec: Any, vocabulary: Any) -> dict[str, Face]:
    """Compile ``display.faces`` (``spec``) with ``display.abilities`` (``vocabulary``) and
    evaluate every face of every component of the kinds named.  Returns ``{id: Face}`` ({}
    without faces).

    Raises:
        CompileError: a kind that is not declared; an ability slot naming a field the kind lacks;
            a card whose ability has no text in ``display.abilities`` (named, with the card); a
            template reading something else than the card's fields and the parameters, or
            failing on a card's row.
    """
    rs = ctx.rs
    params = rs.params
    words: dict[str, Any] = {}
    for word, text in (vocabulary or {}).items():
        scope = Scope(resolve=lambda n: _const(params[n]) if n in params else None, locals=frozenset({"arg"}),
                      global_names=lambda: list(params))
        words[word] = ctx.template(text, ("display", "abilities", word), scope)
    out: dict[str, Face] = {}
    for kname, fspec in (spec or {}).items():
        path = ("display", "faces", kname)
        kind = rs.kinds.get(kname)
        if kind is None:
            raise ctx.error(f"`faces` takes component kinds; there is no kind {kname!r} (kinds: {', '.join(rs.kinds)})", path)
        fields = frozenset(kind.fields) | {"id", "kind"}
        scope = Scope(resolve=lambda n: _const(params[n]) if n in params else None, locals=fields,
                      global_names=lambda: list(params))
        title = ctx.template(fspec["title"], path + ("title",), scope) if "title" in fspec else None
        short = ctx.template(fspec["short"], path + ("short",), scope) if "short" in fspec else None
        lines = [ctx.template(t, path + ("lines", i), scope) for i, t in enumerate(fspec.get("lines") or [])]
        slots = []
        for i, ab in enumerate(fspec.get("abilities") or []):
            for key in ("name", "arg"):
                if key in ab and ab[key] not in fields:
                    raise ctx.error(f"`{key}` names a field of `{kname}`; it has no field {ab[key]!r}",
                                    path + ("abilities", i, key))
            slots.append((str(ab["title"]), ab["name"], ab.get("arg"), path + ("abilities", i)))
        for c in kind.components:
            env = Env(None, dict(c.fields))
            try:
                t = title(env) if title else c.label
                s = short(env) if short else t
                body = [text for text in (f(env) for f in lines) if text.strip()]
            except TapsterError as exc:
                raise ctx.error(f"the face of {c.label} ({c.id}) cannot be drawn: {exc.message}", path) from None
            for stitle, name, arg, spath in slots:
                word = c.fields.get(name)
                if word is None or word == "":
                    continue
                if word not in words:
                    raise ctx.error(f"{c.label} ({c.id}) has the {stitle} ability {word!r}, which has no text under "
                                    f"`display.abilities` (known: {', '.join(sorted(words)) or 'none'})", spath)
                env.loc = {"arg": c.fields.get(arg) if arg else None}
                try:
                    body.append(f"{stitle}: {words[word](env)}")
                except TapsterError as exc:
                    raise ctx.error(f"the {stitle} text of {c.label} ({c.id}), `{word}`, cannot be drawn: {exc.message}",
                                    ("display", "abilities", word)) from None
            out[c.id] = Face(t, s, tuple(body))
    return out


def _const(value: Any):
    f = lambda env: value  # noqa: E731
    f.constant = value  # type: ignore[attr-defined]
    return f
