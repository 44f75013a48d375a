"""Beer Knight (base game, 2 players) written by hand in plain Python, as lean as it can be: the
speed limit the interpreter is measured against (tools/bench.py).

Written from the rulebook (BEERKNIGHT RULES V9, /work/shared/rulebooks/beer_knight.txt), not
from the ruleset's YAML.  The rulebook prints no card list, so the card, Challenge and ability
data are the ruleset's reconstruction (rulesets/beer_knight/cards.csv and challenges.csv, loaded
once by :func:`load`), and where the rulebook is silent (what each ability word does, the
Challenge effects) this file does what the ruleset's shared vocabulary says those words mean.
It follows the rulebook's plain words where issue 29 found the ruleset departing from them:

- the Battle Bonus is a function of the Combo as it stands (Card Powers of the cards in it and
  the Pairings that hold in it now, FAQ "only count within your current Combat Combo"), plus the
  one-off effects that have happened (Liquid Courage and Hold My Beer bonuses, Challenges);
  "NO NEGATIVE BONUS" floors that total at zero, not each step;
- a discard ability never takes back the card just played ("once you've played it, you get rid
  of it");
- a Hold My Beer tied to Challenges (skip, win or reroll one) may be played once the Challenge
  is turned over, by a player who has not used Hold My Beer this Combat;
- declining a Last Call does not forfeit the answer to the other player's Last Call (H);
- the Challenge deck gone through once means three attack dice from the very next fight (FAQ);
- a depleted draw deck is rebuilt from its discards immediately (DEAL);
- a reroll of all dice, granted or forced, rolls every attack die again, an extra die included
  (E, FAQ "Some cards add extra dice"); a petrified Knight adds no value to a contest (Figure 6).

A random playout takes every decision the ruleset asks for, uniformly among its legal options,
and counts it the same way (a decision with one legal option is still a decision): per player
and Combat the Knight, Mount and Weapon of the Combo (three decisions), the attack dice (reroll
doubles / reroll / stand, until stand), Hold My Beer (a Mount or Weapon of the hand, or pass;
again at a black Challenge for a player holding a Challenge HMB and none played yet),
a banked die's swap (when banked), the Last Call (a pair of one border from hand and Beer Tent,
or none), the Card Swap (a card of hand or Beer Tent for a type, or none), and the discard pile
to take from (from_discard).  Chance (shuffles, dice, random steals) uses the same generator.

Cards are small ints (their row in cards.csv) indexing flat tuples; zones are lists of ints.
"""

from __future__ import annotations

import csv
import random
from pathlib import Path

RULESET = Path(__file__).resolve().parent.parent / "rulesets" / "beer_knight"
TYPES = ("Knight", "Mount", "Weapon")
KNIGHT = 0
MAX_COMBATS = 150  # the ruleset's safety bound (R16); never reached in practice

# ability words of the card table, as small ints
ABILITIES = ("bonus", "malus", "reroll_any", "reroll_low", "extra_die", "force_reroll", "force_lowest", "bank",
             "bank_foe", "draw", "steal_random", "steal_type", "steal_to_combo", "from_discard", "remove",
             "skip_challenge", "win_challenge", "reroll_challenge", "summon", "petrify")
(BONUS, MALUS, REROLL_ANY, REROLL_LOW, EXTRA_DIE, FORCE_REROLL, FORCE_LOWEST, BANK, BANK_FOE, DRAW, STEAL_RANDOM,
 STEAL_TYPE, STEAL_TO_COMBO, FROM_DISCARD, REMOVE, SKIP_CH, WIN_CH, REROLL_CH, SUMMON, PETRIFY) = range(20)
CH_EFFECTS = ("monster", "monster_next", "monster_petrify", "drinking", "chug", "gift", "tax", "next_bonus",
              "next_dice", "next_no_hmb")
(MONSTER, MONSTER_NEXT, MONSTER_PETRIFY, DRINKING, CHUG, GIFT, TAX, NEXT_BONUS, NEXT_DICE, NEXT_NO_HMB) = range(10)


