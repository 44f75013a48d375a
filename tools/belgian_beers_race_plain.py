"""Belgian Beers Race (base game, 3 players) written by hand in plain Python, as lean as it can
be: the speed limit the interpreter is measured against (tools/bench.py).

Written from the rulebook (/work/shared/rulebooks/belgian_beers_race.txt), not from the
ruleset's YAML.  The rulebook prints neither the board nor the Objective cards, so the map, the
bottles, the Coaster bag and the objectives are the ruleset's reconstruction
(rulesets/belgian_beers_race/*.csv, loaded once by :func:`load`), and the values the rulebook does
not print (Cheers!, bonus and cheese VP, the breathalyzer's levels, the Broken Bottle spaces) are
the ruleset's (its readings R1, R6, R7).  It follows the rulebook's plain words where issue 29
found the ruleset departing from them:

- a player on the Grand-Place on the last day may stay there (end the day) - "you can therefore
  immediately arrive there if your time is limited";
- green objectives are checked when the race is finished on the Grand-Place, not in mid-race
  (at the end of the game, the players on the Grand-Place in order of arrival);
- nobody starts with a cheese (setup 14 places the token at the bottom of the strap);
- the tastings on public transport belong to the trip: taken (or not) right after it, before the
  turn can end, even when the trip ends the day;
- camping is never cut short: the camper converts until going to sleep;
- a player who falls asleep in a toast gains Cheers! only for the beers tasted;
- a toast breaks the bike run of everyone in it ("without any other action between TU");
- every player whose disc reaches a Broken Bottle token by spending time has the choice, a
  toasted player too, once for each token reached (the active player first; R6);
- a toasted player shares only the objectives the toast achieved ("following the action of
  toasting"; R5).

A random playout takes every decision the ruleset asks for, uniformly among its legal options,
and counts it the same way: each action of the active player (sip/eat cheese/convert/sleep/
cycle/public transport/hitchhike/pay a motorist to each reachable neighbour/taste/buy/buy cheese/
camp/end the day), each Broken Bottle token reached (discard an achievable objective, or keep),
and each tasting on the way after a public-transport trip (a colour carried, or stop).

Places are small ints (0 = the Grand-Place); the legal moves are counted without listing them:
each place's neighbours are sorted by the time of each means of transport, and a table gives how
many fit in the time left, so the moves that fit are a prefix of the sorted list.
"""

from __future__ import annotations

import csv
import random
from pathlib import Path

RULESET = Path(__file__).resolve().parent.parent / "rulesets" / "belgian_beers_race"
COLOURS = ("yellow", "brown", "red", "black")
DAYS = (24, 32, 24)                  # Friday, Saturday, Sunday (Duration & tempo)
COASTERS = {2: 5, 3: 15, 4: 25}      # setup 2
BONUS_VP = ((0, 3, 8, 15), (0, 3, 8, 15), (0, 3, 8, 15, 25), (0, 2, 5, 9, 14, 20, 27))  # R7
CHEERS_VP = (0, 1, 2, 4, 6, 9, 12, 16, 20)  # R7
CHEESE_VP, CHEESE_MAX, BACKPACK = 2, 6, 24
NO_BIKE, X2, ASLEEP = 5, 7, 8        # breathalyzer levels (R1)
CAMP_WINDOW = 4                      # R2
BROKEN = (6, 14, 22)                 # R6
MAXT = 40                            # longer than any day

# objective kinds and the events of an action (orange objectives): code = event * 64 + arg,
# arg 63 = any
ORANGE, BLUE, GREEN = 0, 1, 2
EVENTS = ("taste", "visit", "buy", "arrive", "at", "toast", "bonus", "cheese", "bottle", "pay")
E_TASTE, E_VISIT, E_BUY, E_ARRIVE, E_AT, E_TOAST, E_BONUS, E_CHEESE, E_BOTTLE, E_PAY = range(10)
ANY = 63
MODES = ("bike", "transport", "hitch")
LETTERS = ("A", "E", "PC", "T")
STATS = ("visited", "tasted", "own", "collected", "cheese", "cheers", "bonus", "colours", "sober")
S_VISITED, S_TASTED, S_OWN, S_COLLECTED, S_CHEESE, S_CHEERS, S_BONUS, S_COLOURS, S_SOBER = range(9)


