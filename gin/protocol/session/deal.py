"""One hand's fair deal before play (protocol.md §7.2, §7.3): the commitments, the
three deck messages — the second's signed, with its shuffle proof — and this side's
deal; the twin of client/web/src/protocol/session/deal.ts. Each handler of the stage
table (:mod:`gin.protocol.session.table`) takes the match flow and the peer's message
and returns the next stage."""

from __future__ import annotations

from gin.engine.hand import UPCARD_POSITION, dealt_positions
from gin.protocol.deal import fairdeal as fd
from gin.protocol.deal import shuffle_proof as sp
from gin.protocol.records import cosign
from gin.protocol.records.evidence import DealEvidence
from gin.protocol.records.records import Step
from gin.protocol.session.flow import MatchFlow, Stage
from gin.protocol.session.hand import HandState
from gin.protocol.wire import channel as wire


def on_commit(io: MatchFlow, msg: wire.Message) -> Stage:
    """The peer's commitment; the first shuffler then sends message 1."""
    hs = io.state()
    io.hand_fields(msg, "c")
    hs.commits[hs.role.other] = msg.blob("c", size=32)
    if hs.role is fd.Role.FIRST:  # commitments exchanged: the first shuffle may go
        message1 = fd.build_message1(hs.mine)
        hs.messages[0] = message1
        io.send("deck", {"h": hs.number, "n": 1, "deck": list(message1)})
    return Stage.DECK


def on_deck(io: MatchFlow, msg: wire.Message) -> Stage:
    """A deck message, checked on arrival (§8.6, §8.8): the second answers message 1
    with message 2 and its proof, signed; the first checks them, answers with message
    3 and deals; the second deals on message 3."""
    hs = io.state()
    n = msg.integer("n", low=1, high=3)
    io.hand_fields(msg, "n", "deck", *(("proof", "sig") if n == 2 else ()))
    if n != hs.expected_deck():
        raise io.protocol(f"deck message {n} while waiting for message {hs.expected_deck()}",
                          "deck.n")
    entries = msg.blobs("deck", min_len=fd.DECK_SIZE, max_len=fd.DECK_SIZE, size=32)
    if n == 2:
        return _on_message2(hs, msg, entries, io)
    try:
        deck = fd.validate_message(list(entries), f"message{n}")
    except fd.MalformedDeck as exc:
        raise io.cheat(str(exc), exc.where) from None
    hs.messages[n - 1] = deck
    if n == 1:  # the second shuffle, its proof and our signature of both (§7.2)
        ctx = fd.context(hs.match_id, hs.number)
        message2, proof = fd.build_message2(hs.mine, deck, ctx)
        hs.messages[1] = message2
        hs.proof = fd.proof_digest(proof)
        assert io.keys is not None
        sig = io.keys.signer.sign(cosign.message2_digest(io.seat, ctx, deck, message2, proof))
        io.send("deck", {"h": hs.number, "n": 2, "deck": list(message2),
                         "proof": sp.words(proof), "sig": sig})
        return Stage.DECK
    return _send_deal(hs, io)


def _on_message2(hs: HandState, msg: wire.Message, entries: tuple[bytes, ...],
                 io: MatchFlow) -> Stage:
    """The second's message 2: its signature, then its entries and proof. A refusal is
    a cheat with evidence (the signed message) that anyone can check (§10.2)."""
    words = sp.PROOF_BYTES // 32  # 32-byte words: within the codec's binary limit
    proof = b"".join(msg.blobs("proof", min_len=words, max_len=words, size=32))
    sig = msg.blob("sig", size=cosign.SIGNATURE_BYTES)
    message1 = hs.messages[0]
    assert message1 is not None and io.keys is not None
    evidence = DealEvidence(match_id=hs.match_id, hand_number=hs.number, dealer=hs.dealer,
                            message1=message1, message2=entries, proof=proof, signature=sig,
                            **io.keys.binding())
    if not cosign.verify(evidence.signing_keys[io.peer], evidence.digest(), sig):
        raise io.protocol("the second shuffler's signature does not sign its message 2",
                          "deck.sig")
    refusal = fd.message2_refusal(fd.context(hs.match_id, hs.number), message1, entries,
                                  proof)
    if refusal is not None:
        where, why = refusal  # a bad entry's reason says where, as message 1's and 3's do
        raise io.cheat(why if where == "proof" else f"{where}: {why}", where, evidence)
    hs.messages[1] = entries
    hs.proof = fd.proof_digest(proof)
    message3 = fd.build_message3(hs.mine, entries)
    hs.messages[2] = message3
    io.send("deck", {"h": hs.number, "n": 3, "deck": list(message3)})
    return _send_deal(hs, io)


def _send_deal(hs: HandState, io: MatchFlow) -> Stage:
    """Our keys for the peer's ten dealt positions and the upcard (§7.3)."""
    positions = [*dealt_positions(io.peer == hs.dealer), UPCARD_POSITION]
    keys = [hs.mine.position_keys[p] for p in positions]
    hs.keys_sent.update(positions)
    hs.steps.append(Step(io.seat, None, tuple(zip(positions, keys, strict=True))))
    io.send("deal", {"h": hs.number, "keys": [fd.key_bytes(k) for k in keys]})
    return Stage.DEAL
