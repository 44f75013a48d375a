"""Writes rulesets/belgian_beers_race/{breweries,roads}.csv: a RECONSTRUCTED map of the
Belgian Beers Race board (the real board is not available).  Breweries are real or plausible
Belgian breweries placed at their approximate longitude/latitude; the roads join each brewery
to its nearest neighbours, and travel times come from the distances.  Run once; the CSVs are
the data (edit them by hand afterwards if wanted).  ``--out DIR`` writes them elsewhere."""

import csv
import math
from pathlib import Path

# number, name, colour, taproom, shop, cheese, bonus, lon, lat, region
# region: bxl (in Brussels), near (linked to Brussels), far (distant), mid (the rest)
B = [
    (1, "Cantillon", "brown", 1, 1, 0, "", 4.335, 50.842, "bxl"),
    (2, "Brasserie de la Senne", "yellow", 1, 1, 0, "E", 4.320, 50.860, "bxl"),
    (3, "Brussels Beer Project", "yellow", 1, 1, 0, "", 4.345, 50.850, "bxl"),
    (4, "En Stoemelings", "brown", 1, 0, 0, "", 4.360, 50.858, "bxl"),
    (5, "No Science", "black", 1, 1, 0, "", 4.370, 50.840, "bxl"),
    (6, "L'Ermitage", "yellow", 1, 1, 1, "", 4.330, 50.830, "bxl"),
    (7, "Lindemans", "brown", 1, 1, 0, "", 4.250, 50.800, "near"),
    (8, "Het Anker", "yellow", 1, 1, 1, "", 4.480, 51.025, "near"),
    (9, "Duvel Moortgat", "yellow", 1, 1, 0, "E", 4.230, 51.010, "near"),
    (10, "Timmermans", "brown", 0, 1, 0, "", 4.215, 50.780, "near"),
    (11, "Haacht", "yellow", 1, 1, 1, "", 4.600, 50.960, "near"),
    (12, "De Koninck", "brown", 1, 1, 0, "", 4.400, 51.200, "mid"),
    (13, "Westmalle", "red", 1, 1, 1, "", 4.680, 51.290, "mid"),
    (14, "Sint-Jozef", "yellow", 1, 1, 0, "PC", 4.770, 51.400, "far"),
    (15, "Achel", "red", 1, 1, 1, "", 5.480, 51.300, "far"),
    (16, "Gruut", "yellow", 1, 1, 0, "", 3.720, 51.050, "mid"),
    (17, "Van Steenberge", "yellow", 1, 1, 0, "", 3.780, 51.150, "mid"),
    (18, "De Halve Maan", "yellow", 1, 1, 1, "", 3.220, 51.200, "far"),
    (19, "Rodenbach", "brown", 1, 1, 0, "", 3.130, 50.950, "far"),
    (20, "Westvleteren", "red", 1, 1, 1, "", 2.720, 50.900, "far"),
    (21, "De Struise", "black", 1, 1, 0, "PC", 2.610, 51.000, "far"),
    (22, "Des Legendes (The Goliath)", "yellow", 1, 1, 0, "A", 3.780, 50.630, "mid"),
    (23, "Dupont", "yellow", 1, 1, 1, "E", 3.730, 50.560, "mid"),
    (24, "Silly", "yellow", 1, 1, 0, "", 3.920, 50.650, "mid"),
    (25, "Brunehaut", "yellow", 0, 1, 0, "", 3.390, 50.510, "far"),
    (26, "Chimay", "red", 1, 1, 1, "", 4.320, 50.030, "far"),
    (27, "Val-Dieu", "brown", 1, 1, 1, "", 5.810, 50.700, "far"),
    (28, "Lefebvre", "yellow", 1, 1, 0, "", 4.210, 50.660, "mid"),
    (29, "Abbaye des Rocs", "brown", 1, 1, 0, "", 3.830, 50.390, "far"),
    (30, "Orval", "red", 1, 1, 1, "A", 5.350, 49.640, "far"),
    (31, "Rochefort", "red", 1, 0, 1, "", 5.230, 50.160, "far"),
    (32, "Gaume", "black", 1, 1, 0, "PC", 5.550, 49.570, "far"),
    (33, "Bellevaux", "black", 1, 1, 1, "PC", 6.040, 50.420, "far"),
    (34, "La Chouffe", "yellow", 1, 1, 0, "", 5.800, 50.150, "far"),
    (35, "La Lanterne", "yellow", 1, 1, 0, "A", 4.870, 50.470, "mid"),
    (36, "Du Bocq", "brown", 1, 1, 0, "", 4.980, 50.330, "mid"),
    (37, "Het Sas", "black", 1, 1, 0, "", 5.080, 51.000, "mid"),
    (38, "Sint-Feuillien", "yellow", 1, 1, 1, "", 4.100, 50.580, "mid"),
    (39, "Jandrain-Jandrenouille", "yellow", 1, 1, 0, "", 4.980, 50.660, "mid"),
    (40, "Kazematten", "brown", 1, 1, 0, "", 5.620, 50.850, "far"),
]
GP = (4.352, 50.847)
KM_X, KM_Y = 71.0, 111.0  # km per degree at 50.5 N


