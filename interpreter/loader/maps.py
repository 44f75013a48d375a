"""Maps: graphs of named places built once at load from node and edge tables.

A ruleset declares ``maps: {name: {nodes: {table|items, key}, edges: {table|items, source,
target}, directed: bool}}``.  Each map becomes a read-only :class:`GameMap` (a networkx graph
inside); in expressions the map's name is that value and the builtins below read it.  Every
result is plain data (lists, numbers, strings) in a deterministic order, and every graph search
is networkx's own.
"""

from __future__ import annotations

from typing import Any

from ..errors import LoadError


class _Networkx:
    """networkx, imported on first use: importing it costs ~0.1 s, which a ruleset without a
    map (and ``import interpreter``) should not pay."""

    def __getattr__(self, name: str) -> Any:
        import networkx

        return getattr(networkx, name)


nx = _Networkx()


class GameMap:
    """A named, read-only graph.  ``graph`` is a networkx Graph (DiGraph when directed): the
    authoring and analysis model (``tapster map`` draws it, displays read it).

    What play reads is frozen from it once, as plain data (the builtins below read these, never
    the graph, on their hot path): ``adj`` node -> {neighbour (successor when directed) -> the
    edge's attributes dict}, ``node_data`` node -> its attributes dict, ``sorted_nodes`` every
    node sorted, ``sorted_adj`` node -> its neighbours sorted (both lists are copied before
    they are returned), and ``dist`` source node -> {node -> edges on a shortest path}, filled
    per source on first use by a breadth-first search (at most nodes² entries).
    """

    __slots__ = ("name", "graph", "adj", "node_data", "sorted_nodes", "sorted_adj", "dist", "pairs",
                 "edge_list", "edge_kind", "edge_components", "ends")

    def __init__(self, name: str, graph: nx.Graph, edge_list: list | None = None, edge_kind: str | None = None,
                 edge_components: list | None = None):
        self.name = name
        self.graph = graph
        self.adj = {n: dict(nbrs) for n, nbrs in graph.adjacency()}
        self.node_data = dict(graph.nodes(data=True))
        self.sorted_nodes = _sort(graph.nodes)
        self.sorted_adj = {n: _sort(nbrs) for n, nbrs in self.adj.items()}
        self.dist: dict = {}
        self.pairs: dict | None = None
        #: every edge as its (source, target) pair, in table order
        self.edge_list: list = list(graph.edges) if edge_list is None else edge_list
        #: the component kind whose components are the edges (``edges: {components: kind}``), or None
        self.edge_kind = edge_kind
        #: the edge components in table order (parallel to ``edge_list``), or empty
        self.edge_components: list = list(edge_components or ())
        #: edge component id -> its (source, target) pair
        self.ends: dict = {c.id: e for c, e in zip(self.edge_components, self.edge_list)}

    def all_pairs(self) -> dict | None:
        """node a -> node b -> the attributes of the edge a - b (an empty dict without that
        edge), for every pair of nodes: what the code generator reads ``edge(m, a, b, attr)``
        from (made on first use); None for a map of more than 300 nodes."""
        if self.pairs is None and len(self.node_data) <= 300:
            empty: dict = {}
            self.pairs = {a: {b: nbrs.get(b, empty) for b in self.node_data} for a, nbrs in self.adj.items()}
        return self.pairs

    def __repr__(self) -> str:
        return f"<map {self.name}: {self.graph.number_of_nodes()} nodes, {self.graph.number_of_edges()} edges>"

    def __str__(self) -> str:
        return f"map {self.name}"

    def distances(self, source) -> dict:
        """node -> the number of edges on a shortest path from ``source`` (a node of the map),
        for every node it reaches (computed once per source)."""
        d = self.dist.get(source)
        if d is None:
            d = self.dist[source] = dict(nx.single_source_shortest_path_length(self.graph, source))
        return d


