"""Where a map's labels go so that no two overlap, however the places crowd (issue 27: a
cluster of towns close together on a road map).

:func:`place_labels` puts each node's label block (its name, then the pieces on it) beside the
node when there is room, else at the nearest free spot around it — on rings of growing radius —
joined to the node by a leader line.  A block never overlaps another block, a node's dot, or the
picture's edge.  Text widths are known exactly because the map's labels are drawn in a monospace
font (:data:`CHAR_WIDTH` per character at the font size), so the boxes computed here are the
boxes the browser draws.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

__all__ = ["CHAR_WIDTH", "LINE_HEIGHT", "Box", "block_size", "overlaps", "place_labels"]

#: The advance of one character of the map's monospace font, as a fraction of the font size
#: (DejaVu Sans Mono, Liberation Mono and the other common monospace fonts: 0.600–0.602), with a margin.
CHAR_WIDTH = 0.62
#: A label line's height as a fraction of its font size.
LINE_HEIGHT = 1.25
#: The radius kept free around a node's dot (pixels of the picture).
DOT = 7.0
#: The gap between a node and its label beside it.
GAP = 4.0


class Box(NamedTuple):
    """A label block's box ``(x0, y0, x1, y1)`` in the picture's pixels (y downward) and whether
    it sits away from its node (``leader``: a line joins them)."""

    x0: float
    y0: float
    x1: float
    y1: float
    leader: bool = False


def block_size(lines: Sequence[tuple[str, float]]) -> tuple[float, float]:
    """The width and height of a block of ``(text, font size)`` lines."""
    if not lines:
        return 0.0, 0.0
    return (max(len(t) * CHAR_WIDTH * size for t, size in lines), sum(LINE_HEIGHT * size for _, size in lines))


def overlaps(a: Box | tuple, b: Box | tuple, pad: float = 0.0) -> bool:
    """Whether boxes ``a`` and ``b`` (``x0, y0, x1, y1``) overlap, each grown by ``pad``."""
    return a[0] - pad < b[2] and b[0] - pad < a[2] and a[1] - pad < b[3] and b[1] - pad < a[3]


def _hits_dot(box: tuple, dots: Sequence[tuple[float, float]]) -> bool:
    for x, y in dots:
        cx = min(max(x, box[0]), box[2])
        cy = min(max(y, box[1]), box[3])
        if (cx - x) ** 2 + (cy - y) ** 2 < DOT * DOT:
            return True
    return False


def _misses(x1: float, y1: float, x2: float, y2: float, box: tuple) -> bool:
    """Whether the segment from ``(x1, y1)`` to ``(x2, y2)`` certainly has no point inside
    ``box`` (``x0, y0, x1, y1``): it is clipped to the box (Liang-Barsky) grown by a margin far
    above floating point's error, so a segment that touches the box is never said to miss it."""
    e = 1e-6
    lo, hi = 0.0, 1.0
    for d, a, b0, b1 in ((x2 - x1, x1, box[0] - e, box[2] + e), (y2 - y1, y1, box[1] - e, box[3] + e)):
        if d == 0.0:
            if a < b0 or a > b1:
                return True
            continue
        t0, t1 = (b0 - a) / d, (b1 - a) / d
        if t0 > t1:
            t0, t1 = t1, t0
        lo, hi = max(lo, t0), min(hi, t1)
        if lo > hi:
            return True
    return False


def _crosses(seg: tuple, box: tuple) -> bool:
    """Whether the segment ``((x1, y1), (x2, y2))`` passes through ``box`` (sampled every pixel,
    its end on the box's edge not counted).  A segment that misses the box altogether (most, as
    labels are placed) is known so at once (:func:`_misses`); the others are sampled."""
    (x1, y1), (x2, y2) = seg
    inner = (box[0] + 0.5, box[1] + 0.5, box[2] - 0.5, box[3] - 0.5)
    if _misses(x1, y1, x2, y2, inner):  # no sample can lie inside
        return False
    steps = max(1, int(math.dist((x1, y1), (x2, y2))))
    for k in range(steps):
        t = k / steps
        px, py = x1 + (x2 - x1) * t, y1 + (y2 - y1) * t
        if inner[0] < px < inner[2] and inner[1] < py < inner[3]:
            return True
    return False


#: The 24 directions of a ring of candidate spots, ``(cos a, sin a)``, computed once.
_RING = tuple((math.cos(2 * math.pi * k / 24), math.sin(2 * math.pi * k / 24)) for k in range(24))


def place_labels(points: Sequence[tuple[float, float]], sizes: Sequence[tuple[float, float]], width: float,
                 height: float, max_radius: float = 600.0) -> list[Box | None]:
    """A box for each label: ``points`` the nodes' positions, ``sizes`` their blocks' ``(w, h)``
    (:func:`block_size`; ``(0, 0)``: no label), in a picture of ``width`` x ``height`` pixels.

    Nodes with the fewest neighbours within 60 pixels are served first (a lone node keeps its
    label beside it); each takes the first free spot of: right or left of its dot, above or below
    it, then points on rings every 12 pixels out to ``max_radius`` in 24 directions (a leader
    line, which crosses no block and which no later block crosses; where no such spot is left,
    the first spot free of blocks and dots, its leader line allowed to cross).  Returns one :class:`Box`
    per node (None for no label, or, never for the shipped maps, no free spot at all).  Deterministic: the same input, the same boxes."""
    n = len(points)
    crowd = [sum(1 for q in points if q is not p and math.dist(p, q) < 60) for p in points]
    order = sorted(range(n), key=lambda i: (crowd[i], i))
    placed: list[tuple] = []
    leaders: list[tuple] = []  # the leader lines drawn so far: no block is put across one
    out: list[Box | None] = [None] * n
    for i in order:
        w, h = sizes[i]
        if w <= 0 or h <= 0:
            continue
        x, y = points[i]
        candidates = [(x + GAP + DOT, y - h / 2), (x - GAP - DOT - w, y - h / 2), (x - w / 2, y - DOT - GAP - h),
                      (x - w / 2, y + DOT + GAP), (x + GAP, y - h - GAP), (x + GAP, y + GAP)]
        near = len(candidates)
        r = 12.0
        while r <= max_radius:
            for c, sn in _RING:
                px, py = x + r * c, y + r * sn
                candidates.append((px if c >= 0 else px - w, py - h / 2))
            r += 12.0
        for j, (bx, by, strict) in enumerate([(bx, by, True) for bx, by in candidates] + [(bx, by, False) for bx, by in candidates]):
            j %= len(candidates)
            box = (bx, by, bx + w, by + h)
            if box[0] < 0 or box[1] < 0 or box[2] > width or box[3] > height:
                continue
            if any(overlaps(box, other, 1.0) for other in placed) or _hits_dot(box, points):
                continue
            if strict and any(_crosses(seg, box) for seg in leaders):
                continue
            seg = None
            if j >= near:
                seg = ((x, y), (min(max(x, box[0]), box[2]), min(max(y, box[1]), box[3])))
                if strict and any(_crosses(seg, other) for other in placed):
                    continue
                leaders.append(seg)
            placed.append(box)
            out[i] = Box(*box, leader=seg is not None)
            break
    return out
