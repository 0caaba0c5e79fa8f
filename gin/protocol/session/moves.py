"""The hand in play as the stage table's handlers (protocol.md §7.3–§7.7,
:mod:`gin.protocol.session.table`): the peer's deal, its moves checked on arrival, the
keys and cards shown, the local player's moves with the keys that go with them, the
hand's end with its audit and signatures, and the peer's abort; the twin of
client/web/src/protocol/session/moves.ts."""

from __future__ import annotations

from dataclasses import replace

from gin.engine.actions import Action, BigGin, Discard, DrawStock, Knock, parse_action
from gin.engine.cards import Card
from gin.engine.errors import MalformedInput, PeerFault
from gin.engine.hand import UPCARD_POSITION, Hand, dealt_positions
from gin.protocol.deal import fairdeal as fd
from gin.protocol.records import cosign
from gin.protocol.records.audit import audit_record
from gin.protocol.records.records import SEATS, Step
from gin.protocol.session.events import (
    CardDrawn,
    CheatDetected,
    HandDealt,
    HandScored,
    HandVerified,
    MatchOver,
    abort_failure,
)
from gin.protocol.session.flow import (
    HAND_KEYS,
    MAX_ACTION_CHARS,
    MAX_FIELD_CHARS,
    MAX_REASON_CHARS,
    OWES,
    MatchFlow,
    Stage,
)
from gin.protocol.session.hand import HandState
from gin.protocol.session.rematch import NOT_PLAYED_TOLD
from gin.protocol.session.start import declined, start_hand
from gin.protocol.wire import channel as wire

ABORT_KINDS = ("cheat", "protocol", "tampered", "timeout", "declined", "abandoned")


# -- the local player's moves -------------------------------------------------------------


def play(flow: MatchFlow, action: Action) -> Stage:
    """Play the local player's action (already checked legal)."""
    hs = flow.state()
    hand = flow.engine()
    pairs: tuple[tuple[int, int], ...] = ()
    if isinstance(action, Discard):
        pos = flow.position_of(action.card)
        pairs = () if pos in hs.keys_sent else ((pos, hs.mine.position_keys[pos]),)
    elif isinstance(action, Knock | BigGin):
        pairs = _unrevealed_keys(flow)
    hs.keys_sent.update(p for p, _ in pairs)
    hs.steps.append(Step(flow.seat, action, pairs))
    flow.send("move", {"h": hs.number, "a": str(action), "pos": [p for p, _ in pairs],
                       "keys": [fd.key_bytes(k) for _, k in pairs]})
    if isinstance(action, Knock | BigGin):
        hs.knock_pending = action  # applied once the defender has shown its cards
        return Stage.SHOW
    if isinstance(action, DrawStock):
        hs.draw_pending = hand.next_stock_position
    flow.apply(flow.seat, action)
    after = _after_move(flow)
    return Stage.KEY if after is Stage.PLAY and hs.draw_pending is not None else after


def _unrevealed_keys(flow: MatchFlow) -> tuple[tuple[int, int], ...]:
    """Our keys for every card we hold that the peer cannot open yet."""
    hs = flow.state()
    positions = sorted(flow.position_of(c) for c in flow.engine().cards(flow.seat))
    pairs = tuple((p, hs.mine.position_keys[p]) for p in positions if p not in hs.keys_sent)
    hs.keys_sent.update(p for p, _ in pairs)
    return pairs


# -- the peer's deal and moves ----------------------------------------------------------------


def on_deal(flow: MatchFlow, msg: wire.Message) -> Stage:
    flow.hand_fields(msg, "keys")
    hs = flow.state()
    assert flow.match is not None
    keys = msg.blobs("keys", min_len=HAND_KEYS, max_len=HAND_KEYS, size=fd.KEY_BYTES)
    positions = [*dealt_positions(flow.seat == hs.dealer), UPCARD_POSITION]
    deck: list[Card | None] = [None] * fd.DECK_SIZE
    pairs = []
    for i, (pos, key) in enumerate(zip(positions, keys, strict=True)):
        deck[pos] = _open(hs, pos, key, f"deal.keys[{i}]", flow)
        pairs.append((pos, fd.key_from_bytes(key)))
    try:
        hand = flow.match.deal(deck)
    except MalformedInput as exc:
        raise flow.cheat(f"the dealt cards are corrupt: {exc}", "deal.keys") from None
    hs.dealt = True
    hs.peer_positions.update(dealt_positions(flow.peer == hs.dealer))
    hs.steps.append(Step(flow.peer, None, tuple(pairs)))
    flow.emit(HandDealt(hs.number, hs.dealer, hand.cards(flow.seat), hand.pile[-1]))
    return flow.turn()