def build_map(name: str, node_rows: list[dict], node_marks: list, key: str,
              edge_rows: list[dict], edge_marks: list, source: str, target: str,
              directed: bool = False, edge_kind: str | None = None, edge_components: list | None = None) -> GameMap:
    """Build a map from rows (dicts) and their marks; raises LoadError on a row missing the key,
    a duplicate node, an edge naming an unknown node (with the nearest node's key), or a
    duplicate edge.  ``edge_components``: when the edges are a component kind's
    (``edges: {components: kind}``), its components, one per row of ``edge_rows``; each edge's
    attribute ``component`` is then its component."""
    edges: list = []
    g: nx.Graph = nx.DiGraph() if directed else nx.Graph()
    for row, mark in zip(node_rows, node_marks):
        if row.get(key) is None:
            raise LoadError(f"map `{name}`: a node has no `{key}` (the nodes' key column)", mark)
        n = row[key]
        if n in g:
            raise LoadError(f"map `{name}`: duplicate node {n!r}", mark)
        g.add_node(n, **{k: v for k, v in row.items()})
    for row, mark in zip(edge_rows, edge_marks):
        for col in (source, target):
            if row.get(col) is None:
                raise LoadError(f"map `{name}`: an edge has no `{col}` column value", mark)
            if row[col] not in g:
                raise LoadError(f"map `{name}`: edge endpoint {row[col]!r} is not a node{_nearest(row[col], g)}", mark)
        a, b = row[source], row[target]
        if g.has_edge(a, b):
            raise LoadError(f"map `{name}`: duplicate edge {a!r} - {b!r}", mark)
        g.add_edge(a, b, **{k: v for k, v in row.items() if k not in (source, target)})
        edges.append((a, b))
    if edge_components is not None:
        for (a, b), c in zip(edges, edge_components):
            g.edges[a, b]["component"] = c
    return GameMap(name, g, edges, edge_kind, edge_components)


def _nearest(value, nodes) -> str:
    """``; did you mean `X`?`` naming the node key nearest to a mistyped ``value``, or ''."""
    import difflib

    keys = {str(n).lower(): n for n in nodes}  # case-blind: `bn` for `BN`
    close = difflib.get_close_matches(str(value).lower(), list(keys), n=1, cutoff=0.5)
    return f"; did you mean {keys[close[0]]!r}?" if close else ""


# builtins ----------------------------------------------------------------------------------------

def _m(m) -> GameMap:
    if type(m) is not GameMap:
        raise ValueError(f"expected a map (a name declared under `maps:`), not {m!r}")
    return m


def _node(m: GameMap, n) -> Any:
    try:
        if n in m.node_data:
            return n
    except TypeError:  # unhashable: not a node (networkx's `n in graph` says False too)
        pass
    raise ValueError(f"{n!r} is not a node of the map{_nearest(n, m.sorted_nodes)}")


def _sort(xs) -> list:
    try:
        return sorted(xs)
    except TypeError:
        return sorted(xs, key=repr)


def nodes(m) -> list:
    """Every node of the map, sorted."""
    return _m(m).sorted_nodes[:]


def neighbors(m, n) -> list:
    """The nodes one edge from n (its successors when directed), sorted."""
    m = _m(m)
    return m.sorted_adj[_node(m, n)][:]


def linked(m, a, b) -> bool:
    """True when an edge joins a to b."""
    m = _m(m)
    return _node(m, b) in m.adj[_node(m, a)]


def edge(m, a, b, attr) -> Any:
    """The attribute of the edge a - b, or none when there is no such edge or attribute."""
    m = _m(m)
    data = m.adj[_node(m, a)].get(_node(m, b))
    return None if data is None else data.get(attr)


def node_attr(m, n, attr) -> Any:
    """The attribute (a column of the nodes table) of node n, or none."""
    m = _m(m)
    return m.node_data[_node(m, n)].get(attr)


