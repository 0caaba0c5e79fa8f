"""gin: the pure core of two-player Gin Rummy.

No I/O lives here: no sockets, asyncio, terminal, files, clock or global random.
Randomness and time are passed in, so everything is deterministic under test.

The public API:

* Cards — :class:`Card`, :func:`parse_cards`, :data:`DECK`.
* Melds — :func:`best_arrangement` (exact least deadwood of up to ten cards),
  :func:`best_discard` (exact best discard of eleven), :class:`Arrangement`.
* Lay-offs and scoring — :func:`best_defence_cards`, :func:`settle`,
  :class:`Outcome`, :func:`match_totals`.
* Rules — :class:`Ruleset` and the presets ``standard``, ``classic``,
  ``oklahoma`` (:func:`ruleset`); every number within :data:`RULE_BOUNDS`, a
  preset's name only with its exact values, else :class:`RulesError`.
* State machines — :class:`Hand` (one hand, explicit :class:`Phase`) and
  :class:`Match`; actions (:func:`parse_action`); :class:`Observation`, what one
  player may see.
* Errors — :class:`GinError`, :class:`MalformedInput`, :class:`IllegalAction`,
  :class:`PeerFault`.

Subpackages and modules with their own API, imported on demand (they pull in
cryptography, which the offline game does not need):

* :mod:`gin.players` — ``get(name, seed)`` for easy, normal, hard, simple and
  random computer players; ``hint(obs, legal)``, Hard's move with a reason.
* :mod:`gin.rand` — the portable random stream (xoshiro128**) the players draw from.
* :mod:`gin.simulate` — pure self-play of matches and dealt-hand statistics.
* :mod:`gin.protocol.deal.fairdeal` and :mod:`gin.protocol.deal.group` — the commutative-encryption
  deal on ristretto255.
* :mod:`gin.protocol.deal.shuffle_proof` — the non-interactive proof that the second shuffle
  is a permutation.
* :mod:`gin.protocol.wire.channel` — message encoding and the sealed channel (per-epoch keys,
  acks and re-sends).
* :mod:`gin.protocol.session.session` — the sans-I/O online session (see ``protocol.md``); its
  events and failures are in :mod:`gin.protocol.session.events`.
* :mod:`gin.protocol.records.cosign` — per-match signing keys, the match id, the signed hand digest.
* :mod:`gin.protocol.records.records` and :mod:`gin.protocol.records.audit` — hand records
  and their audit (``audit_records`` chains a match's hands;
  :mod:`gin.protocol.records.reveals` checks the keys each step reveals).
"""

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
from gin.engine.cards import DECK, Card, format_cards, parse_cards
from gin.engine.errors import GinError, IllegalAction, MalformedInput, PeerFault
from gin.engine.hand import Hand, shuffled_deck, stacked_deck
from gin.engine.layoffs import Defence, best_defence_cards
from gin.engine.match import Match
from gin.engine.melds import Arrangement, Meld, best_arrangement, best_discard, deadwood
from gin.engine.observation import Event, HandResult, Observation, Phase
from gin.engine.rules import BOUNDS as RULE_BOUNDS
from gin.engine.rules import PRESETS, RulesError, Ruleset, ruleset
from gin.engine.scoring import MatchTotals, Outcome, match_totals, settle

__all__ = [
    "DECK",
    "PRESETS",
    "RULE_BOUNDS",
    "Action",
    "Arrangement",
    "BigGin",
    "Card",
    "Defence",
    "Discard",
    "DrawPile",
    "DrawStock",
    "Event",
    "GinError",
    "Hand",
    "HandResult",
    "IllegalAction",
    "Knock",
    "LayOff",
    "MalformedInput",
    "Match",
    "MatchTotals",
    "Meld",
    "Observation",
    "Outcome",
    "Pass",
    "PeerFault",
    "Phase",
    "Ruleset",
    "RulesError",
    "best_arrangement",
    "best_defence_cards",
    "best_discard",
    "deadwood",
    "format_cards",
    "match_totals",
    "parse_action",
    "parse_cards",
    "ruleset",
    "settle",
    "shuffled_deck",
    "stacked_deck",
]
