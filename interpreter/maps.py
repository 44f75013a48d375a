"""Maps: graphs of named places built once at load from node and edge tables.

A ruleset declares ``maps: {name: {nodes: {table|items, key}, edges: {table|items, source,
target}, directed: bool}}``.  Each map becomes a read-only :class:`GameMap` (a networkx graph
inside); in expressions the map's name is that value and the builtins below read it.  Every
result is plain data (lists, numbers, strings) in a deterministic order, and every graph search
is networkx's own.
"""

from __future__ import annotations

from typing import Any

from .errors import LoadError


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

    __slots__ = ("name", "graph", "adj", "node_data", "sorted_nodes", "sorted_adj", "dist", "pairs")

    def __init__(self, name: str, graph: nx.Graph):
        self.name = name
        self.graph = graph
        self.adj = {n: dict(nbrs) for n, nbrs in graph.adjacency()}
        self.node_data = dict(graph.nodes(data=True))
        self.sorted_nodes = _sort(graph.nodes)
        self.sorted_adj = {n: _sort(nbrs) for n, nbrs in self.adj.items()}
        self.dist: dict = {}
        self.pairs: dict | None = None

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
              directed: bool = False) -> GameMap:
    """Build a map from rows (dicts) and their marks; raises LoadError on a row missing the key,
    a duplicate node, an edge naming an unknown node, or a duplicate edge."""
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
                raise LoadError(f"map `{name}`: edge endpoint {row[col]!r} is not a node", mark)
        a, b = row[source], row[target]
        if g.has_edge(a, b):
            raise LoadError(f"map `{name}`: duplicate edge {a!r} - {b!r}", mark)
        g.add_edge(a, b, **{k: v for k, v in row.items() if k not in (source, target)})
    return GameMap(name, g)


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
    raise ValueError(f"{n!r} is not a node of the map")


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


def path_length(m, a, b, weight=None) -> Any:
    """The shortest path from a to b: in edges, or summing an edge attribute; none if no path."""
    gm = _m(m)
    a, b = _node(gm, a), _node(gm, b)
    if weight is None:
        return gm.distances(a).get(b)
    try:
        return nx.shortest_path_length(gm.graph, a, b, weight=weight)
    except nx.NetworkXNoPath:
        return None


def shortest_path(m, a, b, weight=None) -> Any:
    """The nodes of a shortest path from a to b (both included), or none if no path."""
    gm = _m(m)
    try:
        return list(nx.shortest_path(gm.graph, _node(gm, a), _node(gm, b), weight=weight))
    except nx.NetworkXNoPath:
        return None


def within(m, n, d) -> list:
    """The nodes at most d edges from n (n included), sorted."""
    gm = _m(m)
    n = _node(gm, n)
    if type(d) is int and d >= 0:
        return _sort([k for k, v in gm.distances(n).items() if v <= d])
    return _sort(nx.single_source_shortest_path_length(gm.graph, n, cutoff=d))


#: name -> (function, help line, (min args, max args)); registered in expression.BUILTINS.
MAP_BUILTINS = {
    "nodes": (nodes, "nodes(m): every node of map m, sorted", (1, 1)),
    "neighbors": (neighbors, "neighbors(m, n): the nodes one edge from n, sorted", (2, 2)),
    "linked": (linked, "linked(m, a, b): true when an edge joins a to b", (3, 3)),
    "edge": (edge, "edge(m, a, b, attr): an attribute of the edge a - b, or none without that edge", (4, 4)),
    "node_attr": (node_attr, "node_attr(m, n, attr): an attribute of node n, or none", (3, 3)),
    "path_length": (path_length, "path_length(m, a, b) or path_length(m, a, b, weight): shortest path "
                    "length in edges, or summing an edge attribute; none without a path", (3, 4)),
    "shortest_path": (shortest_path, "shortest_path(m, a, b) or shortest_path(m, a, b, weight): the nodes "
                      "of a shortest path, both ends included; none without a path", (3, 4)),
    "within": (within, "within(m, n, d): the nodes at most d edges from n (n included), sorted", (3, 3)),
}


def draw_map(m: GameMap, out: str, colour: str | None = None, label: str | None = None,
             pieces: dict | None = None, title: str = "") -> None:
    """Draw map ``m`` to the image file ``out`` (matplotlib, Agg backend): nodes at their ``x``,
    ``y`` attributes (a spring layout when they have none), coloured by the node attribute
    ``colour`` (a matplotlib colour name; grey when not one), labelled by ``label`` (default the
    node), and ``pieces`` (node -> list of texts) written beside their nodes."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.colors as mcolors
    import matplotlib.pyplot as plt

    g = m.graph
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
    nx.draw_networkx_edges(g, pos, ax=ax, edge_color="#bbbbbb", width=0.8)
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