def path_length(m, a, b, weight=None, over=None) -> Any:
    """The shortest path from a to b: in edges, or summing an edge attribute; none if no path.
    ``over``: along those edges only (see ``_sub``)."""
    gm = _m(m)
    a, b = _node(gm, a), _node(gm, b)
    if over is not None:
        g = _sub(gm, over)
        if a == b:
            return 0
        if a not in g or b not in g:
            return None
        try:
            return nx.shortest_path_length(g, a, b, weight=weight)
        except nx.NetworkXNoPath:
            return None
    if weight is None:
        return gm.distances(a).get(b)
    try:
        return nx.shortest_path_length(gm.graph, a, b, weight=weight)
    except nx.NetworkXNoPath:
        return None


def shortest_path(m, a, b, weight=None, over=None) -> Any:
    """The nodes of a shortest path from a to b (both included), or none if no path.
    ``over``: along those edges only."""
    gm = _m(m)
    a, b = _node(gm, a), _node(gm, b)
    g = gm.graph if over is None else _sub(gm, over)
    if over is not None and a == b:
        return [a]
    if a not in g or b not in g:
        return None
    try:
        return list(nx.shortest_path(g, a, b, weight=weight))
    except nx.NetworkXNoPath:
        return None


def within(m, n, d) -> list:
    """The nodes at most d edges from n (n included), sorted."""
    gm = _m(m)
    n = _node(gm, n)
    if type(d) is int and d >= 0:
        return _sort([k for k, v in gm.distances(n).items() if v <= d])
    return _sort(nx.single_source_shortest_path_length(gm.graph, n, cutoff=d))


# subgraph queries ---------------------------------------------------------------------------------
# `over=` restricts a query to some of the map's edges (a player's claimed routes): a list or a
# zone of the map's edge components (`edges: {components: kind}`), or of (a, b) pairs of nodes an
# edge joins.  networkx answers on that edge-induced subgraph (an `edge_subgraph` view).

def _ends(m: GameMap, e) -> tuple:
    """The (source, target) pair of ``e``: an edge component of map ``m`` or an (a, b) pair of
    nodes an edge joins; ValueError otherwise."""
    if type(e) in (tuple, list) and len(e) == 2:
        a, b = _node(m, e[0]), _node(m, e[1])
        if b in m.adj[a]:
            return (a, b)
        if not m.graph.is_directed() and a in m.adj[b]:
            return (b, a)
        raise ValueError(f"no edge joins {a!r} and {b!r} on map `{m.name}`")
    ends = m.ends.get(getattr(e, "id", None)) if hasattr(e, "kind") else None
    if ends is None:
        what = "edge components of the map" if m.edge_kind else "(a, b) pairs of nodes an edge joins"
        raise ValueError(f"`over=` takes {what}; {e!s} is not an edge of map `{m.name}`")
    return ends


def _sub(m: GameMap, over):
    """The graph a query reads: the whole map, or the subgraph the edges ``over`` induce."""
    if over is None:
        return m.graph
    if isinstance(over, (str, dict)) or not hasattr(over, "__iter__"):
        raise ValueError(f"`over=` takes a list or a zone of edges, not {over!r}")
    return m.graph.edge_subgraph([_ends(m, e) for e in over])


def edges(m) -> list:
    """Every edge of the map in table order: its edge components when the edges are a component
    kind's (``edges: {components: kind}``), else (source, target) pairs."""
    m = _m(m)
    return m.edge_components[:] if m.edge_kind else [tuple(e) for e in m.edge_list]


def connected(m, a, b, over=None) -> bool:
    """True when a path joins a to b (along the edges' direction on a directed map), over the
    edges ``over`` only when given; a node is connected to itself."""
    gm = _m(m)
    a, b = _node(gm, a), _node(gm, b)
    if a == b:
        return True
    if over is None:
        return b in gm.distances(a)
    g = _sub(gm, over)
    return a in g and b in g and nx.has_path(g, a, b)


def groups(m, over=None) -> list:
    """The connected groups of nodes (weakly connected on a directed map): of the whole map, or
    of the nodes the edges ``over`` touch when given; each group sorted, the groups sorted by
    their first node."""
    gm = _m(m)
    g = _sub(gm, over)
    parts = nx.weakly_connected_components(g) if g.is_directed() else nx.connected_components(g)
    out = [_sort(p) for p in parts]
    try:
        return sorted(out, key=lambda p: p[0])
    except TypeError:
        return sorted(out, key=lambda p: repr(p[0]))