def _rows(path: Path) -> list[dict]:
    lines = [ln for ln in path.read_text().splitlines() if ln and not ln.startswith("#")]
    return list(csv.DictReader(lines))


def _arg(s: str) -> int:
    """An ability's argument: a card type as its index, a number as itself, none as 0."""
    if s in TYPES:
        return TYPES.index(s)
    return int(s) if s else 0


def load(folder: Path = RULESET) -> dict:
    """The card and Challenge tables as flat tuples indexed by card (row) number.

    Keys: ``type`` (0 Knight, 1 Mount, 2 Weapon), ``power``, ``styles`` (bit mask), ``border``
    (0-2), ``pair_kind`` (0 none, 1 name, 2 style, 3 Versus style), ``pair_with`` (a card number
    for a name, a style bit otherwise), ``pair_bonus``, ``pair_ab``/``lc``/``hmb`` (ability
    codes, -1 for none) and their ``*_arg``; ``challenges`` a tuple of (border blue?, effect code,
    arg, value); ``monsters`` the Monster values (for summon); ``by_type`` the card numbers of
    each type.
    """
    cards = _rows(folder / "cards.csv")
    styles = sorted({r[k] for r in cards for k in ("style", "style2") if r[k]})
    borders = sorted({r["border"] for r in cards})
    names = [r["name"] for r in cards]
    sbit = {s: 1 << i for i, s in enumerate(styles)}
    d: dict = {k: [] for k in ("type", "power", "styles", "border", "pair_kind", "pair_with", "pair_bonus",
                               "pair_ab", "pair_arg", "lc", "lc_arg", "hmb", "hmb_arg")}
    for r in cards:
        d["type"].append(TYPES.index(r["type"]))
        d["power"].append(int(r["power"]))
        d["styles"].append(sbit[r["style"]] | (sbit[r["style2"]] if r["style2"] else 0))
        d["border"].append(borders.index(r["border"]))
        kind = {"": 0, "name": 1, "style": 2, "vs_style": 3}[r["pair_kind"]]
        d["pair_kind"].append(kind)
        if kind == 1:
            d["pair_with"].append(names.index(r["pair_with"]) if r["pair_with"] in names else -1)
        else:
            d["pair_with"].append(sbit.get(r["pair_with"], 0))
        d["pair_bonus"].append(int(r["pair_bonus"] or 0))
        for k, ka in (("pair_ab", "pair_arg"), ("lc", "lc_arg"), ("hmb", "hmb_arg")):
            d[k].append(ABILITIES.index(r[k]) if r[k] else -1)
            d[ka].append(_arg(r[ka]))
    out = {k: tuple(v) for k, v in d.items()}
    chs = _rows(folder / "challenges.csv")
    out["challenges"] = tuple((r["border"] == "blue", CH_EFFECTS.index(r["effect"]), _arg(r["arg"]), int(r["value"]))
                              for r in chs)
    out["monsters"] = tuple(int(r["value"]) for r in chs if r["ctype"] == "Monster")
    out["by_type"] = tuple(tuple(i for i, t in enumerate(out["type"]) if t == k) for k in range(3))
    return out


