"""Conformance cases of the engine and the players: arrangements, settlements,
whole-hand transcripts, observations and decisions, from fixed seeds."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from gin.engine.actions import (
    Action,
    BigGin,
    Discard,
    DrawPile,
    DrawStock,
    Knock,
    LayOff,
    Pass,
    parse_action,
)
from gin.engine.cards import DECK, Card, cards_mask, mask_cards, parse_cards
from gin.engine.errors import IllegalAction, MalformedInput
from gin.engine.hand import (
    UPCARD_POSITION,
    Hand,
    dealt_positions,
    shuffled_deck,
    stacked_deck,
)
from gin.engine.layoffs import layoff_closure
from gin.engine.match import Match
from gin.engine.melds import (
    all_arrangements,
    arrange_mask,
    candidate_melds,
    discard_mask,
    meld_combinations,
)
from gin.engine.observation import Phase, event_to_data
from gin.engine.rules import BOUNDS, PRESETS, Ruleset
from gin.engine.scoring import settle
from gin.players import get, hint

Case = dict[str, Any]


def _texts(mask: int) -> list[str]:
    return [str(c) for c in mask_cards(mask)]


def arrange_case(mask: int) -> Case:
    """The arrangement case of a hand of 10 cards, or of 11 (after its best discard)."""
    cards = _texts(mask)
    if mask.bit_count() == 11:
        bit, arrangement = discard_mask(mask)
        return {
            "kind": "arrange",
            "cards": cards,
            "deadwood": arrangement.deadwood,
            "discard": _texts(bit)[0],
            "melds": [_texts(m) for m in arrangement.meld_masks],
            "deadwood_cards": _texts(arrangement.deadwood_mask),
        }
    arrangement = arrange_mask(mask)
    return {
        "kind": "arrange",
        "cards": cards,
        "deadwood": arrangement.deadwood,
        "melds": [_texts(m) for m in arrangement.meld_masks],
        "deadwood_cards": _texts(arrangement.deadwood_mask),
    }


def _random_hand(rng: random.Random, size: int, pool: list[int]) -> int:
    return sum(1 << i for i in rng.sample(pool, size))


def _played_hands(rng: random.Random, n: int) -> Iterator[int]:
    """Hands met in play, 11 cards then 10 alternately: a greedy player draws from
    the stock and throws its best discard."""
    made = 0
    while True:
        deck = list(range(52))
        rng.shuffle(deck)
        hand = sum(1 << i for i in deck[:10])
        for card in deck[10:40]:
            hand |= 1 << card
            yield hand
            bit, _ = discard_mask(hand)
            hand ^= bit
            yield hand
            made += 2
            if made >= n:
                return


def arrange_cases(n: int, seed: int = 1) -> Iterator[Case]:
    """``n`` hands of each kind and size: random, dense (ranks 4 to 8, where sets
    and runs fight over cards) and from play; 10 and 11 cards."""
    rng = random.Random(f"gin-conformance:arrange:{seed}")
    every = list(range(52))
    dense = [c.index for c in DECK if 4 <= c.rank <= 8]
    for size in (10, 11):
        for _ in range(n):
            yield arrange_case(_random_hand(rng, size, every))
        for _ in range(n):
            yield arrange_case(_random_hand(rng, size, dense))
    for hand in _played_hands(rng, 2 * n):
        yield arrange_case(hand)


# -- settlements -------------------------------------------------------------------

#: Rulesets of the transcripts: every preset, and house rules that reach the
#: branches the presets leave out (big gin, the winner deals, other shutout rules).
HOUSE_RULES = (
    Ruleset(name="house-big-gin", big_gin_bonus=31, winner_deals=True, shutout="double_total",
            target=150, dead_stock=0),
    Ruleset(name="house-short", knock_limit=7, gin_bonus=10, undercut_bonus=15, box_bonus=0,
            game_bonus=50, target=60, shutout="none", dead_stock=8),
)
RULESETS = (*PRESETS.values(), *HOUSE_RULES)


def settle_case(
    knocker: int, defender: int, rules: Ruleset, melds: tuple[int, ...] | None, limit: int,
) -> Case:
    """How gin/ settles a knock (or why it refuses it)."""
    case: Case = {
        "kind": "settle",
        "rules": rules.to_dict(),
        "knocker": _texts(knocker),
        "defender": _texts(defender),
        "knock_limit": limit,
    }
    if melds is not None:
        case["knocker_melds"] = [_texts(m) for m in melds]
    try:
        outcome = settle(mask_cards(knocker), mask_cards(defender), rules,
                         None if melds is None else [mask_cards(m) for m in melds], limit)
    except IllegalAction as exc:
        case["error"] = str(exc)
    else:
        case["outcome"] = outcome.to_dict()
    return case


def settle_cases(n: int, seed: int = 1) -> Iterator[Case]:
    """Knocks from greedy play (the knocker's best layout, or another it may declare)
    against defenders dealt from the rest of the deck, whose lay-offs matter."""
    rng = random.Random(f"gin-conformance:settle:{seed}")
    made = 0
    for hand in _played_hands(rng, 10**9):
        if hand.bit_count() != 10 or arrange_mask(hand).deadwood > 10:
            continue
        rest = [i for i in range(52) if not hand >> i & 1]
        # Defenders near the knocker's cards, where lay-offs are likely: half the time
        # from the ranks and suits the knocker holds.
        near = [i for i in rest if any(hand >> j & 1 for j in _neighbours(i))]
        pool = near if rng.random() < 0.5 and len(near) >= 10 else rest
        defender = sum(1 << i for i in rng.sample(pool, 10))
        rules = rng.choice(RULESETS)
        limit = rng.choice((rules.knock_limit, rng.randint(0, 10)))
        layouts = all_arrangements(hand)
        melds = None if rng.random() < 0.6 else rng.choice(layouts).meld_masks
        yield settle_case(hand, defender, rules, melds, limit)
        made += 1
        if made >= n:
            return


def big_gin_cases(n: int, seed: int = 1) -> Iterator[Case]:
    """Eleven melded cards laid down, under rules with big gin and without (refused)."""
    rng = random.Random(f"gin-conformance:big-gin:{seed}")
    melds = candidate_melds((1 << 52) - 1)
    made = 0
    while made < n:
        hand = 0
        for meld in rng.sample(melds, len(melds)):
            if not meld & hand and (hand | meld).bit_count() <= 11:
                hand |= meld
            if hand.bit_count() == 11:
                break
        if hand.bit_count() != 11:
            continue
        rest = [i for i in range(52) if not hand >> i & 1]
        defender = sum(1 << i for i in rng.sample(rest, 10))
        rules = rng.choice(RULESETS)
        yield settle_case(hand, defender, rules, None, rules.knock_limit)
        made += 1


def _neighbours(index: int) -> list[int]:
    """The bits of the cards next to a card in its suit and of the same rank."""
    suit, rank = divmod(index, 13)
    out = [s * 13 + rank for s in range(4) if s != suit]
    out += [suit * 13 + r for r in (rank - 1, rank + 1) if 0 <= r < 13]
    return out


# -- whole matches -------------------------------------------------------------------

_PLAYERS = ("easy", "normal", "simple", "random")


def _variant(action: Action, hand: Hand, rng: random.Random) -> Action:
    """Sometimes a chosen knock declares another layout, or a lay-off lays out its own
    choice instead of the engine's best: the forms the players never use."""
    player = hand.turn
    mask = cards_mask(hand.cards(player))
    if isinstance(action, Knock) and action.melds is None and rng.random() < 0.4:
        layouts = all_arrangements(mask & ~action.card.mask, hand.knock_limit)
        if layouts:
            return Knock(action.card, rng.choice(layouts).melds)
    if isinstance(action, LayOff) and action.layoffs is None and rng.random() < 0.4:
        knock_melds = tuple(cards_mask(m) for m in hand.observation(player).knock_melds or ())
        combos = list(meld_combinations(candidate_melds(mask)))
        used, _, chosen = rng.choice(combos)
        layoffs = layoff_closure(mask & ~used, knock_melds)
        if rng.random() < 0.5:
            layoffs = layoffs[: rng.randint(0, len(layoffs))]
        return LayOff(tuple((mask_cards(b)[0], i) for b, i in layoffs),
                      tuple(mask_cards(m) for m in chosen))
    return action


def _probes(hand: Hand, rng: random.Random) -> list[tuple[int, Action]]:
    """A few actions to ask the engine's refusal about, legal or not."""
    player = hand.turn
    held = list(hand.cards(player))
    other = [c for c in DECK if c not in held]
    cards: list[Card] = rng.sample(held, min(2, len(held))) + rng.sample(other, 1)
    if hand.just_taken is not None:
        cards.append(hand.just_taken)
    candidates: list[Action] = [Pass(), DrawStock(), DrawPile(), BigGin(), LayOff(),
                                LayOff((), ())]
    candidates += [Discard(c) for c in cards] + [Knock(c) for c in cards]
    # Declared melds and chosen lay-offs, most of them wrong in some way: melds of
    # the hand that may overlap or leave too much, cards not held, non-melds.
    melds = [mask_cards(m) for m in candidate_melds(cards_mask(held))]
    declared = tuple(rng.sample(melds, min(len(melds), rng.randint(1, 3))))
    if rng.random() < 0.3 or not declared:  # (no melds at all prints as the best layout)
        declared += (tuple(rng.sample(DECK, 3)),)
    candidates += [Knock(rng.choice(cards), declared), BigGin(declared),
                   LayOff(((rng.choice(cards), rng.randint(0, 3)),), declared)]
    picks = rng.sample(candidates, 5)
    if hand.phase is Phase.LAYOFF:  # the defender's own layouts, right and wrong
        for _ in range(6):
            layoffs = tuple((c, rng.randint(0, 3)) for c in rng.sample(held, rng.randint(0, 3)))
            own = tuple(rng.sample(melds, min(len(melds), rng.randint(0, 2))))
            picks.append(LayOff(layoffs, own))
    return [(player, a) for a in picks] + [(1 - player, rng.choice(candidates))]


def match_case(
    rules: Ruleset, seed: int, names: tuple[str, str], first_deck: list[Card] | None = None,
) -> Case:
    """A whole match between two computer players, every step recorded (the first
    hand dealt from ``first_deck`` when given)."""
    rng = random.Random(f"gin-conformance:match:{rules.name}:{seed}")
    players = [get(name, rng.getrandbits(32)) for name in names]
    match = Match(rules, first_dealer=rng.randint(0, 1))
    hands: list[Case] = []
    while not match.over and len(hands) < 12:
        deck = first_deck if first_deck is not None and not hands else shuffled_deck(rng)
        hand = match.deal(deck)
        steps: list[Case] = []
        observations: list[Case] = []
        while hand.phase is not Phase.OVER:
            player = hand.turn
            if len(steps) % 7 == 0:
                seat = rng.randint(0, 1)
                observations.append({"step": len(steps), "player": seat,
                                     "observation": match.observation(seat).to_dict()})
            legal = match.legal_actions()
            probes = [[p, str(a), hand.refusal(p, a)] for p, a in _probes(hand, rng)]
            action = players[player].choose(match.observation(player), legal)
            action = _variant(action, hand, rng)
            seen = len(hand.events)
            match.apply(player, action)
            steps.append({
                "player": player,
                "action": str(action),
                "legal": [str(a) for a in legal],
                "probes": probes,
                "events": [event_to_data(e) for e in hand.events[seen:]],
            })
        for p in (0, 1):
            observations.append({"step": len(steps), "player": p,
                                 "observation": match.observation(p).to_dict()})
        assert hand.result is not None
        hands.append({
            "deck": [str(c) for c in deck],
            "dealer": hand.dealer,
            "steps": steps,
            "observations": observations,
            "result": hand.result.to_dict(),
            "scores": list(match.scores),
            "hands_won": list(match.hands_won),
        })
    totals = match.totals
    return {
        "kind": "match",
        "rules": rules.to_dict(),
        "first_dealer": match.first_dealer,
        "players": list(names),
        "hands": hands,
        "saved": match.to_dict(),
        "totals": None if totals is None else {
            "winner": totals.winner,
            "points": list(totals.points),
            "hands_won": list(totals.hands_won),
            "game_bonus": list(totals.game_bonus),
            "box_bonus": list(totals.box_bonus),
            "shutout": totals.shutout,
            "totals": list(totals.totals),
        },
    }


def match_cases(per_ruleset: int, seed: int = 1) -> Iterator[Case]:
    """``per_ruleset`` whole matches under each ruleset, between players in turn."""
    for rules in RULESETS:
        for i in range(per_ruleset):
            names = (_PLAYERS[i % 4], _PLAYERS[(i // 4 + i + 1) % 4])
            yield match_case(rules, seed * 100_000 + i, names)
    # Big gin is rare in play: a match whose first hand deals it to the non-dealer
    # on the first draw from the stock (Easy passes the upcard, then takes big gin).
    for rules in RULESETS:
        if rules.big_gin_bonus is not None:
            deck = stacked_deck(parse_cards("Ac 2c 3c 4c 5d 6d 7d 9h 9s 9d"),
                                parse_cards("Kc Qd Jh Ts 8c 7s 6h 5s 4h 3d"),
                                Card.parse("2s"), parse_cards("9c"))
            yield match_case(rules, seed, ("easy", "easy"), deck)


# -- an online peer's copy of a hand ----------------------------------------------------


def _reveals(truth: Hand, copy: Hand, player: int, action: Action) -> list[tuple[int, Card]]:
    """What the copy is told before ``action``: the card drawn by its own player from
    the stock, a card the opponent throws, and every card held at a knock or big gin
    (all cards laid out must be seen)."""
    positions: list[int] = []
    if isinstance(action, DrawStock):
        positions.append(truth.next_stock_position)
    elif isinstance(action, Discard):
        positions.append(_position(truth, action.card))
    elif isinstance(action, Knock | BigGin):
        positions += [_position(truth, c) for p in (0, 1) for c in truth.cards(p)]
    return [(pos, c) for pos in positions
            if copy.card_at(pos) is None and (c := truth.card_at(pos)) is not None]


def _position(hand: Hand, card: Card) -> int:
    return next(pos for pos in range(52) if hand.card_at(pos) == card)


def peer_case(rules: Ruleset, seed: int, names: tuple[str, str]) -> Case:
    """One hand as an online peer's copy sees it: the cards it was not dealt are
    unknown until revealed; every step's legal actions, refusals and events, and
    the peer's observations, on that copy."""
    rng = random.Random(f"gin-conformance:peer:{rules.name}:{seed}")
    players = [get(name, rng.getrandbits(32)) for name in names]
    deck = shuffled_deck(rng)
    dealer, me = rng.randint(0, 1), rng.randint(0, 1)
    truth = Hand(deck, dealer, rules)
    mine = set(dealt_positions(me == dealer)) | {UPCARD_POSITION}
    known: list[Card | None] = [c if pos in mine else None for pos, c in enumerate(deck)]
    copy = Hand(known, dealer, rules)
    steps: list[Case] = []
    observations: list[Case] = []
    while truth.phase is not Phase.OVER:
        player = truth.turn
        if len(steps) % 5 == 0:
            observations.append({"step": len(steps),
                                 "observation": copy.observation(me).to_dict()})
        action = players[player].choose(truth.observation(player), truth.legal_actions())
        reveal: list[tuple[int, Card]] = []
        if player == me or not isinstance(action, DrawStock):
            reveal = _reveals(truth, copy, player, action)
        for pos, card in reveal:
            copy.reveal(pos, card)
        legal = copy.legal_actions()
        probes = [[p, str(a), copy.refusal(p, a)] for p, a in _probes(copy, rng)]
        seen = len(copy.events)
        truth.apply(player, action)
        copy.apply(player, action)
        steps.append({
            "reveal": [[pos, str(card)] for pos, card in reveal],
            "player": player,
            "action": str(action),
            "legal": [str(a) for a in legal],
            "probes": probes,
            "events": [event_to_data(e) for e in copy.events[seen:]],
        })
    observations.append({"step": len(steps),
                         "observation": copy.observation(me).to_dict()})
    assert copy.result == truth.result and copy.result is not None
    return {
        "kind": "peer",
        "rules": rules.to_dict(),
        "dealer": dealer,
        "me": me,
        "deck": [None if c is None else str(c) for c in known],
        "steps": steps,
        "observations": observations,
        "result": copy.result.to_dict(),
    }


def peer_cases(per_ruleset: int, seed: int = 1) -> Iterator[Case]:
    """``per_ruleset`` hands under each ruleset, by pairs of players in turn."""
    for rules in RULESETS:
        for i in range(per_ruleset):
            names = (_PLAYERS[i % 4], _PLAYERS[(i + 1 + i // 4) % 4])
            yield peer_case(rules, seed * 100_000 + i, names)


# -- text forms -----------------------------------------------------------------------

_ACTION_TEXTS = (
    "pass", "stock", "take", "PASS", " take ", "discard 7h", "discard 10♥", "Discard th",
    "knock Ks", "knock 7h / 5h6h7h / 9c9d9s", "knock 10h / 8h 9h 10h", "knock qs / 2c3c4c/",
    "biggin", "biggin / AcAdAh / 2s3s4s5s", "layoff", "layoff /", "layoff 8h>0 9h>1 / 2c3c4c",
    "layoff 8h>0", "layoff / 2c3c4c / 5d5h5s",
    # malformed
    "", "   ", "jump", "pass now", "discard", "discard 7", "discard 1h", "discard 7x",
    "discard 7h 8h", "knock", "knock / 5h6h7h", "knock 7h / 5h6h7", "knock 7h / 5h5h5d",
    "layoff 8h", "layoff 8h>x", "layoff 8h>-1", "layoff zz>0", "layoff / 2c3c", "biggin / Ac Ad",
    "stock 7h", "take it",
    # only ASCII spaces and digits belong to the grammar (the two languages' other
    # spaces and digits differ); quotes in the text as Python's repr shows them
    "layoff 8h>²", "layoff 8h>٣", "layoff 8h>0\u00a09h>1", "pass\x1c", "pass\ufeff",
    "discard\u00a07h", "discard 7h\u2003", "knock 7h / 5h6h7h\x1f", "\tpass\n", "discard 7h\v",
    "discard 7'", "discard 7\"h", "knock 7h /5h 6h,7h",
)


def action_cases() -> Iterator[Case]:
    """Action texts, each parsed to its canonical text or refused with gin's message."""
    for text in _ACTION_TEXTS:
        try:
            yield {"kind": "action", "text": text, "canonical": str(parse_action(text))}
        except MalformedInput as exc:
            yield {"kind": "action", "text": text, "error": str(exc)}


def rules_cases() -> Iterator[Case]:
    """Rulesets as data, each read to its description or refused with gin's message:
    the presets, house rules, every bound just inside and outside, wrong types,
    bad names, a preset's name on other values, unknown fields, not a map."""
    datas: list[Any] = [r.to_dict() for r in RULESETS]
    for name, (low, high) in BOUNDS.items():
        for value in (low, high, low - 1, high + 1, str(low), True, None, 1.5):
            datas.append({"name": "house", name: value})
    for flag in ("knock_limit_from_upcard", "winner_deals"):
        datas += [{"name": "house", flag: v} for v in (True, False, 0, 1, "yes", None)]
    datas += [{"name": n} for n in ("x", "A b.c_d+e-f", " lead", "", "a" * 32, "a" * 33,
                                    "tab\there", "ünï", "o'k", 7, None)]
    datas += [{"name": "house", "shutout": s} for s in
              ("double_bonus", "double_total", "none", "triple", None, 2)]
    datas += [{"name": "standard", "gin_bonus": 20, "box_bonus": 30},
              {"name": "classic", "gin_bonus": 20, "undercut_bonus": 10, "box_bonus": 20},
              {"name": "oklahoma", "knock_limit_from_upcard": False},
              {"knock_limt": 3, "zeta": 1}, {}, [], "standard", 5, None,
              # Custom rules nearest a preset other than standard: their changes are
              # shown against it.
              {"name": "house", "gin_bonus": 20, "undercut_bonus": 10, "box_bonus": 20,
               "target": 50},
              {"name": "house", "knock_limit_from_upcard": True, "winner_deals": True}]
    for data in datas:
        case: Case = {"kind": "rules", "data": data}
        try:
            rules = Ruleset.from_dict(data)
        except MalformedInput as exc:
            case["error"] = str(exc)
        else:
            case["is_preset"] = rules.is_preset
            case["describe"] = rules.describe()
            case["to_dict"] = rules.to_dict()
        yield case


# -- player decisions ----------------------------------------------------------------

_DECIDERS = ("easy", "normal", "hard", "simple", "random")


def decisions_case(rules: Ruleset, seed: int, names: tuple[str, str]) -> Case:
    """One hand played by two computer players; at every position, what each
    player (and the hint) would do there."""
    rng = random.Random(f"gin-conformance:decisions:{rules.name}:{seed}")
    player_seed = rng.getrandbits(32)
    deciders = {name: get(name, player_seed) for name in _DECIDERS}
    drivers = [get(name, rng.getrandbits(32)) for name in names]
    deck = shuffled_deck(rng)
    # A hand in the middle of a match (a player may weigh the score), its scores
    # short of the target.
    match = Match(rules, rng.randint(0, 1))
    match.scores[:] = [rng.randrange(rules.target), rng.randrange(rules.target)]
    match.hands_won[:] = [rng.randint(0, 4), rng.randint(0, 4)]
    hand = match.deal(deck)
    positions: list[Case] = []
    while hand.phase is not Phase.OVER:
        player = hand.turn
        obs = match.observation(player)
        legal = hand.legal_actions()
        position: Case = {"step": len(hand.actions)}
        for name, decider in deciders.items():
            position[name] = str(decider.choose(obs, legal))
        advice = hint(obs, legal)
        position["hint"] = [str(advice.action), advice.reason]
        positions.append(position)
        hand.apply(player, drivers[player].choose(obs, legal))
    return {
        "kind": "decisions",
        "rules": rules.to_dict(),
        "dealer": hand.dealer,
        "deck": [str(c) for c in deck],
        "seed": player_seed,
        "scores": list(obs.scores),
        "hands_won": list(obs.hands_won),
        "actions": [[p, str(a)] for p, a in hand.actions],
        "positions": positions,
    }


def decisions_cases(per_ruleset: int, seed: int = 1) -> Iterator[Case]:
    """``per_ruleset`` hands under each ruleset, played by pairs of players in turn."""
    for rules in RULESETS:
        for i in range(per_ruleset):
            names = (_DECIDERS[i % 5], _DECIDERS[(i // 5 + i + 1) % 5])
            yield decisions_case(rules, seed * 100_000 + i, names)
