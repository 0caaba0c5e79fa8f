"""Identities (protocol.md §4, §7.1, §9): the vouch checked in the handshake, the five
words, and a match minted on a real link found by the audit of both."""

from __future__ import annotations

import random
import re
from collections.abc import Mapping
from pathlib import Path

import pytest

from gin.conformance.identity_cases import LINK_SECRET, MINTER, link_matches
from gin.conformance.session_peer import IDENTITIES
from gin.engine.errors import MalformedInput
from gin.engine.rules import STANDARD
from gin.protocol.records import cosign
from gin.protocol.records.audit import audit_records
from gin.protocol.records.history import identities_text, place
from gin.protocol.records.identity import WORDS, Identity, fingerprint
from gin.protocol.records.records import parse_record
from gin.protocol.session.events import MatchStarted, ProtocolError
from gin.protocol.session.session import CorruptState, Session, pump
from gin.protocol.wire import channel as wire

IDENTITY_TS = Path(__file__).resolve().parents[3] / "client/web/src/protocol/records/identity.ts"


def test_the_word_list_is_256_distinct_words_the_same_in_both_languages() -> None:
    assert len(WORDS) == len(set(WORDS)) == 256
    assert all(re.fullmatch("[a-z]{3,6}", w) for w in WORDS)
    text = IDENTITY_TS.read_text(encoding="utf-8")
    block = re.search(r"export const WORDS\b.*?Object\.freeze\(\[(.*?)\]\)", text, re.S)
    assert block is not None
    assert tuple(re.findall(r'"([a-z]+)"', block.group(1))) == WORDS


def test_a_fingerprint_is_five_words_of_the_list_and_tells_keys_apart() -> None:
    keys = [Identity(random.Random(i).randbytes(32)).public for i in range(50)]
    prints = [fingerprint(k) for k in keys]
    assert all(len(p.split()) == 5 and set(p.split()) <= set(WORDS) for p in prints)
    assert len(set(prints)) == len(prints)
    assert fingerprint(keys[0]) == prints[0]  # the same key, the same words


def sessions(guest_identity: bytes = b"g" * 32) -> tuple[Session, Session]:
    return (Session("host", LINK_SECRET, STANDARD, random.Random("h").randbytes, b"h" * 32),
            Session("guest", LINK_SECRET, None, random.Random("g").randbytes, guest_identity))


def test_both_sides_learn_both_identities() -> None:
    host, guest = sessions()
    pump(host, guest)
    both = (Identity(b"h" * 32).public, Identity(b"g" * 32).public)
    assert host.identities == guest.identities == both
    assert any(isinstance(e, MatchStarted) for e in host.events())


class Liar(Session):
    """A peer whose identity vouches, in ``lie_in``, for another signing key than its own."""

    lie_in = ""

    def _send(self, msg_type: str, fields: Mapping[str, object],
              version: int = wire.PROTOCOL_VERSION) -> None:
        if msg_type == self.lie_in:
            stranger = cosign.Signer(bytes(32)).public
            fields = {**fields, "vouch": self._flow.identity.vouch(
                self.link_id, self.seat, stranger, b"")}
        super()._send(msg_type, fields, version)


@pytest.mark.parametrize(("who", "message"), [("host", "hello"), ("guest", "welcome")])
def test_a_vouch_that_does_not_sign_the_key_is_the_senders_protocol_error(
        who: str, message: str) -> None:
    liar = type("Lying", (Liar,), {"lie_in": message})
    host = (liar if who == "host" else Session)(
        "host", LINK_SECRET, STANDARD, random.Random("h").randbytes, b"h" * 32)
    guest = (liar if who == "guest" else Session)(
        "guest", LINK_SECRET, None, random.Random("g").randbytes, b"g" * 32)
    pump(host, guest)
    failure = (guest if who == "host" else host).failure
    assert isinstance(failure, ProtocolError)
    assert (failure.who, failure.field) == (who, f"{message}.vouch")
    assert "does not vouch for its signing key" in failure.reason
    assert host.observation() is None and guest.observation() is None  # no card was dealt


def test_a_save_restores_only_under_the_identity_it_was_played_with() -> None:
    host, guest = sessions()
    pump(host, guest)
    state = guest.to_state()
    again = Session.from_state(LINK_SECRET, state, random.Random("r").randbytes, b"g" * 32)
    assert again.identities == guest.identities
    with pytest.raises(CorruptState):  # another key makes another welcome than the one sent
        Session.from_state(LINK_SECRET, state, random.Random("r").randbytes, b"x" * 32)


def test_one_identity_cannot_play_both_seats() -> None:
    host, guest = sessions(guest_identity=b"h" * 32)
    pump(host, guest)
    failure = host.failure
    assert isinstance(failure, ProtocolError)
    assert (failure.who, failure.field) == ("guest", "welcome.id")
    assert guest.failure is not None and guest.observation() is None


def test_a_minted_match_beside_the_real_one_is_a_conflict_and_neither_verifies() -> None:
    real, minted = link_matches()
    a, b, c = (Identity(x).public for x in (IDENTITIES["host"], IDENTITIES["guest"], MINTER))
    assert {r.identities for r in real} == {(a, b)} and {r.identities for r in minted} == {(a, c)}
    # Each alone verifies, every hand, every score.
    for match in (real, minted):
        assert all(r.ok and not r.unproven for r in audit_records(match))
    results = audit_records([*real, *minted])
    assert all(not r.ok for r in results)
    for result in results:
        (finding,) = result.findings
        assert finding.where == "link"
        assert finding.detail.startswith(
            f"records of link {real[0].link_id.hex()} do not form one history: ")
        assert "both begin it; at most one is the real match" in finding.detail
        assert fingerprint(b) in finding.detail and fingerprint(c) in finding.detail
    assert identities_text(minted[0].identities) == (
        f"identities: host {fingerprint(a)} ({a.hex()}), guest {fingerprint(c)} ({c.hex()})")


def test_a_record_names_both_identities_and_a_record_without_them_is_refused() -> None:
    real, _ = link_matches()
    text = real[0].to_json()
    assert parse_record(text) == real[0]
    old = re.sub(r',\n "identities": \{[^}]*\},\n "vouches": \{[^}]*\},\n "previous": null', "",
                 text)
    assert old != text
    with pytest.raises(MalformedInput, match=r"record.identities: missing"):
        parse_record(old)


def test_a_rematch_chains_to_the_match_before_it() -> None:
    real, _ = link_matches()
    first = real[0]
    # Only what names the match matters to the history: a later match continuing this one.
    link, ids = first.link_id, first.identities
    keys = (cosign.Signer(bytes([7] * 32)).public, cosign.Signer(bytes([8] * 32)).public)
    seeds = (IDENTITIES["host"], IDENTITIES["guest"])
    vouches = tuple(Identity(seeds[s]).vouch(link, s, keys[s], first.match_id) for s in (0, 1))
    later = type("Later", (), dict(
        match_id=cosign.match_id_for(link, keys, ids, first.match_id), link_id=link,
        signing_keys=keys, identities=ids, vouches=vouches, previous=first.match_id))()
    assert place([first, later]) == {}
    alone = place([later])
    assert alone[0].conflict is None and alone[0].unproven is not None
    assert "the match before" in alone[0].unproven