#: The most steps ``longest_trail`` takes without a work budget (a call from Python).
TRAIL_STEPS = 10_000_000
#: The most edges ``longest_trail`` searches (its depth-first search recurses once per edge).
TRAIL_EDGES = 500


def longest_trail(env, m, over=None, weight=None) -> Any:
    """The length of the longest trail (a walk that uses no edge twice; places may repeat) of
    the map, or of the edges ``over`` when given: in edges, or summing the edge attribute
    ``weight`` (an edge without it counts 0); 0 without an edge.  Exact: a depth-first search
    over the edges from every node.  Its cost, at most nodes × (the number of trails from one
    node) steps, is charged step by step to the move's work budget (``limits: {work: N}``), so a
    map too large to search stops with the budget's error instead of running on; a player's
    routes on a board (tens of edges, degree ≤ 6) take thousands of steps.  At most
    ``TRAIL_EDGES`` (500) edges: more is a ValueError."""
    gm = _m(m)
    g = _sub(gm, over)
    if g.number_of_edges() > TRAIL_EDGES:
        raise ValueError(f"longest_trail() searches at most {TRAIL_EDGES} edges, not {g.number_of_edges()}")
    directed = g.is_directed()
    out_edges: dict = {n: [] for n in g.nodes}
    for i, (a, b, d) in enumerate(g.edges(data=True)):
        w = 1 if weight is None else d.get(weight) or 0
        if type(w) not in (int, float) or type(w) is bool:
            raise ValueError(f"longest_trail(): the edge attribute `{weight}` of {a!r} - {b!r} is {w!r}, not a number")
        out_edges[a].append((i, b, w))
        if not directed:
            out_edges[b].append((i, a, w))
    budget = [TRAIL_STEPS if env is None else None]
    used: set = set()
    best = 0

    def charge() -> None:
        if env is None:
            budget[0] -= 1
            if budget[0] < 0:
                raise ValueError(f"longest_trail(): more than {TRAIL_STEPS:,} steps")
            return
        env.left -= 1
        if env.left < 0:
            env.left = 0
            raise ValueError(f"longest_trail() used up the work budget of {env.budget:,} steps (the search is too large "
                             "for this map; raise it with `limits: {work: N}`)")

    def walk(n, length) -> None:
        nonlocal best
        if length > best:
            best = length
        for i, nxt, w in out_edges[n]:
            if i not in used:
                charge()
                used.add(i)
                walk(nxt, length + w)
                used.discard(i)

    for n in _sort(out_edges):
        walk(n, 0)
    return best


#: name -> (function, help line, (min args, max args)[, needs the Env]); registered in
#: expression.BUILTINS.
MAP_BUILTINS = {
    "nodes": (nodes, "nodes(m): every node of map m, sorted", (1, 1)),
    "neighbors": (neighbors, "neighbors(m, n): the nodes one edge from n, sorted", (2, 2)),
    "linked": (linked, "linked(m, a, b): true when an edge joins a to b", (3, 3)),
    "edge": (edge, "edge(m, a, b, attr): an attribute of the edge a - b, or none without that edge", (4, 4)),
    "node_attr": (node_attr, "node_attr(m, n, attr): an attribute of node n, or none", (3, 3)),
    "path_length": (path_length, "path_length(m, a, b) or path_length(m, a, b, weight): shortest path "
                    "length in edges, or summing an edge attribute (over=es: along those edges only); none "
                    "without a path", (3, 4)),
    "shortest_path": (shortest_path, "shortest_path(m, a, b) or shortest_path(m, a, b, weight): the nodes "
                      "of a shortest path, both ends included (over=es: along those edges only); none without "
                      "a path", (3, 4)),
    "within": (within, "within(m, n, d): the nodes at most d edges from n (n included), sorted", (3, 3)),
    "edges": (edges, "edges(m): every edge in table order: the edge components, or (a, b) pairs", (1, 1)),
    "connected": (connected, "connected(m, a, b), connected(m, a, b, over=es): true when a path joins a to b "
                  "(over the edges es only)", (3, 3)),
    "groups": (groups, "groups(m), groups(m, over=es): the connected groups of nodes, each sorted", (1, 1)),
    "longest_trail": (longest_trail, "longest_trail(m), longest_trail(m, over=es, weight=attr): the length of "
                      "the longest trail (no edge twice), in edges or summing weight", (1, 1), True),
}


