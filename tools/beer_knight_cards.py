"""The first draft of Beer Knight's card list: writes ``cards.csv`` (72 cards: 24 Knights, 24
Mounts, 24 Weapons) into the current folder, or ``--out FILE``, and prints the counts.

rulesets/beer_knight/cards.csv began as this script's output and has been edited by hand since
(a second Pairing ``pair2_*``, Challenge connections ``ch_*``, the issue 29 corrections): the
shipped file is the data, this script only its origin.  It never overwrites the shipped file
unless told to.
"""

import argparse
import csv

H = "key,name,type,power,style,style2,border,pair_kind,pair_with,pair_bonus,pair_ab,pair_arg,lc,lc_arg,hmb,hmb_arg".split(",")
rows = []


def add(**k):
    r = {h: "" for h in H}
    r.update({a: str(b) for a, b in k.items()})
    rows.append(r)


# Named cards (rulebook)
add(
    key="k01",
    name="The Red Duchess",
    type="Knight",
    power=4,
    style="Amber",
    border="Dark",
    pair_kind="name",
    pair_with="The Red Horse",
    pair_bonus=0,
    pair_ab="steal_random",
    lc="steal_to_combo",
    lc_arg="Weapon",
)
add(
    key="k02",
    name='Sir Mick The "Dee"',
    type="Knight",
    power=4,
    style="Golden",
    border="Light",
    pair_kind="name",
    pair_with="Honey Dee",
    pair_bonus=4,
    lc="reroll_low",
)
add(
    key="k03",
    name="The Lord of the West",
    type="Knight",
    power=5,
    style="Strong",
    border="Medium",
    pair_kind="style",
    pair_with="Polearm",
    pair_bonus=2,
    lc="bonus",
    lc_arg=1,
)
add(
    key="m01",
    name="The Red Horse",
    type="Mount",
    power=5,
    style="Amber",
    border="Dark",
    pair_kind="style",
    pair_with="Blunt",
    pair_bonus=0,
    pair_ab="from_discard",
    hmb="draw",
    hmb_arg="Mount",
)
add(
    key="m02",
    name="Honey Dee",
    type="Mount",
    power=2,
    style="Golden",
    border="Light",
    pair_kind="style",
    pair_with="Golden",
    pair_bonus=1,
    hmb="reroll_low",
)
add(
    key="w01",
    name="Das Boot Mug",
    type="Weapon",
    power=2,
    style="Blunt",
    border="Dark",
    pair_kind="style",
    pair_with="Amber",
    pair_bonus=0,
    pair_ab="",
    hmb="from_discard",
)
add(
    key="w02",
    name="Rammy Tammy",
    type="Weapon",
    power=3,
    style="Weird",
    style2="Blunt",
    border="Medium",
    pair_kind="style",
    pair_with="Dark",
    pair_bonus=2,
    hmb="remove",
    hmb_arg="Knight",
)
styles = ["Hoppy", "Strong", "Light", "Dark", "Amber", "Golden", "Funk", "Double"]
wstyles = ["Sword", "Polearm", "Edged", "Blunt", "Weird"]
borders = ["Dark", "Medium", "Light"]
kn = [
    "Sir Hopsalot",
    "Dame Stoutheart",
    "Lady Lagerlot",
    "Sir Porterfield",
    "Baron Bock",
    "Sir Saison",
    "Dame Gose",
    "Sir Dubbel",
    "Lady Tripel",
    "Sir Kolsch",
    "Dame Weizen",
    "Sir Pilsner",
    "Lady Lambic",
    "Sir Barleywine",
    "Dame Kriek",
    "Sir Helles",
    "Lady Marzen",
    "Sir Rauch",
    "Dame Gueuze",
    "Sir Altbier",
    "Lady Dunkel",
]
mn = [
    "Hop Hound",
    "Stout Stallion",
    "Lager Llama",
    "Porter Pony",
    "Bock Boar",
    "Saison Swan",
    "Gose Goose",
    "Dubbel Donkey",
    "Tripel Tortoise",
    "Kolsch Camel",
    "Weizen Wolf",
    "Pils Pig",
    "Lambic Lion",
    "Barley Bear",
    "Kriek Crane",
    "Helles Hare",
    "Marzen Moose",
    "Rauch Ram",
    "Gueuze Gator",
    "Alt Alpaca",
    "Dunkel Drake",
    "Cask Cobra",
]
wn = [
    "Tap Handle",
    "Bottle Opener",
    "Growler Flail",
    "Keg Hammer",
    "Stein Axe",
    "Corkscrew Pike",
    "Coaster Shuriken",
    "Foam Sword",
    "Barrel Stave",
    "Cask Lance",
    "Funnel Mace",
    "Hop Spear",
    "Yard Glass Glaive",
    "Bung Mallet",
    "Pint Dagger",
    "Tankard Club",
    "Brew Paddle",
    "Ale Horn",
    "Mash Fork",
    "Siphon Halberd",
    "Flagon Sabre",
    "Crown Cap Chakram",
]
lc_cycle = [
    ("bonus", 2),
    ("reroll_any", ""),
    ("extra_die", ""),
    ("force_lowest", ""),
    ("bank", ""),
    ("bank_foe", ""),
    ("draw", "Mount"),
    ("steal_type", "Mount"),
    ("skip_challenge", ""),
    ("win_challenge", ""),
    ("reroll_challenge", ""),
    ("summon", ""),
    ("malus", 2),
    ("force_reroll", ""),
    ("steal_random", ""),
    ("draw", "Weapon"),
    ("bonus", 3),
    ("reroll_low", ""),
    ("extra_die", ""),
    ("petrify", ""),
    ("bonus", 1),
]
hmb_cycle = [
    ("reroll_low", ""),
    ("force_reroll", ""),
    ("extra_die", ""),
    ("force_lowest", ""),
    ("bank", ""),
    ("bank_foe", ""),
    ("remove", "Weapon"),
    ("remove", "Mount"),
    ("steal_random", ""),
    ("steal_type", "Weapon"),
    ("draw", "Knight"),
    ("from_discard", ""),
    ("malus", 2),
    ("bonus", 2),
    ("skip_challenge", ""),
    ("win_challenge", ""),
    ("reroll_challenge", ""),
    ("summon", ""),
    ("petrify", ""),
    ("reroll_any", ""),
    ("remove", "Knight"),
    ("bonus", 3),
]
for i, n in enumerate(kn):
    lc, arg = lc_cycle[i]
    pk = "name" if i % 5 == 0 else ("vs_style" if i % 5 == 3 else "style")
    if pk == "name":
        pw = mn[i]
    elif pk == "vs_style":
        pw = styles[(i + 2) % 8]
    else:
        pw = [styles[(i + 1) % 8], wstyles[i % 5]][i % 2]
    add(
        key=f"k{i + 4:02d}",
        name=n,
        type="Knight",
        power=1 + i % 6,
        style=styles[i % 8],
        border=borders[i % 3],
        pair_kind=pk,
        pair_with=pw,
        pair_bonus=1 + i % 4,
        lc=lc,
        lc_arg=arg,
    )
