"""Parameter declarations and variant composition (issue 17).

A parameter is a plain value (``turns: 10``) or a declaration giving its kind and range::

    params:
      turns: {value: 10, min: 1, max: 100, description: rounds of play}
      colour: {value: red, kind: text}

A declaration is a mapping whose keys are among ``value, kind, min, max, description``, holding
``value`` and at least one other of them.  A variant, a scenario or ``--param`` that changes a
declared parameter gives a plain value and keeps the declaration: the new value is checked
against it (``--param turns=-1`` is refused).

Variants compose: ``--variant a,b`` overlays ``a`` then ``b``; a variant with ``extends: a`` (or
a list) overlays those first.
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["DECLARATION_KEYS", "KINDS", "is_declaration", "keep_declarations", "param_values", "variant_chain"]

DECLARATION_KEYS = frozenset({"value", "kind", "min", "max", "description"})

#: Kind name -> (test of a value, what the error says it expected).
KINDS: dict[str, tuple[Callable[[object], bool], str]] = {
    "integer": (lambda v: isinstance(v, int) and not isinstance(v, bool), "a whole number"),
    "number": (lambda v: isinstance(v, (int, float)) and not isinstance(v, bool), "a number"),
    "text": (lambda v: isinstance(v, str), "text"),
    "boolean": (lambda v: isinstance(v, bool), "true or false"),
    "list": (lambda v: isinstance(v, list), "a list"),
    "mapping": (lambda v: isinstance(v, dict), "a mapping"),
}


def is_declaration(value: object) -> bool:
    """``value`` is a parameter declaration (``{value: 10, min: 1}``), not a mapping value."""
    return (isinstance(value, dict) and "value" in value and len(value) > 1
            and all(isinstance(k, str) and k in DECLARATION_KEYS for k in value))


def keep_declarations(base_params: object, over: dict) -> dict:
    """The overlay ``over`` (a variant's keys or overrides like ``{"params": {...}}``) with each
    plain value of a parameter declared in ``base_params`` wrapped as ``{"value": v}``, so that
    the overlay's recursive merge keeps the declaration's kind and range."""
    params = over.get("params")
    if not isinstance(base_params, dict) or not isinstance(params, dict):
        return over
    wrapped = {k: ({"value": v} if is_declaration(base_params.get(k)) and not is_declaration(v) else v) for k, v in params.items()}
    return {**over, "params": wrapped}


def param_values(params: dict, error: Callable[[str, str], None]) -> dict:
    """The parameters' values (declarations unwrapped); every value that breaks its declaration
    (kind, ``min``, ``max``) is reported as ``error(message, name)`` and kept as given."""
    out = {}
    for name, spec in params.items():
        if not is_declaration(spec):
            out[name] = spec
            continue
        value, kind = spec["value"], spec.get("kind")
        out[name] = value
        if kind is None and ("min" in spec or "max" in spec):
            kind = "number"
        if kind is not None:
            if kind not in KINDS:
                error(f"parameter {name}: unknown kind {kind!r} (kinds: {', '.join(KINDS)})", name)
                continue
            test, expected = KINDS[kind]
            if not test(value):
                error(f"parameter {name} is {value!r}; it must be {expected}", name)
                continue
        for bound, ok, word in (("min", lambda v, b: v >= b, "at least"), ("max", lambda v, b: v <= b, "at most")):
            if bound in spec:
                b = spec[bound]
                if not KINDS["number"][0](b):
                    error(f"parameter {name}: `{bound}` must be a number, not {b!r}", name)
                elif not ok(value, b):
                    error(f"parameter {name} is {value!r}; it must be {word} {b}", name)
    return out


def variant_chain(variants: dict, names: list[str]) -> list[str]:
    """The variants to overlay, in order, for ``names`` (each preceded by what it ``extends``,
    transitively; each variant once).

    Raises:
        ValueError: an unknown variant (the message names it and the known ones), or a cycle of
            ``extends``.
    """
    out: list[str] = []

    def visit(name: str, trail: tuple[str, ...]) -> None:
        if name in trail:
            raise ValueError(f"variant {name!r} extends itself ({' -> '.join(trail + (name,))})")
        if name not in variants:
            who = f" (extended by {trail[-1]!r})" if trail else ""
            raise ValueError(f"no variant {name!r}{who} (variants: {', '.join(variants) or 'none'})")
        base = (variants[name] or {}).get("extends") or []
        for b in [base] if isinstance(base, str) else base:
            visit(b, trail + (name,))
        if name not in out:
            out.append(name)

    for n in names:
        visit(n, ())
    return out
