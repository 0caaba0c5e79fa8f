"""Players' identities (protocol.md §4, §7.1): a long-term Ed25519 key per data folder or
browser profile, the vouch that binds it to a match's signing key, and the fingerprint
a person reads aloud (the twin of client/web/src/protocol/records/identity.ts).

The signing keys of a match are fresh, so without identities anyone holding an invite
link could play both seats and mint a whole match. Each side's identity key signs a
*vouch* for its per-match signing key on this link; the match id binds both identities
and the match this one continues, so a record names who played. Pure: the 32 secret
bytes of an identity come from the client, which keeps them.
"""

from __future__ import annotations

import hashlib

from gin.engine.errors import MalformedInput
from gin.protocol.records import cosign
from gin.protocol.records.records import SEATS

VOUCH_DOMAIN = b"gin/session/v3/vouch\x00"
FINGERPRINT_DOMAIN = b"gin/identity/v3/fingerprint\x00"
IDENTITY_SEED_BYTES = 32
PREVIOUS_BYTES = (0, cosign.MATCH_ID_BYTES)  # a first match, or the match it continues
FINGERPRINT_WORDS = 5

#: 256 short, common, distinct English words, none a homophone of another word: word i
#: of a fingerprint is WORDS[byte i]. The same list, in the same order, is in identity.ts.
_WORD_BLOCK = """
acorn actor album anchor ankle antler apple apron arrow atlas award bacon badge
bamboo banana banjo barn barrel basket beaver beetle bench bike bird bison bottle
brick bridge broom bubble bucket butter button cabin cactus camel camera candle
candy canoe canvas canyon carpet carrot castle chair chalk cheese cherry chess
circus cliff clock cloud clover coast cocoa coffee comet cookie copper cotton crab
cradle crane crayon crown daisy dart doctor donkey door dragon drum duck dune eagle
echo elbow engine falcon farm fence fern finger fish flag flame flute forest fork
fossil fox frog galaxy garden garlic giant ginger glass globe glove goat gold goose
grape gravel guitar hammer harbor harp hawk hedge helmet hill honey hotel igloo
island ivory jacket jaguar jelly jungle kayak kettle kite koala ladder lake lamp
laptop lemon lion lizard llama locket lotus magnet mango maple marble meadow melon
mirror mitten monkey moon motor mouse muffin needle nest noodle ocean olive onion
opera orange orchid otter owl oyster paddle panda paper parrot peach peanut pebble
pencil pepper piano pickle pigeon pillow pilot pine planet pocket pony potato prism
puppet puzzle quilt rabbit radio raft raisin rhino ribbon river robin rocket ruby
saddle salad scarf shark sheep shell ship shovel silver skate sled snail snake sock
spider sponge spoon squid stamp star statue stone stove straw sugar summer swan
sword table teapot tiger toast tomato tooth torch towel tower train tree trophy tuba
tulip tunnel turtle valley violin waffle wagon wallet walnut walrus wheat willow
window winter wizard wolf yogurt zebra zipper
"""
WORDS = tuple(_WORD_BLOCK.split())


def vouch_digest(link_id: bytes, seat: int, signing_key: bytes, previous: bytes) -> bytes:
    """SHA-256("gin/session/v3/vouch" ‖ 00 ‖ link_id ‖ u8(seat) ‖ signing_key ‖
    u8(len previous) ‖ previous): what a seat's identity signs for its match key."""
    if (len(link_id) != cosign.LINK_ID_BYTES or seat not in (0, 1)
            or len(signing_key) != cosign.KEY_BYTES or len(previous) not in PREVIOUS_BYTES):
        raise MalformedInput("vouch inputs have the wrong lengths")
    return hashlib.sha256(VOUCH_DOMAIN + link_id + bytes((seat, *signing_key, len(previous)))
                          + previous).digest()


def check_vouch(identity: bytes, vouch: bytes, link_id: bytes, seat: int, signing_key: bytes,
                previous: bytes) -> bool:
    """Whether ``vouch`` is ``identity``'s signature for ``seat``'s ``signing_key``."""
    return cosign.verify(identity, vouch_digest(link_id, seat, signing_key, previous), vouch)


def binding_refusal(match_id: bytes, link_id: bytes, signing_keys: tuple[bytes, bytes],
                    identities: tuple[bytes, bytes], vouches: tuple[bytes, bytes],
                    previous: bytes | None) -> tuple[str, str] | None:
    """Why a record's match is not bound to its players (audit step 0, §9), as (field,
    detail), or None: each identity vouches for its seat's signing key on this link, the
    two identities differ, and the match id is the one all of them make."""
    before = previous or b""
    for seat, name in enumerate(SEATS):
        if not check_vouch(identities[seat], vouches[seat], link_id, seat, signing_keys[seat],
                           before):
            return (f"vouches.{name}", f"the {name}'s identity does not vouch for the "
                    f"{name}'s signing key on this link")
    if identities[0] == identities[1]:
        return "identities", "the host and the guest are one identity"
    if match_id != cosign.match_id_for(link_id, signing_keys, identities, before):
        return ("match_id", "the match id is not the one the link id, the signing keys, the "
                "identities and the match before make")
    return None


def fingerprint(identity: bytes) -> str:
    """Five words a person can read aloud that name ``identity`` (a public key)."""
    if len(identity) != cosign.KEY_BYTES:
        raise MalformedInput(f"an identity is {cosign.KEY_BYTES} bytes")
    digest = hashlib.sha256(FINGERPRINT_DOMAIN + identity).digest()
    return " ".join(WORDS[b] for b in digest[:FINGERPRINT_WORDS])


class Identity:
    """A player's long-term identity key, from its 32 secret bytes."""

    def __init__(self, seed: bytes) -> None:
        if not isinstance(seed, bytes) or len(seed) != IDENTITY_SEED_BYTES:
            raise MalformedInput(f"an identity key is {IDENTITY_SEED_BYTES} bytes")
        self._signer = cosign.Signer(seed)
        self.public = self._signer.public

    def vouch(self, link_id: bytes, seat: int, signing_key: bytes, previous: bytes) -> bytes:
        return self._signer.sign(vouch_digest(link_id, seat, signing_key, previous))