def on_move(flow: MatchFlow, msg: wire.Message) -> Stage:
    flow.hand_fields(msg, "a", "pos", "keys")
    hs = flow.state()
    hand = flow.engine()
    peer = SEATS[flow.peer]
    text = msg.text("a", max_len=MAX_ACTION_CHARS)
    try:
        action = parse_action(text)
    except MalformedInput as exc:
        raise flow.protocol(str(exc), "move.a") from None
    allowed = HAND_KEYS if isinstance(action, Knock | BigGin) else (
        1 if isinstance(action, Discard) else 0)
    pairs = _reveal_all(hs, hand, msg, "move", allowed, flow)
    if isinstance(action, Discard) and pairs:
        shown = hand.card_at(pairs[0][0])
        if shown != action.card:
            raise flow.cheat(f"move.keys[0]: opens {shown}, not the discarded "
                             f"{action.card}", "move.keys[0]")
    why = hand.refusal(flow.peer, action)
    if why is not None:
        raise flow.cheat(f"{peer} cannot {action}: {why}", "move.a")
    hs.steps.append(Step(flow.peer, action, pairs))
    drawn = hand.next_stock_position
    flow.apply(flow.peer, action)
    if isinstance(action, DrawStock):  # announced: only now may the key go (§7.4)
        hs.peer_positions.add(drawn)
        key = hs.mine.position_keys[drawn]
        hs.keys_sent.add(drawn)
        hs.steps.append(Step(flow.seat, None, ((drawn, key),)))
        flow.send("key", {"h": hs.number, "pos": drawn, "key": fd.key_bytes(key)})
    elif isinstance(action, Knock | BigGin):
        pairs = _unrevealed_keys(flow)
        hs.steps.append(Step(flow.seat, None, pairs))
        flow.send("show", {"h": hs.number, "pos": [p for p, _ in pairs],
                           "keys": [fd.key_bytes(k) for _, k in pairs]})
    return _after_move(flow)


def on_key(flow: MatchFlow, msg: wire.Message) -> Stage:
    flow.hand_fields(msg, "pos", "key")
    hs = flow.state()
    pos = msg.integer("pos", low=0, high=fd.DECK_SIZE - 1)
    if pos != hs.draw_pending:
        raise flow.protocol(f"key for position {pos}, but the card drawn is at "
                            f"{hs.draw_pending}", "key.pos")
    key = msg.blob("key", size=fd.KEY_BYTES)
    card = _open(hs, pos, key, "key.key", flow)
    try:
        flow.engine().reveal(pos, card)
    except MalformedInput as exc:
        raise flow.cheat(f"key.key: {exc}", "key.key") from None
    hs.draw_pending = None
    hs.steps.append(Step(flow.peer, None, ((pos, fd.key_from_bytes(key)),)))
    flow.emit(CardDrawn(card))
    return Stage.PLAY


def on_show(flow: MatchFlow, msg: wire.Message) -> Stage:
    flow.hand_fields(msg, "pos", "keys")
    hs = flow.state()
    pairs = _reveal_all(hs, flow.engine(), msg, "show", HAND_KEYS, flow)
    hidden = flow.engine().hidden_count(flow.peer)
    if hidden:
        raise flow.cheat(f"show: {hidden} of {SEATS[flow.peer]}'s cards are still hidden",
                         "show.pos")
    hs.steps.append(Step(flow.peer, None, pairs))
    action, hs.knock_pending = hs.knock_pending, None
    assert action is not None
    flow.apply(flow.seat, action)
    return _after_move(flow)


def _after_move(flow: MatchFlow) -> Stage:
    """The next stage after a move; when it ended the hand, sign it and send our seed."""
    hand = flow.engine()
    if hand.result is None:
        return flow.turn()
    hs = flow.state()
    assert flow.match is not None and flow.keys is not None
    flow.emit(HandScored(hs.number, hand.result, (flow.match.scores[0], flow.match.scores[1])))
    hs.my_signature = flow.keys.signer.sign(
        cosign.seed_signed(cosign.hand_digest(flow.record()), hs.mine.seed))
    flow.send("seed", {"h": hs.number, "seed": hs.mine.seed, "sig": hs.my_signature})
    return Stage.SEED