def colour_problem(m: GameMap, attr: str, what: str = "node") -> str | None:
    """Why the ``what`` ("node" or "edge") attribute ``attr`` of map ``m`` cannot colour a
    drawing (no such attribute, or values that are not matplotlib colours, listing the values
    found), or None when it can."""
    import matplotlib.colors as mcolors

    rows = [d for _, d in m.graph.nodes(data=True)] if what == "node" else [d for *_, d in m.graph.edges(data=True)]
    if not any(attr in d for d in rows):
        names = sorted({k for d in rows for k in d if k != "component"})
        return f"no {what} of map `{m.name}` has an attribute {attr!r} (its {what}s' attributes: {', '.join(names) or 'none'})"
    found = _sort({d[attr] for d in rows if d.get(attr) is not None and not isinstance(d[attr], (list, dict))})
    bad = [v for v in found if not (isinstance(v, str) and mcolors.is_color_like(v))]
    if bad:
        return (f"the {what} attribute {attr!r} of map `{m.name}` does not hold colour names: found "
                f"{', '.join(repr(v) for v in found[:20])}{' ...' if len(found) > 20 else ''}")
    return None


#: Colours of the seats' owned edges in a drawing (seat p: the p-th, cycling).
SEAT_COLOURS = ("#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf")


def map_marks(m: GameMap, obs: dict, zones: dict, zone: str | None, label_of) -> tuple[dict, dict]:
    """What a drawing of map ``m`` shows of a game, built only from the observation ``obs``
    (``State.observation(p)``: what seat ``p`` may see; ``p`` None, an observer, sees
    everything), so that a seat's drawing never shows what another seat hides.

    ``zones``: the ruleset's zone declarations (name -> ``ZoneDecl``: ``keyed``,
    ``per_player``); ``zone``: a keyed zone whose pieces stand on the nodes, or None;
    ``label_of``: component id -> its label.  Returns ``(pieces, owners)``: ``pieces`` node
    -> the labels of the pieces on it (empty when the viewer may not look into ``zone``);
    ``owners`` edge component id -> seat, for every edge component the observation shows in a
    seat's own (``per_player``) zone (one in a zone hidden from the viewer has no owner here).
    """
    seen = obs.get("zones") or {}
    pieces: dict = {}
    if zone is not None and isinstance(seen.get(zone), list):
        for key, ids in seen[zone]:
            pieces[tuple(key) if isinstance(key, list) else key] = [label_of(cid) for cid in ids]
    owners: dict = {}
    edge_ids = {c.id for c in m.edge_components}
    if not edge_ids:
        return pieces, owners

    def walk(z: Any, seat: int) -> None:
        if isinstance(z, str):
            if z in edge_ids:
                owners[z] = seat
        elif isinstance(z, list):
            for x in z:
                walk(x, seat)

    for name, decl in zones.items():
        z = seen.get(name)
        if decl.per_player and not decl.keyed and isinstance(z, list):
            for seat, sub in enumerate(z):
                walk(sub, seat)
    return pieces, owners


