"""The handshake (protocol.md §4, §7.1) and the start of each hand, as the stage table's
handlers (:mod:`gin.protocol.session.table`): the host's hello, the guest's answer
(at once, or once its player accepts the offered rules or rematch), the coin toss and
each hand's commitment; the twin of client/web/src/protocol/session/start.ts."""

from __future__ import annotations

from gin.engine.match import Match
from gin.engine.rules import Ruleset
from gin.protocol.deal import fairdeal as fd
from gin.protocol.records import cosign
from gin.protocol.session.events import (
    MatchStarted,
    RematchDeclined,
    RulesDeclined,
    RulesOffered,
)
from gin.protocol.session.flow import MatchFlow, Stage
from gin.protocol.session.hand import HandState, coin, rules_digest
from gin.protocol.session.handshake import MatchKeys, read_rules
from gin.protocol.session.rematch import NOT_PLAYED, NOT_PLAYED_TOLD, first_dealer, prev_fault
from gin.protocol.wire import channel as wire

NONCE_BYTES = 32


def begin(flow: MatchFlow, _: None) -> Stage:
    """Draw the signing key; the host proposes its rules and commits to its coin."""
    flow.keys = MatchKeys(flow.seat, flow.link_id, flow.identity,
                          flow.random(cosign.KEY_SEED_BYTES),
                          b"" if flow.rematch is None else flow.rematch.match_id)
    if flow.role != "host":
        return Stage.HELLO
    assert flow.agreed is not None
    flow.nonce = flow.random(NONCE_BYTES)
    flow.send("hello", {"rules": flow.agreed.to_dict(),
                        "coin": coin(flow.link_id, flow.nonce), **flow.keys.fields()})
    return Stage.WELCOME


def on_hello(flow: MatchFlow, msg: wire.Message) -> Stage:
    msg.only("rules", "coin", "key", "id", "prev", "vouch")
    rules = read_rules(msg)
    if flow.proposed is not None and rules != flow.proposed:
        raise flow.protocol(f"the host proposes the {rules.name} rules {rules.to_dict()}, "
                            "which this guest did not agree to", "hello.rules")
    flow.peer_coin = msg.blob("coin", size=32)
    assert flow.keys is not None
    flow.keys.read(msg, flow.protocol)
    prev, wrong = flow.keys.previous, prev_fault(flow.keys.previous, flow.rematch)
    if prev and flow.rematch is None:
        return _refuse(flow, "hello.prev", NOT_PLAYED, NOT_PLAYED_TOLD)
    if wrong is not None:
        raise flow.protocol(wrong, "hello.prev")
    if prev or (flow.proposed is None and not rules.is_preset):  # shown first (§7.1)
        flow.offered = rules
        flow.emit(RulesOffered(rules, rematch=bool(prev)))
        return Stage.RULES
    return _welcome(flow, rules)


def accept(flow: MatchFlow, _: None) -> Stage:
    """The local player accepted the offered rules."""
    assert flow.offered is not None
    rules, flow.offered = flow.offered, None
    return _welcome(flow, rules)


def decline(flow: MatchFlow, reason: str | None) -> Stage:
    """The local player declines the offered rules or rematch: tell the host, stop."""
    flow.offered = None
    if flow.rematch is not None:  # a normal end of the series, not a failure
        flow.send("abort", {"why": "declined", "field": "hello.prev",
                            "reason": "the guest declined the rematch"})
        return declined(flow, reason or "you declined the rematch")
    return _refuse(flow, "hello.rules", reason or "you declined the host's custom rules",
                   "the guest declined the host's custom rules")


def declined(flow: MatchFlow, reason: str) -> Stage:
    """The guest declined the rematch: the series ends here, nobody at fault."""
    flow.declined = True
    flow.emit(RematchDeclined("guest", reason))
    return Stage.OVER


def _refuse(flow: MatchFlow, field: str, reason: str, told: str) -> Stage:
    """End the match unplayed: ``told`` is what the host reads, ``reason`` ours."""
    flow.send("abort", {"why": "declined", "field": field, "reason": told})
    return flow.fail(RulesDeclined("guest", field, reason))


def _welcome(flow: MatchFlow, rules: Ruleset) -> Stage:
    assert flow.keys is not None
    flow.agreed = rules
    flow.nonce = flow.random(NONCE_BYTES)
    flow.send("welcome", {"rules": rules_digest(rules), "nonce": flow.nonce,
                          **flow.keys.fields()})
    return Stage.START


def on_welcome(flow: MatchFlow, msg: wire.Message) -> Stage:
    msg.only("rules", "nonce", "key", "id", "vouch")
    assert flow.agreed is not None and flow.nonce is not None and flow.keys is not None
    if msg.blob("rules", size=32) != rules_digest(flow.agreed):
        raise flow.protocol("the guest agreed to another ruleset", "welcome.rules")
    guest_nonce = msg.blob("nonce", size=NONCE_BYTES)
    flow.keys.read(msg, flow.protocol)
    assert flow.match_id is not None
    flow.send("start", {"nonce": flow.nonce})
    return _start_match(flow, first_dealer(flow.match_id, flow.nonce, guest_nonce,
                                           flow.rematch))


def on_start(flow: MatchFlow, msg: wire.Message) -> Stage:
    msg.only("nonce")
    host_nonce = msg.blob("nonce", size=NONCE_BYTES)
    if coin(flow.link_id, host_nonce) != flow.peer_coin:
        raise flow.cheat("the host's nonce does not open its coin commitment", "start.nonce")
    assert flow.nonce is not None and flow.match_id is not None
    return _start_match(flow, first_dealer(flow.match_id, host_nonce, flow.nonce,
                                           flow.rematch))


def _start_match(flow: MatchFlow, dealer: int) -> Stage:
    assert flow.agreed is not None and flow.match_id is not None
    flow.match = Match(flow.agreed, dealer)
    flow.emit(MatchStarted(flow.agreed, flow.seat, dealer, flow.match_id))
    return start_hand(flow)


def start_hand(flow: MatchFlow) -> Stage:
    """A new hand: draw its seed and send its commitment (§7.2)."""
    assert flow.match is not None and flow.match_id is not None
    number = 1 if flow.hand is None else flow.hand.number + 1
    hs = HandState(number, flow.match.dealer, flow.seat, flow.random(fd.SEED_BYTES),
                   flow.match_id)
    flow.hand = hs
    flow.send("commit", {"h": number, "c": hs.commits[hs.role]})
    return Stage.COMMIT