def _rows(path: Path) -> list[dict]:
    lines = [ln for ln in path.read_text().splitlines() if ln and not ln.startswith("#")]
    return list(csv.DictReader(lines))


def load(folder: Path = RULESET) -> dict:
    """The map, bottles, Coasters and objectives as flat tuples (places by index, 0 = GP).

    Keys: ``ids``; ``colour`` (0-3, -1 for GP); ``taproom``/``shop``/``cheese`` (bools);
    ``letters`` (bonus track indexes per place, Trappist = red); ``by_bike``/``by_tr``/``by_hitch``
    per place its neighbours as (place, time) sorted by that time; ``fit_bike``/``fit_tr``/
    ``fit_hitch`` per place, for each number of TU left, how many of them fit; ``home`` the
    movement actions to the Grand-Place; ``bottles`` the places with a bottle; ``bag`` the Coaster
    tokens' places; ``objectives`` (number, level, kind, event code or stat, stat arg, n, vp).
    """
    rows = _rows(folder / "breweries.csv")
    ids = [r["id"] for r in rows]
    if ids[0] != "GP":
        ids.remove("GP")
        ids.insert(0, "GP")
        rows.sort(key=lambda r: ids.index(r["id"]))
    ix = {k: i for i, k in enumerate(ids)}
    n = len(ids)
    colour = tuple(COLOURS.index(r["colour"]) if r["colour"] in COLOURS else -1 for r in rows)
    letters = tuple(tuple(([LETTERS.index(r["bonus"])] if r["bonus"] else []) + ([3] if r["colour"] == "red" else []))
                    for r in rows)
    edges: dict = {}
    for r in _rows(folder / "roads.csv"):
        a, b = ix[r["a"]], ix[r["b"]]
        t = (int(r["bike"]), int(r["transport"]), int(r["hitch"]))
        edges[(min(a, b), max(a, b))] = t
    adj: list[dict] = [{} for _ in range(n)]
    for (a, b), t in edges.items():
        adj[a][b] = t
        adj[b][a] = t
    out: dict = {"ids": tuple(ids), "colour": colour, "letters": letters,
                 "taproom": tuple(r["taproom"] == "1" for r in rows), "shop": tuple(r["shop"] == "1" for r in rows),
                 "cheese": tuple(r["cheese"] == "1" for r in rows)}
    for k, name in ((0, "bike"), (1, "tr"), (2, "hitch")):
        by = tuple(tuple(sorted(((m, t[k]) for m, t in adj[a].items()), key=lambda e: (e[1], e[0]))) for a in range(n))
        out["by_" + name] = by
        out["fit_" + name] = tuple(tuple(sum(1 for _, t in by[a] if t <= left) for left in range(MAXT + 1))
                                   for a in range(n))
    # movement actions to the Grand-Place (breadth-first)
    home = [-1] * n
    home[0] = 0
    frontier = [0]
    while frontier:
        nxt = []
        for a in frontier:
            for m in adj[a]:
                if home[m] < 0:
                    home[m] = home[a] + 1
                    nxt.append(m)
        frontier = nxt
    out["home"] = tuple(home)
    out["bottles"] = tuple(ix[r["brewery"]] for r in _rows(folder / "bottles.csv"))
    out["bag"] = tuple(ix[r["brewery"]] for r in _rows(folder / "coasters.csv"))
    objs = []
    for r in _rows(folder / "objectives.csv"):
        kind = ("orange", "blue", "green").index(r["colour"])
        if kind == ORANGE:
            ev = EVENTS.index(r["goal"])
            a = r["arg"]
            if not a:
                arg = ANY
            elif ev in (E_TASTE, E_VISIT, E_BUY):
                arg = COLOURS.index(a)
            elif ev == E_ARRIVE:
                arg = MODES.index(a)
            elif ev == E_AT:
                arg = ix[a]
            else:
                arg = LETTERS.index(a)
            objs.append((int(r["number"]), int(r["level"]), kind, ev * 64 + arg, 0, 0, int(r["vp"])))
        else:
            st = STATS.index(r["goal"])
            a = r["arg"]
            arg = -1 if not a else (LETTERS.index(a) if st == S_BONUS else COLOURS.index(a))
            objs.append((int(r["number"]), int(r["level"]), kind, st, arg, int(r["n"]), int(r["vp"])))
    out["objectives"] = tuple(objs)
    return out