def draw_map(m: GameMap, out: str, colour: str | None = None, label: str | None = None,
             pieces: dict | None = None, title: str = "", edge_style: dict | None = None,
             owners: dict | None = None, seat_names: list | None = None) -> None:
    """Draw map ``m`` to the image file ``out`` (matplotlib, Agg backend): nodes at their ``x``,
    ``y`` attributes (a spring layout when they have none), coloured by the node attribute
    ``colour`` (a matplotlib colour name; grey when not one), labelled by ``label`` (default the
    node), and ``pieces`` (node -> list of texts) written beside their nodes.

    Edges: grey lines, unless ``edge_style`` (``{colour, dashes, label}``: edge attribute
    names) colours them by an attribute, draws each as that attribute's number of segments
    (a route's length) and writes a label at its middle; ``owners`` (edge component id -> seat)
    draws an owned edge wide under its route, in its seat's colour (``SEAT_COLOURS``) with the
    seat's name (``seat_names``) in a legend."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.colors as mcolors
    import matplotlib.pyplot as plt

    g = m.graph
    style = edge_style or {}
    owners = owners or {}
    if all("x" in d and "y" in d and d["x"] is not None for _, d in g.nodes(data=True)):
        pos = {n: (float(d["x"]), float(d["y"])) for n, d in g.nodes(data=True)}
    else:
        pos = nx.spring_layout(g, seed=0)
    order = list(g.nodes)
    cols = []
    for n in order:
        c = g.nodes[n].get(colour) if colour else None
        cols.append(c if isinstance(c, str) and mcolors.is_color_like(c) else "lightgrey")
    fig, ax = plt.subplots(figsize=(12, 10))
    if not style and not owners:
        nx.draw_networkx_edges(g, pos, ax=ax, edge_color="#bbbbbb", width=0.8)
    else:
        seen_seats = set()
        for a, b, d in g.edges(data=True):
            (x1, y1), (x2, y2) = pos[a], pos[b]
            comp = d.get("component")
            owner = owners.get(comp.id) if comp is not None else None
            if owner is not None:
                name = seat_names[owner] if seat_names and owner < len(seat_names) else f"P{owner + 1}"
                ax.plot([x1, x2], [y1, y2], color=SEAT_COLOURS[owner % len(SEAT_COLOURS)], linewidth=9, alpha=0.45,
                        solid_capstyle="round", zorder=1, label=None if owner in seen_seats else name)
                seen_seats.add(owner)
            c = d.get(style["colour"]) if style.get("colour") else None
            c = c if isinstance(c, str) and mcolors.is_color_like(c) else "#888888"
            n = d.get(style["dashes"]) if style.get("dashes") else None
            if type(n) is int and 1 <= n <= 50:  # n segments with gaps: a route's cars
                for i in range(n):
                    t0, t1 = (i + 0.12) / n, (i + 0.88) / n
                    ax.plot([x1 + (x2 - x1) * t0, x1 + (x2 - x1) * t1], [y1 + (y2 - y1) * t0, y1 + (y2 - y1) * t1],
                            color=c, linewidth=3.5, solid_capstyle="butt", zorder=2)
            else:
                ax.plot([x1, x2], [y1, y2], color=c, linewidth=2.5, zorder=2)
            text = d.get(style["label"]) if style.get("label") else None
            if text is not None:
                ax.annotate(str(text), ((x1 + x2) / 2, (y1 + y2) / 2), fontsize=7, ha="center", va="center", zorder=4,
                            bbox={"boxstyle": "round,pad=0.15", "fc": "white", "ec": "none", "alpha": 0.8})
        if seen_seats:
            ax.legend(loc="lower right", fontsize=8, title="owners")
    nx.draw_networkx_nodes(g, pos, nodelist=order, node_color=cols, edgecolors="black", node_size=260, ax=ax)
    labels = {n: str(g.nodes[n].get(label, n)) if label else str(n) for n in order}
    nx.draw_networkx_labels(g, pos, labels=labels, font_size=6, ax=ax,
                            verticalalignment="bottom", horizontalalignment="left")
    for n, texts in sorted((pieces or {}).items(), key=lambda kv: repr(kv[0])):
        if n in pos and texts:
            x, y = pos[n]
            ax.annotate(" ".join(texts), (x, y), xytext=(6, -12), textcoords="offset points",
                        fontsize=9, fontweight="bold", color="darkred")
    ax.set_title(title or m.name)
    ax.set_axis_off()
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)