def km(a, b):
    return math.hypot((a[0] - b[0]) * KM_X, (a[1] - b[1]) * KM_Y)


def times(d):
    bike = max(2, round(d / 7))
    pt = max(1, round(d / 18) + 1)
    hitch = max(1, round(d / 24))
    return bike, pt, hitch


DEFAULT_OUT = Path(__file__).resolve().parent.parent / "rulesets" / "belgian_beers_race"


def main(out: Path = DEFAULT_OUT):
    """Write breweries.csv and roads.csv into the folder ``out``."""
    with open(out / "breweries.csv", "w", newline="") as f:
        f.write("# RECONSTRUCTED map of the Belgian Beers Race board (tools/bbr_map.py): approximate\n")
        f.write("# longitude (x) / latitude (y); bonus A = author, E = publisher, PC = cardinal point\n")
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["id", "number", "name", "colour", "taproom", "shop", "cheese", "bonus", "region", "x", "y"])
        w.writerow(["GP", 0, "Grand-Place", "white", 0, 0, 0, "", "bxl", GP[0], GP[1]])
        for n, name, col, tap, shop, ch, bonus, x, y, reg in B:
            w.writerow([f"B{n}", n, name, col, tap, shop, ch, bonus, reg, x, y])
    bxl = ["GP"] + [f"B{b[0]}" for b in B if b[9] == "bxl"]
    outside = {f"B{b[0]}": (b[7], b[8]) for b in B if b[9] != "bxl"}
    pts = dict(outside, BXL=GP)
    links = set()
    for a, pa in pts.items():
        near = sorted((km(pa, pb), b) for b, pb in pts.items() if b != a)
        for _d, b in near[:3]:
            links.add(tuple(sorted((a, b))))
    for b in B:  # the breweries "close to Brussels" are linked to it
        if b[9] == "near":
            links.add(tuple(sorted((f"B{b[0]}", "BXL"))))
    rows = []
    for a, b in sorted(links):
        if "BXL" in (a, b):
            o = a if b == "BXL" else b
            t = times(km(outside[o], GP))
            for x in bxl:
                rows.append((x, o, *t))
        else:
            rows.append((a, b, *times(km(pts[a], pts[b]))))
    for i, a in enumerate(bxl):
        for b in bxl[i + 1:]:
            rows.append((a, b, 1, 1, 1))
    with open(out / "roads.csv", "w", newline="") as f:
        f.write("# RECONSTRUCTED roads (tools/bbr_map.py): bike, public transport, hitchhiking times in TU;\n")
        f.write("# every Brussels place (GP and the 6 Brussels breweries) has the same times to a brewery linked to Brussels\n")
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["a", "b", "bike", "transport", "hitch"])
        w.writerows(rows)




def coasters(out: Path = DEFAULT_OUT):
    """The Coaster bag: 2 tokens a brewery, 1 for Brussels and near-Brussels ones, 3 for distant ones."""
    with open(out / "coasters.csv", "w", newline="") as f:
        f.write("# the Coaster bag (setup 2): 1 token for Brussels and near-Brussels breweries, 3 for distant ones, 2 else\n")
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["token", "brewery"])
        i = 0
        for b in B:
            k = {"bxl": 1, "near": 1, "far": 3, "mid": 2}[b[9]]
            for _ in range(k):
                i += 1
                w.writerow([i, f"B{b[0]}"])



def bottles(out: Path = DEFAULT_OUT):
    """The 40 First visitor bottles, one a brewery in its colour."""
    with open(out / "bottles.csv", "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["brewery", "colour"])
        for b in B:
            w.writerow([f"B{b[0]}", b[2]])



if __name__ == "__main__":
    import argparse

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT, help="the folder to write the four CSV files into (default: the ruleset's)")
    folder = ap.parse_args().out
    main(folder)
    coasters(folder)
    bottles(folder)