for i, n in enumerate(mn):
    h, arg = hmb_cycle[i]
    pk = "vs_style" if i % 4 == 3 else "style"
    pw = styles[(i + 3) % 8] if pk == "vs_style" else wstyles[(i + 1) % 5]
    add(
        key=f"m{i + 3:02d}",
        name=n,
        type="Mount",
        power=1 + i % 5,
        style=styles[(i + 1) % 8],
        border=borders[(i + 1) % 3],
        pair_kind=pk,
        pair_with=pw,
        pair_bonus=1 + i % 3,
        hmb=h,
        hmb_arg=arg,
    )
for i, n in enumerate(wn):
    h, arg = hmb_cycle[(i + 7) % len(hmb_cycle)]
    pk = "vs_style" if i % 4 == 2 else "style"
    pw = wstyles[(i + 2) % 5] if pk == "vs_style" else styles[(i + 5) % 8]
    s2 = wstyles[(i + 3) % 5] if i % 6 == 5 else ""
    add(
        key=f"w{i + 3:02d}",
        name=n,
        type="Weapon",
        power=1 + i % 4,
        style=wstyles[i % 5],
        style2=s2,
        border=borders[(i + 2) % 3],
        pair_kind=pk,
        pair_with=pw,
        pair_bonus=1 + i % 3,
        hmb=h,
        hmb_arg=arg,
    )
ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
ap.add_argument("--out", default="cards.csv", help="the file to write (default: cards.csv here)")
with open(ap.parse_args().out, "w", newline="") as f:
    f.write(
        '# Beer Knight card list: a RECONSTRUCTION. The rulebook prints no card list; the named cards\n'
        '# (Red Duchess, Red Horse, Das Boot Mug, Rammy Tammy, Sir Mick, Honey Dee, Lord of the West) keep\n'
        '# what the rulebook says of them, the rest are designed to its anatomy.  Abilities name procedures\n'
        '# `ab_<name>` in ruleset.yaml (the shared vocabulary); *_arg is their parameter.\n'
        ''
    )
    w = csv.DictWriter(f, H)
    w.writeheader()
    w.writerows(rows)
print(
    len(rows), sum(r["type"] == "Knight" for r in rows), sum(r["type"] == "Mount" for r in rows), sum(r["type"] == "Weapon" for r in rows)
)