def playout(data: dict, rng: random.Random, trace=None) -> tuple[list[int], list[int], int]:
    """One random game of the base game for two players: (winners, Knights in Beerhalla per
    player, decisions taken).  ``trace``, when given, is called after every deal and every
    Combat with a dict of the table (for tests; it costs nothing when None)."""
    TYPE = data["type"]
    POWER = data["power"]
    STY = data["styles"]
    BORDER = data["border"]
    PK = data["pair_kind"]
    PW = data["pair_with"]
    PB = data["pair_bonus"]
    PAB = data["pair_ab"]
    PARG = data["pair_arg"]
    LC = data["lc"]
    LCARG = data["lc_arg"]
    HMB = data["hmb"]
    HMBARG = data["hmb_arg"]
    CH = data["challenges"]
    MONSTERS = data["monsters"]
    BY_TYPE = data["by_type"]
    rnd = rng.random

    def shuffle(x):
        """Fisher-Yates from the generator's floats (random.shuffle's integer draws cost more)."""
        for i in range(len(x) - 1, 0, -1):
            j = int(rnd() * (i + 1))
            x[i], x[j] = x[j], x[i]

    deck = [list(BY_TYPE[0]), list(BY_TYPE[1]), list(BY_TYPE[2])]
    disc: list[list[int]] = [[], [], []]
    hand: list[list[int]] = [[], []]
    combo: list[list[int]] = [[], []]
    tent: list[list[int]] = [[], []]
    halla: list[list[int]] = [[], []]
    ch_deck = list(range(len(CH)))
    ch_disc: list[int] = []
    centre: list[int] = []
    wins = [0, 0]
    D = [0]  # decisions taken

    # per-Combat state
    oneoff = [0, 0]       # one-off Battle Bonus changes (LC, HMB, Challenges)
    start_mod = [0, 0]    # blue Challenge modifier of this Combat
    pool: list[list[int]] = [[], []]
    banked = [[], []]     # pool indexes that came from a bank
    keep_low = [False, False]
    extra = [0, 0]
    rerolls = [0, 0]
    forced = [False, False]
    hmb_done = [False, False]
    bank = [0, 0]
    bank_foe = [0, 0]
    lastcall = [0, 0]
    ch_skip = [False, False]
    ch_win = [False, False]
    ch_reroll = [False, False]
    petrified: set = set()
    lc_used: set = set()
    pair_fired: set = set()
    g = {"rolled": False, "exhausted": False, "extra_all": 0, "no_hmb": False, "next_no_hmb": False,
         "next_extra_all": 0}

    def pick(n):
        """One decision among n legal options, uniformly."""
        D[0] += 1
        return int(rnd() * n) if n > 1 else 0

    def d12():
        return int(rnd() * 12) + 1

    def refill(t):
        """DEAL: a depleted draw deck is rebuilt from its discards at once."""
        if disc[t]:
            deck[t] = disc[t]
            disc[t] = []
            shuffle(deck[t])

    def discard(c):
        t = TYPE[c]
        disc[t].append(c)
        if not deck[t]:
            refill(t)

    def draw(p, t):
        """p draws a card of type t into the hand; -1 when there is none (the Knights of the Beer
        Tents are shuffled back in when the Knight deck and discards are spent, R10)."""
        dk = deck[t]
        if not dk and t == KNIGHT:
            for q in (0, 1):
                dk.extend(tent[q])
                tent[q].clear()
            shuffle(dk)
        if not dk:
            return -1
        c = dk.pop()
        hand[p].append(c)
        if not dk:
            refill(t)
        return c

    def pair_ok(c, p):
        k = PK[c]
        if k == 1:
            return PW[c] in combo[p]
        w = PW[c]
        if k == 2:
            for o in combo[p]:
                if o != c and STY[o] & w:
                    return True
            return False
        if k == 3:
            for o in combo[1 - p]:
                if STY[o] & w:
                    return True
        return False

    def raw_bonus(p):
        """D, FAQ: Card Powers and the Pairings of the Combo as it stands, plus one-off effects."""
        b = oneoff[p]
        for c in combo[p]:
            if c not in petrified:
                b += POWER[c]
            if PK[c] and pair_ok(c, p):
                b += PB[c]
        return b

    def bonus(p):
        """The Battle Bonus: NO NEGATIVE BONUS, the floor on the total."""
        b = raw_bonus(p)
        return b if b > 0 else 0

    def dice_total(p):
        s = sorted(pool[p], reverse=not keep_low[p])
        return s[0] + s[1] if len(s) > 1 else (s[0] if s else 0)

    def nroll():
        return 3 if g["exhausted"] else 2

    def attack_dice(p):
        """The attack dice p rolls: two (three once the Challenge deck is gone through) plus the
        extra dice an ability or a Challenge granted; a reroll of all dice rolls as many."""
        return nroll() + extra[p] + g["extra_all"]

    def fire_pairings(p):
        """The Pairing abilities of p's Combo that hold and have not acted this Combat."""
        for c in list(combo[p]):
            if PAB[c] >= 0 and c not in pair_fired and c in combo[p] and pair_ok(c, p):
                pair_fired.add(c)
                ability(PAB[c], p, PARG[c], c)

    def liquid_courage(p, k):
        if LC[k] >= 0 and k not in lc_used and k not in petrified and k in combo[p]:
            lc_used.add(k)
            ability(LC[k], p, LCARG[k], k)

    def play_card(p, c):
        """A card added to a Combo mid-Combat: it counts in the Combo, Pairings that now hold
        act, and a Knight's Liquid Courage."""
        combo[p].append(c)
        fire_pairings(p)
        if TYPE[c] == KNIGHT:
            liquid_courage(p, c)

    def petrify(q):
        for c in combo[q]:
            if TYPE[c] == KNIGHT:
                petrified.add(c)

    def ability(a, p, arg, card):
        q = 1 - p
        if a == BONUS:
            oneoff[p] += arg
        elif a == MALUS:
            oneoff[q] -= arg
        elif a == REROLL_ANY:
            if g["rolled"]:
                pool[p].extend([d12() for _ in range(attack_dice(p))])
            else:
                rerolls[p] += 1
        elif a == REROLL_LOW or a == EXTRA_DIE:
            # rolled dice all stay in the pool and the best two count: a reroll of the lowest
            # die is one more die
            if g["rolled"]:
                pool[p].append(d12())
                if a == EXTRA_DIE:
                    extra[p] += 1
            elif a == REROLL_LOW:
                rerolls[p] += 1
            else:
                extra[p] += 1
        elif a == FORCE_REROLL:
            if g["rolled"]:
                pool[q] = [d12() for _ in range(attack_dice(q))]
                banked[q] = []
            else:
                forced[q] = True
        elif a == FORCE_LOWEST:
            keep_low[q] = True
        elif a == BANK:
            bank[p] = d12()
        elif a == BANK_FOE:
            bank_foe[p] = d12()
        elif a == DRAW:
            draw(p, arg)
        elif a == STEAL_RANDOM:
            h = hand[q]
            if h:
                x = h.pop(int(rnd() * len(h)))
                hand[p].append(x)
        elif a == STEAL_TYPE or a == STEAL_TO_COMBO:
            h = hand[q]
            xs = [c for c in h if TYPE[c] == arg]
            if xs:
                x = xs[int(rnd() * len(xs))]
                h.remove(x)
                if a == STEAL_TYPE:
                    hand[p].append(x)
                else:
                    play_card(p, x)
        elif a == FROM_DISCARD:
            tops = [d[-1] for d in disc if d and d[-1] != card]
            if tops:
                x = tops[pick(len(tops))]
                disc[TYPE[x]].pop()
                hand[p].append(x)
                # the pile is never left empty beside an empty deck (it cannot be: decks are
                # refilled at once, so a non-empty discard pile has a non-empty deck)
        elif a == REMOVE:
            cb = combo[q]
            for x in cb:
                if TYPE[x] == arg:
                    cb.remove(x)
                    discard(x)
                    if arg == KNIGHT:
                        k = draw(q, KNIGHT)
                        if k >= 0:
                            hand[q].remove(k)
                            play_card(q, k)
                    break
        elif a == SKIP_CH:
            ch_skip[p] = True
        elif a == WIN_CH:
            ch_win[p] = True
        elif a == REROLL_CH:
            ch_reroll[p] = True
        elif a == SUMMON:
            oneoff[p] += MONSTERS[int(rnd() * len(MONSTERS))]
        elif a == PETRIFY:
            petrify(q)

    def hold_my_beer(p, xs):
        """F: p may play one of the Mounts or Weapons xs (or pass); discarded, once per Combat."""
        x = pick(len(xs) + 1)
        if x < len(xs):
            c = xs[x]
            hmb_done[p] = True
            hand[p].remove(c)
            discard(c)
            ability(HMB[c], p, HMBARG[c], c)

    def knight_power(p):
        # Figure 6: a petrified Knight "is not able to add his value", in a contest too
        return sum(POWER[c] for c in combo[p] if TYPE[c] == KNIGHT and c not in petrified)

    def beaten_by(target):
        """Contests: Knight power + a die against the target; the players who fall short."""
        out = []
        for p in (0, 1):
            if ch_skip[p] or ch_win[p]:
                continue
            kp = knight_power(p)
            r = d12()
            if kp + r < target and ch_reroll[p]:
                r = d12()
            if kp + r < target:
                out.append(p)
        return out

    def challenge_effect(i):
        _, eff, arg, value = CH[i]
        if eff == MONSTER:
            for p in beaten_by(d12() + value):
                oneoff[p] -= arg
        elif eff == MONSTER_NEXT:
            for p in beaten_by(d12() + value):
                start_mod[p] -= arg
        elif eff == MONSTER_PETRIFY:
            for p in beaten_by(d12() + value):
                petrify(p)
        elif eff == DRINKING:
            s = [0, 0]
            for p in (0, 1):
                r = d12()
                s[p] = 0 if ch_skip[p] else knight_power(p) + r + (100 if ch_win[p] else 0)
            if s[0] != s[1]:
                oneoff[0 if s[0] > s[1] else 1] += arg
        elif eff == CHUG:
            for p in (0, 1):
                if ch_skip[p] or ch_win[p]:
                    continue
                r = d12()
                if r < value and ch_reroll[p]:
                    r = d12()
                if r < value:
                    oneoff[p] -= arg
        elif eff == GIFT:
            draw(0, arg)
            draw(1, arg)
        elif eff == TAX:
            for p in (0, 1):
                if ch_skip[p] or ch_win[p]:
                    continue
                h = hand[p]
                for _ in range(arg):
                    if h:
                        discard(h.pop(int(rnd() * len(h))))
        elif eff == NEXT_BONUS:
            start_mod[0] += arg
            start_mod[1] += arg
        elif eff == NEXT_DICE:
            g["extra_all"] += arg
        elif eff == NEXT_NO_HMB:
            g["no_hmb"] = True

    def deal():
        """Everything but Beerhalla back in the decks, shuffled, and 3 of each type dealt."""
        for t in (0, 1, 2):
            dk = [c for c in BY_TYPE[t] if c not in halla[0] and c not in halla[1]]
            shuffle(dk)
            deck[t] = dk
            disc[t] = []
        for p in (0, 1):
            hand[p] = []
            tent[p] = []
            combo[p] = []
            for t in (0, 1, 2):
                for _ in range(3):
                    draw(p, t)
        if trace is not None:
            trace({"deal": True, "hands": [list(hand[0]), list(hand[1])]})

    shuffle(ch_deck)
    # WHO GOES FIRST: a die each, ties rerolled
    while True:
        a, b = d12(), d12()
        if a != b:
            first = 0 if a > b else 1
            break
    order = (first, 1 - first)
    deal()
    sudden = False
    winner = -1
    combats = 0
    while combats < MAX_COMBATS:
        combats += 1
        for p in (0, 1):
            oneoff[p] = 0
            pool[p] = []
            banked[p] = []
            keep_low[p] = forced[p] = ch_skip[p] = ch_win[p] = ch_reroll[p] = False
            extra[p] = rerolls[p] = bank[p] = bank_foe[p] = lastcall[p] = 0
        petrified.clear()
        lc_used.clear()
        pair_fired.clear()
        g["rolled"] = False
        g["no_hmb"] = False
        g["extra_all"] = 0
        start_mod[0] = start_mod[1] = 0
        # Take One: a missing type is drawn
        for p in (0, 1):
            h = hand[p]
            for t in (0, 1, 2):
                for c in h:
                    if TYPE[c] == t:
                        break
                else:
                    draw(p, t)
        # A, B: the Combat Combo, one card of each type, chosen face down
        for p in order:
            h = hand[p]
            cb = combo[p]
            for t in (0, 1, 2):
                xs = [c for c in h if TYPE[c] == t]
                if xs:
                    x = xs[pick(len(xs))]
                    h.remove(x)
                    cb.append(x)
        # G, On the Next Combat: the blue Challenges in the centre act now
        while centre:
            i = centre.pop()
            ch_disc.append(i)
            challenge_effect(i)
        # D: Pairing abilities, then Liquid Courage once per Knight
        for p in order:
            fire_pairings(p)
            for k in [c for c in combo[p] if TYPE[c] == KNIGHT]:
                liquid_courage(p, k)
        # E: the attack roll; the best two dice count
        for p in (0, 1):
            pool[p] = [d12() for _ in range(attack_dice(p))]
            if forced[p]:
                # a forced reroll rerolls every die rolled, an extra one included
                pool[p] = [d12() for _ in range(attack_dice(p))]
        g["rolled"] = True
        doubles_done = [False, False]
        for p in order:
            while True:
                pl = pool[p]
                can_doubles = len(pl) == 2 and pl[0] == pl[1] and not doubles_done[p]
                can_reroll = rerolls[p] > 0
                x = pick(1 + can_doubles + can_reroll)
                if can_doubles and x == 0:
                    doubles_done[p] = True
                    pool[p] = [d12(), d12()]
                elif can_reroll and x == can_doubles:
                    rerolls[p] -= 1
                    pl.extend([d12() for _ in range(attack_dice(p))])
                else:
                    break
        # F: Hold My Beer, once, a Mount or Weapon from the hand, discarded
        hmb_done[0] = hmb_done[1] = False
        if not g["no_hmb"]:
            for p in order:
                hold_my_beer(p, [c for c in hand[p] if HMB[c] >= 0 and TYPE[c] != KNIGHT])
        # G: the Challenge; blue ones wait in the centre.  Gone through, the deck is rebuilt and
        # every fight rolls 3 attack dice from now on.
        if ch_deck:
            i = ch_deck.pop()
            if CH[i][0]:
                centre.append(i)
            else:
                ch_disc.append(i)
                # Definitions, CHALLENGES: "Some HMB abilities are tied to Challenges and can be
                # used during this phase" - still once per Combat
                if not g["no_hmb"]:
                    for p in order:
                        xs = [c for c in hand[p] if HMB[c] in (SKIP_CH, WIN_CH, REROLL_CH) and TYPE[c] != KNIGHT]
                        if xs and not hmb_done[p]:
                            hold_my_beer(p, xs)
                challenge_effect(i)
            if not ch_deck:
                ch_deck, ch_disc = ch_disc, []
                shuffle(ch_deck)
                g["exhausted"] = True
        # FAQ Banked Dice: a banked die replaces one's own lowest, or the opponent's highest,
        # never a banked die
        for p in order:
            if bank[p]:
                free = [i for i in range(len(pool[p])) if i not in banked[p]]
                if free and pick(2) == 0:
                    i = min(free, key=pool[p].__getitem__)
                    pool[p][i] = bank[p]
                    banked[p].append(i)
            q = 1 - p
            if bank_foe[p]:
                free = [i for i in range(len(pool[q])) if i not in banked[q]]
                if free and pick(2) == 0:
                    i = max(free, key=pool[q].__getitem__)
                    pool[q][i] = bank_foe[p]
                    banked[q].append(i)
        # H: Last Call - whoever is not ahead may discard two cards of one border (hand or Beer
        # Tent) for one more die, once; behind first; a declined Last Call is offered again
        # when the other player's Last Call changes the scores
        used = [False, False]
        declined = [False, False]
        # nothing in the Last Call changes the Combos or the dice: the scores before it once
        base0 = 13 + start_mod[0] + bonus(0) + dice_total(0)
        base1 = 13 + start_mod[1] + bonus(1) + dice_total(1)
        while True:
            t0 = base0 + lastcall[0]
            t1 = base1 + lastcall[1]
            cands = []
            for p in (0, 1):
                if used[p] or declined[p] or (t0 > t1 if p == 0 else t1 > t0):
                    continue
                by_border: list[list[int]] = [[], [], []]
                for c in hand[p]:
                    by_border[BORDER[c]].append(c)
                for c in tent[p]:
                    by_border[BORDER[c]].append(c)
                npairs = sum(len(b) * (len(b) - 1) // 2 for b in by_border)
                if npairs:
                    cands.append((p, by_border, npairs))
            if not cands:
                break
            if len(cands) == 2:
                p, by_border, npairs = cands[1] if t1 < t0 else cands[0]
            else:
                p, by_border, npairs = cands[0]
            x = pick(npairs + 1)
            if x == npairs:
                declined[p] = True
                continue
            for b in by_border:
                k = len(b) * (len(b) - 1) // 2
                if x < k:
                    i = 0
                    while x >= len(b) - 1 - i:
                        x -= len(b) - 1 - i
                        i += 1
                    pair = (b[i], b[i + 1 + x])
                    break
                x -= k
            for c in pair:
                if c in hand[p]:
                    hand[p].remove(c)
                else:
                    tent[p].remove(c)
                discard(c)
            used[p] = True
            declined[1 - p] = False
            lastcall[p] += d12()
        # I: the highest score wins; a tie moves on
        t0 = base0 + lastcall[0]
        t1 = base1 + lastcall[1]
        if trace is not None:
            trace({"combat": combats, "totals": (t0, t1), "bonus": (bonus(0), bonus(1)), "raw_bonus": (raw_bonus(0), raw_bonus(1)),
                   "dice": (dice_total(0), dice_total(1)), "start_mod": tuple(start_mod), "lastcall": tuple(lastcall),
                   "zones": [list(z) for z in (*deck, *disc, *hand, *combo, *tent, *halla)], "wins": tuple(wins)})
        ascended = False
        if t0 != t1:
            w = 0 if t0 > t1 else 1
            wins[w] += 1
            if sudden or (wins[w] >= 2 and wins[1 - w] < 2):
                # Beerhalla: the Knight ascends; two there win the game
                ks = [c for c in combo[w] if TYPE[c] == KNIGHT]
                if ks:
                    combo[w].remove(ks[0])
                    halla[w].append(ks[0])
                wins[0] = wins[1] = 0
                sudden = False
                if len(halla[w]) >= 2:
                    winner = w
                    break
                ch_disc.extend(centre)
                centre.clear()
                deal()
                ascended = True
            elif wins[w] >= 2:
                sudden = True  # Beerhalla Sudden Death (both at two wins)
        if not ascended:
            # Knights to the Beer Tent, Mounts and Weapons back to the hand; the Card Swap
            for p in (0, 1):
                for c in combo[p]:
                    (tent if TYPE[c] == KNIGHT else hand)[p].append(c)
                combo[p] = []
            for p in order:
                h = hand[p]
                tt = tent[p]
                nh = len(h)
                n = 3 * (nh + len(tt))
                x = pick(n + 1)
                if x < n:
                    i, t = divmod(x, 3)
                    c = h.pop(i) if i < nh else tt.pop(i - nh)
                    discard(c)
                    draw(p, t)
    return ([winner] if winner >= 0 else []), [len(halla[0]), len(halla[1])], D[0]


def main(argv: list[str] | None = None) -> None:
    """Print playouts per second of ``--games N`` seeded random playouts (default 2000)."""
    import argparse
    import time

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=2000, help="playouts to time")
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
