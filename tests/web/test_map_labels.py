"""The map's labels never overlap (issue 27: the Brussels cluster of Belgian Beers Race): on the
layout interpreter/views/maplabels.py computes, and as Chromium draws the page's SVG with the
table's stylesheet; map nodes are clickable with the actions that name them."""

from __future__ import annotations

import itertools
import random
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from interpreter.views.maplabels import Box, overlaps, place_labels
from interpreter.views.render import view_observation
from interpreter.views.webview import seat_html
from tests.conftest import CHROMIUM, compiled, need_chromium, required_in_ci

_TEXT = re.compile(r'<text x="([\d.]+)" y="([\d.]+)" class="(node-label|piece)" font-size="([\d.]+)"[^>]*>([^<]*)</text>')


def _positions(name: str, seed: int, moves: int):
    rs = compiled(name)
    st = rs.new_game(3 if rs.min_players <= 3 <= rs.max_players else rs.min_players, seed=seed)
    rng = random.Random(seed)
    for _ in range(moves):
        if st.is_terminal():
            break
        st.apply(rng.choice(st.legal_actions()))
    return rs, st


def _label_groups(html: str) -> list[str]:
    return re.findall(r'<g class="label[^"]*"[^>]*>(.*?)</g>', html)


@pytest.mark.parametrize("seed,moves", [(1, 0), (2, 40), (3, 120), (4, 300)])
def test_belgian_beers_race_labels_never_overlap_on_the_computed_layout(seed, moves):
    rs, st = _positions("belgian_beers_race", seed, moves)
    html = seat_html(rs, view_observation(st, 0), [])
    from html import unescape

    from interpreter.views.maplabels import CHAR_WIDTH, LINE_HEIGHT

    boxes = []
    for group in _label_groups(html):
        lines = _TEXT.findall(group)
        assert lines and lines[0][2] == "node-label"
        x = float(lines[0][0])
        y0 = float(lines[0][1]) - float(lines[0][3])  # the line's box starts a font size above the baseline (at most)
        y1 = max(float(y) + 0.3 * float(s) for _, y, _, s, _ in lines)
        w = max(len(unescape(t)) * CHAR_WIDTH * float(s) for _, _, _, s, t in lines)
        boxes.append((x, y0, x + w, y1))
    names = rs.maps["belgium"].graph.number_of_nodes()
    assert len(boxes) == names, "every node has its label"
    for a, b in itertools.combinations(boxes, 2):
        assert not overlaps(a, b), (a, b)
    assert LINE_HEIGHT >= 1.2