def on_seed(flow: MatchFlow, msg: wire.Message) -> Stage:
    flow.hand_fields(msg, "seed", "sig")
    hs = flow.state()
    peer = SEATS[flow.peer]
    hs.their_seed = msg.blob("seed", size=fd.SEED_BYTES)
    signature = msg.blob("sig", size=cosign.SIGNATURE_BYTES)
    record = flow.record()
    assert flow.keys is not None
    signed = cosign.verify(flow.keys.signing_keys[flow.peer],
                           cosign.seat_signed(record, flow.peer), signature)
    report = audit_record(record, trust_seat=flow.seat)
    if not report.ok:
        # Evidence a third party can check: the record with both signatures of the
        # transcript (the cheater's when it signed the hand as played here).
        kept = {flow.seat: hs.my_signature or b"", flow.peer: signature if signed else b""}
        first = report.findings[0]
        return flow.fail(CheatDetected(first.who, first.where, str(first), replace(
            record, signatures=(kept[0], kept[1]))))
    if not signed:
        raise flow.protocol(f"the {peer}'s signature does not sign this hand as played",
                            "seed.sig")
    assert hs.my_signature is not None
    signatures = {flow.seat: hs.my_signature, flow.peer: signature}
    flow.emit(HandVerified(hs.number, replace(record, signatures=(signatures[0], signatures[1]))))
    assert flow.match is not None
    totals = flow.match.totals
    if totals is None:
        return start_hand(flow)
    flow.emit(MatchOver(totals.winner, totals, None))
    return Stage.OVER


def on_abort(flow: MatchFlow, msg: wire.Message) -> Stage:
    msg.only("why", "field", "reason")
    why = msg.text("why", max_len=16, choices=ABORT_KINDS)
    field = msg.text("field", max_len=MAX_FIELD_CHARS)
    reason = msg.text("reason", max_len=MAX_REASON_CHARS)
    if (why == "declined" and flow.role == "host" and flow.rematch is not None
            and flow.match is None and reason != NOT_PLAYED_TOLD):
        return declined(flow, reason)  # the guest's answer to the offer: no fault, the end
    return flow.fail(abort_failure(SEATS[flow.peer], OWES[flow.stage], why, field, reason,
                                   flow.unacknowledged() == 0))


# -- opening the peer's cards -----------------------------------------------------------------


def _open(hs: HandState, position: int, key: bytes, field: str, flow: MatchFlow) -> Card:
    """The card at ``position``, opened with our key and the peer's; a cheat if not."""
    messages3 = hs.messages[2]
    assert messages3 is not None
    try:
        index = fd.open_card(messages3, position, hs.mine.position_keys[position],
                             fd.key_from_bytes(key), hs.role.other)
    except PeerFault as exc:
        raise flow.cheat(f"{field}: {exc}", field) from None
    return Card.from_index(index)


def _reveal_all(hs: HandState, hand: Hand, msg: wire.Message, name: str, max_keys: int,
                flow: MatchFlow) -> tuple[tuple[int, int], ...]:
    """Open and reveal the peer's hidden positions listed in ``pos``/``keys``."""
    positions = msg.integers("pos", max_len=max_keys, low=0, high=fd.DECK_SIZE - 1)
    keys = msg.blobs("keys", max_len=max_keys, size=fd.KEY_BYTES)
    if len(positions) != len(keys):
        raise flow.protocol(f"{name}: {len(positions)} positions but {len(keys)} keys",
                            f"{name}.keys")
    pairs = []
    for i, (pos, key) in enumerate(zip(positions, keys, strict=True)):
        field = f"{name}.pos[{i}]"
        if pos not in hs.peer_positions or hand.card_at(pos) is not None:
            raise flow.cheat(f"{field}: position {pos} is not a hidden card of "
                             f"{SEATS[flow.peer]}", field)
        card = _open(hs, pos, key, f"{name}.keys[{i}]", flow)
        try:
            hand.reveal(pos, card)
        except MalformedInput as exc:
            raise flow.cheat(f"{field}: {exc}", field) from None
        pairs.append((pos, fd.key_from_bytes(key)))
    return tuple(pairs)