def visited_vp(n: int) -> int:
    """Final scoring: 10/15/20/25/30 breweries -> 10/15/22/30/40 VP, +3 each past 30."""
    return 0 if n < 10 else 10 if n < 15 else 15 if n < 20 else 22 if n < 25 else 30 if n < 30 else 40 + 3 * (n - 30)


def playout(data: dict, rng: random.Random, players: int = 3, trace=None) -> tuple[list[int], list[int], int]:
    """One random game: (winners, scores, decisions taken).  ``trace``, when given, is called at
    every day's end and at the game's end with a dict of the players' tracks (for tests)."""
    COL = data["colour"]
    LET = data["letters"]
    TAP = data["taproom"]
    SHOP = data["shop"]
    CHS = data["cheese"]
    BY_BIKE = data["by_bike"]
    BY_TR = data["by_tr"]
    BY_H = data["by_hitch"]
    FIT_BIKE = data["fit_bike"]
    FIT_TR = data["fit_tr"]
    FIT_H = data["fit_hitch"]
    OBJ = data["objectives"]
    rnd = rng.random
    P = range(players)
    last_day = len(DAYS) - 1

    def shuffle(x):
        for i in range(len(x) - 1, 0, -1):
            j = int(rnd() * (i + 1))
            x[i], x[j] = x[j], x[i]

    nplaces = len(COL)
    bottle = [False] * nplaces
    for b in data["bottles"]:
        bottle[b] = True
    bag = list(data["bag"])
    shuffle(bag)
    coasters = [0] * nplaces
    for b in bag[:COASTERS[players]]:
        coasters[b] += 1
    deck1 = [i for i, o in enumerate(OBJ) if o[1] == 1]
    deck2 = [i for i, o in enumerate(OBJ) if o[1] == 2]
    deck3 = [i for i, o in enumerate(OBJ) if o[1] == 3]
    shuffle(deck1)
    shuffle(deck2)
    shuffle(deck3)
    achievable = [deck1.pop() for _ in range(4)]
    visible = [deck1.pop() for _ in range(4)]
    endgame = [deck3.pop() for _ in range(players)]
    broken = list(BROKEN)

    pos = [0] * players
    time = [0] * players
    stamp = [0] * players
    breath = [0] * players
    cheese = [0] * players
    cheers = [0] * players
    tasted = [0] * players
    vp = [0] * players
    shared = [0] * players
    won = [0] * players          # VP of the objectives taken
    nwon = [0] * players
    asleep = [False] * players
    camping = [False] * players
    did_taste = [False] * players
    did_buy = [False] * players
    tries = [0] * players
    hitch_to = [-1] * players
    bike_run = [0] * players
    # R6: the Broken Bottle tokens are offered on the spaces after offered[p] up to reach[p], the
    # furthest space reached by spending time (a jump to the day's last space reaches nothing)
    offered = [0] * players
    reach = [0] * players
    gp_at = [10 ** 6] * players
    collected = [0] * players
    visited = [set() for _ in P]
    bp = [[0, 0, 0, 0] for _ in P]
    tas_c = [[0, 0, 0, 0] for _ in P]
    vis_c = [[0, 0, 0, 0] for _ in P]
    bonus = [[0, 0, 0, 0] for _ in P]
    events: list[list[int]] = [[] for _ in P]
    first = int(rnd() * players)
    for i in P:
        stamp[(first + i) % players] = -i   # the first player's disc on top of the stack
    g = [1, 0, 0]                           # counter (order of stamps), day, decisions
    end = DAYS[0]

    def pick(n):
        g[2] += 1
        return int(rnd() * n) if n > 1 else 0

    def advance(p, k):
        t = time[p] + k
        time[p] = reach[p] = t if t < end else end
        stamp[p] = g[0]
        g[0] += 1

    def day_over(p):
        time[p] = end
        stamp[p] = g[0]
        g[0] += 1

    def broken_bottles(p):
        """Removal of Objective cards: a choice for each token p's disc reached (R6)."""
        for tok in [x for x in broken if offered[p] < x <= reach[p]]:
            if achievable:
                x = pick(len(achievable) + 1)
                if x < len(achievable):
                    broken.remove(tok)
                    achievable.pop(x)
        offered[p] = reach[p]

    def most(p):
        b = bp[p]
        best = 0
        for i in (1, 2, 3):
            if b[i] > b[best]:
                best = i
        return best

    def taste(p, c):
        if tasted[p] < 20:  # R16: the track stops at 40 points, 2 a beer
            tasted[p] += 1
        tas_c[p][c] += 1
        events[p].append(E_TASTE * 64 + c)
        if breath[p] + 1 >= ASLEEP:
            if cheese[p] > 0:
                cheese[p] -= 1          # the redeeming cheese (R4)
            else:
                breath[p] = ASLEEP
                asleep[p] = True
                camping[p] = False
                day_over(p)
                return True
        else:
            breath[p] += 1
        return False

    def stat(p, st, arg):
        if st == S_VISITED:
            return len(visited[p]) if arg < 0 else vis_c[p][arg]
        if st == S_TASTED:
            return tasted[p] if arg < 0 else tas_c[p][arg]
        if st == S_OWN:
            return sum(bp[p]) if arg < 0 else bp[p][arg]
        if st == S_COLLECTED:
            return collected[p]
        if st == S_CHEESE:
            return cheese[p]
        if st == S_CHEERS:
            return cheers[p]
        if st == S_BONUS:
            return bonus[p][arg]
        if st == S_COLOURS:
            return sum(1 for x in vis_c[p] if x)
        return ASLEEP - breath[p]

    def met(o, p):
        """Mid-race: orange = an event of this action, blue = a state; green only at the finish."""
        _, _, kind, code, arg, n, _ = OBJ[o]
        if kind == ORANGE:
            ev = events[p]
            if code & ANY == ANY:
                k = code >> 6
                for e in ev:
                    if e >> 6 == k:
                        return True
                return False
            return code in ev
        return kind == BLUE and stat(p, code, arg) >= n

    def met_at_finish(o, p):
        _, _, kind, code, arg, n, _ = OBJ[o]
        return kind != ORANGE and pos[p] == 0 and stat(p, code, arg) >= n

    def check_objectives(p):
        """Achievement of objectives: p takes every achievable card met by this action (met()
        inlined: this runs after every action)."""
        ev = events[p]
        taken = None
        for o in achievable:
            _, _, kind, code, arg, n, ovp = OBJ[o]
            if kind == ORANGE:
                if not ev:
                    continue
                if code & ANY == ANY:
                    k = code >> 6
                    for e in ev:
                        if e >> 6 == k:
                            break
                    else:
                        continue
                elif code not in ev:
                    continue
            elif kind != BLUE or stat(p, code, arg) < n:
                continue
            won[p] += ovp
            nwon[p] += 1
            if taken is None:
                taken = [o]
            else:
                taken.append(o)
        if taken:
            for o in taken:
                achievable.remove(o)

    def draw_objective():
        if deck1:
            visible.append(deck1.pop())
        elif deck2:
            visible.append(deck2.pop())

    def refill():
        """Replacement of Objective cards: the row slides right and is filled from the deck."""
        while len(achievable) < 4 and visible:
            achievable.append(visible.pop(0))
        while len(visible) < 4 and (deck1 or deck2):
            draw_objective()
        while len(achievable) < 4 and visible:
            achievable.append(visible.pop(0))
            draw_objective()

    def arrive(p, n, mode):
        pos[p] = n
        did_taste[p] = did_buy[p] = False
        if n == 0:
            gp_at[p] = g[0]
            return
        c = COL[n]
        ev = events[p]
        ev.append(E_VISIT * 64 + c)
        ev.append(E_ARRIVE * 64 + mode)
        ev.append(E_AT * 64 + n)
        if bottle[n]:
            bottle[n] = False
            collected[p] += 1
            ev.append(E_BOTTLE * 64 + ANY)
        elif coasters[n]:
            coasters[n] -= 1
            collected[p] += 1
        for b in LET[n]:
            ev.append(E_BONUS * 64 + b)
        if n not in visited[p]:
            visited[p].add(n)
            vis_c[p][c] += 1
            for b in LET[n]:
                bonus[p][b] += 1
        # Toasting: with every player present who has not finished the day and carries a beer
        qs = [q for q in P if q != p and pos[q] == n and time[q] < end and (bp[q][0] or bp[q][1] or bp[q][2] or bp[q][3])]
        if qs and sum(bp[p]) >= len(qs):
            before = [(q, o) for q in qs for o in achievable if OBJ[o][2] != ORANGE and met(o, q)]
            advance(p, 1)
            bike_run[p] = 0
            for q in qs:
                gq = most(q)
                h = most(p)
                bp[q][gq] -= 1
                bp[p][h] -= 1
                cheers[q] += 1
                events[q] = [E_TOAST * 64 + ANY]
                bike_run[q] = 0
                offered[q] = time[q]
                advance(q, 1)
                taste(q, h)
                if not asleep[p]:
                    cheers[p] += 1
                    taste(p, gq)
            ev = events[p]
            ev.append(E_TOAST * 64 + ANY)
            check_objectives(p)
            for o in list(achievable):
                ms = [q for q in qs if met(o, q) and (q, o) not in before]
                if ms:
                    for q in ms:
                        shared[q] += (OBJ[o][6] + 1) // 2
                    achievable.remove(o)
            broken_bottles(p)
            for q in qs:
                broken_bottles(q)

    def sips(p, k):
        """Public transport: one beer of the backpack may be tasted per 2 TU of the trip."""
        b = bp[p]
        while k > 0 and not asleep[p]:
            cs = [c for c in (0, 1, 2, 3) if b[c]]
            if not cs:
                return
            x = pick(len(cs) + 1)
            if x == len(cs):
                return
            c = cs[x]
            b[c] -= 1
            k -= 1
            taste(p, c)

    for day in range(len(DAYS)):
        end = DAYS[day]
        g[1] = day
        while True:
            # the last disc on the time track plays (on a shared space, the one on top)
            p = -1
            for q in P:
                if time[q] < end and (p < 0 or time[q] < time[p] or (time[q] == time[p] and stamp[q] > stamp[p])):
                    p = q
            if p < 0:
                break
            b = bp[p]
            while True:
                offered[p] = reach[p] = time[p]
                events[p] = []
                here = pos[p]
                left = end - time[p]
                nb = b[0] + b[1] + b[2] + b[3]
                # count the legal actions
                eat = 1 if cheese[p] > 0 and breath[p] > 0 else 0
                if camping[p]:
                    nconv = (1 if b[0] else 0) + (1 if b[1] else 0) + (1 if b[2] else 0) + (1 if b[3] else 0) \
                        if left > 0 else 0
                    x = pick(eat + nconv + 1)
                    if x < eat:
                        cheese[p] -= 1
                        breath[p] -= 1
                    elif x < eat + nconv:
                        x -= eat
                        for c in (0, 1, 2, 3):
                            if b[c]:
                                if x == 0:
                                    break
                                x -= 1
                        b[c] -= 1
                        advance(p, 1)
                        taste(p, c)
                    else:
                        camping[p] = False
                        day_over(p)
                else:
                    nbike = FIT_BIKE[here][left] if breath[p] < NO_BIKE else 0
                    ntr = FIT_TR[here][left // 2 if breath[p] >= X2 else left]
                    nh = FIT_H[here][left]
                    npay = FIT_H[here][left if left < nb // 2 else nb // 2]
                    at_brewery = here != 0 and left > 0
                    ntaste = 1 if at_brewery and TAP[here] and not did_taste[p] else 0
                    can_buy = at_brewery and not did_buy[p]
                    nbuy = 1 if can_buy and SHOP[here] and nb < BACKPACK else 0
                    ncheese = 1 if can_buy and CHS[here] and nb >= BACKPACK and cheese[p] < CHEESE_MAX else 0
                    ncamp = 1 if day < last_day and here != 0 and left <= CAMP_WINDOW else 0
                    # R2: the day ends early only when no move fits; on the last day a player on
                    # the Grand-Place may stay there (issue 29)
                    nend = 1 if ntr + nh == 0 or (here == 0 and day == last_day) else 0
                    x = pick(eat + nbike + ntr + nh + npay + ntaste + nbuy + ncheese + ncamp + nend)
                    if x < eat:
                        cheese[p] -= 1
                        breath[p] -= 1
                    else:
                        x -= eat
                        # any action but eating cheese breaks a hitchhiking streak and a bike run
                        run = bike_run[p]
                        streak_to = hitch_to[p]
                        streak = tries[p]
                        tries[p] = 0
                        hitch_to[p] = -1
                        bike_run[p] = 0
                        if x < nbike:
                            n, t = BY_BIKE[here][x]
                            run += t
                            bike_run[p] = run % 4
                            if run >= 4:
                                br = breath[p] - run // 4
                                breath[p] = br if br > 0 else 0
                            advance(p, t)
                            arrive(p, n, 0)
                        elif x < nbike + ntr:
                            n, t = BY_TR[here][x - nbike]
                            if breath[p] >= X2:
                                t *= 2
                            if rnd() < 1 / 6:  # a 6: 2 TU late
                                if time[p] + t + 2 > end:
                                    advance(p, 2)
                                    sips(p, 1)
                                else:
                                    advance(p, t + 2)
                                    arrive(p, n, 1)
                                    sips(p, (t + 2) // 2)
                            else:
                                advance(p, t)
                                arrive(p, n, 1)
                                sips(p, t // 2)
                        elif x < nbike + ntr + nh:
                            n, t = BY_H[here][x - nbike - ntr]
                            k = (streak + 1 if streak < 3 else 3) if streak_to == n else 1
                            for _ in range(k):
                                if rnd() < 0.5:  # an odd result: picked up
                                    advance(p, t)
                                    arrive(p, n, 2)
                                    break
                            else:
                                hitch_to[p] = n
                                tries[p] = k
                                advance(p, 4 if breath[p] >= X2 else 2)
                        else:
                            x -= nbike + ntr + nh
                            if x < npay:
                                n, t = BY_H[here][x]
                                for _ in range(2 * t):
                                    b[most(p)] -= 1
                                events[p] = [E_PAY * 64 + ANY]
                                advance(p, t)
                                arrive(p, n, 2)
                            else:
                                x -= npay
                                if x < ntaste:
                                    did_taste[p] = True
                                    advance(p, 1)
                                    taste(p, COL[here])
                                elif x < ntaste + nbuy:
                                    c = COL[here]
                                    did_buy[p] = True
                                    events[p] = [E_BUY * 64 + c]
                                    b[c] += BACKPACK - nb if nb > BACKPACK - 3 else 3
                                    advance(p, 1)
                                    if CHS[here] and cheese[p] < CHEESE_MAX:
                                        cheese[p] += 1
                                        events[p].append(E_CHEESE * 64 + ANY)
                                elif x < ntaste + nbuy + ncheese:
                                    did_buy[p] = True
                                    events[p] = [E_CHEESE * 64 + ANY]
                                    cheese[p] += 1
                                    advance(p, 1)
                                elif x < ntaste + nbuy + ncheese + ncamp:
                                    camping[p] = True
                                else:
                                    day_over(p)
                # after the action: objectives, a Broken Bottle token reached (R6)
                if achievable:
                    check_objectives(p)
                if reach[p] > offered[p]:
                    broken_bottles(p)
                tp = time[p]
                # the turn ends once the disc has overtaken every other (or the day is over);
                # a camper converts until going to sleep
                if tp >= end:
                    break
                if not camping[p]:
                    for q in P:
                        if q != p and time[q] >= tp:
                            break
                    else:
                        break
            refill()
        # the end of the day: daily scoring, then the next day's order, awakening, recovery
        for p in P:
            vp[p] += collected[p] + 2 * tasted[p]
        if trace is not None:
            trace({"day": day, "time": list(time), "vp": list(vp), "breath": list(breath), "tasted": list(tasted),
                   "beers": [sum(x) for x in bp], "cheese": list(cheese), "pos": list(pos),
                   "collected": list(collected), "cheers": list(cheers)})
        if day < last_day:
            for p in P:
                stamp[p] = -stamp[p]
                br = breath[p]
                time[p] = 4 if br >= 8 else 2 if br >= 7 else 1 if br >= 5 else 0
                breath[p] = br - 4 if br > 4 else 0
                asleep[p] = camping[p] = did_taste[p] = did_buy[p] = False
                tries[p] = bike_run[p] = 0
                hitch_to[p] = -1
                if pos[p] and coasters[pos[p]]:
                    coasters[pos[p]] -= 1
                    collected[p] += 1
            if day == 0:
                # Addition of level 2 objective cards
                deck1.extend(visible)
                deck1.extend(deck2)
                visible.clear()
                deck2.clear()
                shuffle(deck1)
                for _ in range(4):
                    draw_objective()
    # green objectives are met by finishing on the Grand-Place: in order of arrival there
    for p in sorted(P, key=lambda q: gp_at[q]):
        for o in list(achievable):
            if OBJ[o][2] == GREEN and met_at_finish(o, p):
                achievable.remove(o)
                won[p] += OBJ[o][6]
                nwon[p] += 1
    home = data["home"]
    scores = []
    for p in P:
        s = vp[p] + sum(bp[p]) + CHEESE_VP * cheese[p] + CHEERS_VP[min(cheers[p], 8)]
        s += sum(BONUS_VP[i][min(bonus[p][i], len(BONUS_VP[i]) - 1)] for i in range(4))
        s += won[p] + shared[p] + visited_vp(len(visited[p])) - 15 * home[pos[p]]
        for o in endgame:
            _, _, kind, code, arg, n, ovp = OBJ[o]
            if (kind == BLUE or pos[p] == 0) and stat(p, code, arg) >= n:
                s += ovp
        scores.append(s)
    best = max(scores)
    tied = [p for p in P if scores[p] == best]
    if len(tied) > 1:  # the order of arrival on the Grand-Place breaks the tie (R10)
        key = {p: gp_at[p] if pos[p] == 0 else 2 * 10 ** 6 for p in tied}
        m = min(key.values())
        tied = [p for p in tied if key[p] == m]
    if trace is not None:
        trace({"final": True, "scores": scores, "pos": list(pos), "objectives": list(nwon)})
    return tied, scores, g[2]


def main(argv: list[str] | None = None) -> None:
    """Print playouts per second of ``--games N`` seeded random playouts (default 500)."""
    import argparse
    import time

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=500, help="playouts to time")
    n = ap.parse_args(argv).games

    data = load()
    rng = random.Random(1)
    d = 0
    t = time.process_time()
    for _ in range(n):
        d += playout(data, rng)[2]
    dt = time.process_time() - t
    print(f"{n / dt:,.0f} playouts/s, {d / dt:,.0f} decisions/s, {d / n:.1f} decisions a game")


if __name__ == "__main__":
    main()