def test_place_labels_spreads_a_cluster_and_keeps_a_lone_label_beside_its_node():
    # twelve nodes within 20 pixels and one far away
    points = [(400 + 6 * (k % 4), 300 + 6 * (k // 4)) for k in range(12)] + [(100.0, 100.0)]
    sizes = [(60.0, 12.0)] * 13
    boxes = place_labels(points, sizes, 900, 640)
    assert all(isinstance(b, Box) for b in boxes)
    for a, b in itertools.combinations(boxes, 2):
        assert not overlaps(a, b)
    lone = boxes[-1]
    assert not lone.leader and lone.x0 > 100 and lone.y0 < 100 < lone.y1  # right of its dot
    assert sum(b.leader for b in boxes[:12]) >= 8  # the cluster's labels moved out, each with a leader line
    for (x, y), b in zip(points, boxes, strict=True):  # no block covers a dot
        assert not (b.x0 < x < b.x1 and b.y0 < y < b.y1)


def test_map_nodes_carry_the_moves_that_name_them_and_only_the_deciding_seat_gets_them():
    rs, st = _positions("belgian_beers_race", 5, 3)
    while "bike(" not in " ".join(map(str, st.legal_actions())):
        st.apply(st.legal_actions()[0])
    p = st.current_players()[0]
    html = seat_html(rs, view_observation(st, p), [])
    legal = [str(a) for a in st.legal_actions()]
    for node, acts in re.findall(r'<g class="node actionable" tabindex="0" data-node="([^"]+)" data-acts="([^"]+)"', html):
        assert {legal[int(i)] for i in acts.split()} == {a for a in legal if re.search(rf"\({re.escape(node)}[,)]", a)}
    # The way of travel is the seat's own counter of that way (the bike's, the bus's, the thumb's),
    # each carrying exactly that way's moves: a node and a counter single a move out.
    ways = [set(acts.split()) for acts in re.findall(r'<span class="value actionable" tabindex="0" data-acts="([^"]+)"', html)]
    for way in ("bike", "transport", "hitch"):
        mine = {str(i) for i, a in enumerate(legal) if a.startswith(way + "(")}
        assert mine and mine in ways, (way, ways)
    assert "table-controls" not in html
    other = seat_html(rs, view_observation(st, (p + 1) % st.num_players), [])
    assert "data-acts" not in other and "table-controls" not in other


def test_labels_never_overlap_in_chromium():
    need_chromium()
    if not required_in_ci():
        pytest.importorskip("playwright.sync_api")
    from playwright import sync_api

    from tests.web.test_browser import ARGS

    css = (Path(__file__).resolve().parents[2] / "interpreter" / "web" / "static" / "table.css").read_text()
    rs, st = _positions("belgian_beers_race", 3, 120)
    html = seat_html(rs, view_observation(st, 0), [])
    with sync_api.sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        try:
            page = b.new_page(viewport={"width": 1200, "height": 900})
            page.set_content(f"<html><head><style>{css}</style></head><body><main>{html}</main></body></html>")
            rects = page.evaluate("""() => Array.from(document.querySelectorAll('svg.map g.label')).map(g => {
                const r = Array.from(g.querySelectorAll('text')).map(t => t.getBoundingClientRect());
                return [Math.min(...r.map(x => x.left)), Math.min(...r.map(x => x.top)),
                        Math.max(...r.map(x => x.right)), Math.max(...r.map(x => x.bottom))]; })""")
            font = page.evaluate("() => getComputedStyle(document.querySelector('svg.map .node-label')).fontFamily")
        finally:
            b.close()
    assert len(rects) == rs.maps["belgium"].graph.number_of_nodes()
    assert "monospace" in font
    for a, c in itertools.combinations(rects, 2):
        assert not overlaps(a, c), (a, c)


def _crosses_sampled(seg, box) -> bool:
    """The leader-line test by sampling alone (every pixel of the segment, its end left out),
    the definition :func:`interpreter.views.maplabels._crosses` must keep."""
    (x1, y1), (x2, y2) = seg
    steps = max(1, int(((x2 - x1) ** 2 + (y2 - y1) ** 2) ** 0.5))
    inner = (box[0] + 0.5, box[1] + 0.5, box[2] - 0.5, box[3] - 0.5)
    return any(inner[0] < x1 + (x2 - x1) * k / steps < inner[2] and inner[1] < y1 + (y2 - y1) * k / steps < inner[3]
               for k in range(steps))


@settings(max_examples=3000, deadline=None)
@given(
    st.tuples(*[st.one_of(st.integers(0, 60).map(float), st.floats(0, 60), st.integers(0, 60).map(lambda v: v + 0.5))] * 4),
    st.tuples(st.floats(0, 60), st.floats(0, 60), st.floats(0, 30), st.floats(0, 30)),
    st.booleans(),
)
def test_a_leader_line_crosses_a_box_exactly_when_a_sample_of_it_lies_inside(coords, box, upright):
    """The quick rejection of a segment that misses a box (clipped to it) never changes the
    answer of sampling it, on segments and boxes that touch, graze and cross, upright ones too."""
    from interpreter.views import maplabels

    x1, y1, x2, y2 = coords
    if upright:
        x2 = x1
    seg = ((x1, y1), (x2, y2))
    b = (box[0], box[1], box[0] + box[2], box[1] + box[3])
    assert maplabels._crosses(seg, b) is _crosses_sampled(seg, b)
