"""The fair deal: a 52-card deck encrypted by two shufflers in ristretto255.

Each shuffler derives from a secret 32-byte seed a permutation of 52, one
whole-deck key, 52 per-position keys (scalars, see :mod:`gin.protocol.deal.group`) and
the key of its shuffle proof's nonces. Three deck messages follow:

1. the first shuffler (role FIRST, keys ``a``, ``a_k``, permutation ``πA``) sends
   ``m1[i] = a·M_{πA[i]}``;
2. the second (role SECOND, keys ``b_j``, permutation ``πB``) sends
   ``m2[j] = b_j·m1[πB[j]]`` — its keys are indexed by the position after its own
   permutation — and, in the same signed message, the proof
   (:mod:`gin.protocol.deal.shuffle_proof`) that ``m2`` is such a shuffle of ``m1``;
3. the first swaps its single key for per-position keys, without permuting:
   ``m3[k] = (a_k·a⁻¹)·m2[k]``.

So final position ``k`` holds card ``deck[k] = πA[πB[k]]`` under keys ``a_k`` and
``b_k``; whoever holds both opens it. The byte-exact derivations are documented
in ``protocol.md`` §8. Pure: seeds are passed in, nothing here does I/O.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from enum import Enum

from gin.engine.cards import Card
from gin.engine.errors import MalformedInput, PeerFault
from gin.protocol.deal import group as g
from gin.protocol.deal import shuffle_proof as sp

DOMAIN = g.DOMAIN
SEED_BYTES = 32
KEY_BYTES = g.SCALAR_BYTES
DECK_SIZE = g.CARDS
MAX_MATCH_ID_BYTES = 0xFFFF
MAX_HAND_NUMBER = 0xFFFFFFFF

Deck = tuple[bytes, ...]


class Role(Enum):
    """Which shuffler: FIRST sends messages 1 and 3, SECOND sends message 2."""

    FIRST = "first"
    SECOND = "second"

    @property
    def code(self) -> int:
        """The byte that stands for the role in a commitment."""
        return 1 if self is Role.FIRST else 2

    @property
    def other(self) -> Role:
        return Role.SECOND if self is Role.FIRST else Role.FIRST


class MalformedDeck(MalformedInput):
    """A deck message of the wrong shape: ``field`` and ``position`` say where (``where``:
    "message2[3]"), ``reason`` what, and the message both ("message2[3]: repeats position
    0"). A finding that names its place takes ``reason``, so the place is said once."""

    def __init__(self, reason: str, *, field: str, position: int | None = None) -> None:
        self.where = field if position is None else f"{field}[{position}]"
        super().__init__(f"{self.where}: {reason}")
        self.field = field
        self.position = position
        self.reason = reason


#: What a deck entry, or a record's, that is not a point is refused as (:func:`is_point`).
NOT_A_POINT = "not a ristretto255 element other than the identity"


def is_point(entry: bytes) -> bool:
    """Whether 32 bytes are the one encoding of a ristretto255 element other than the
    identity (:func:`gin.protocol.deal.group.check_point`): what every deck entry must be,
    wherever it arrives from (a peer's message, a record, evidence)."""
    try:
        g.check_point(entry)
    except g.InvalidPoint:
        return False
    return True


# --- derivation from the seed -------------------------------------------------


def _check_seed(seed: bytes) -> bytes:
    if not isinstance(seed, bytes) or len(seed) != SEED_BYTES:
        raise MalformedInput(f"seed must be {SEED_BYTES} bytes")
    return seed


def _prefix(label: bytes, seed: bytes) -> bytes:
    # Labels are fixed strings of distinct lengths, so inputs never collide.
    return DOMAIN + b"\x00" + label + b"\x00" + _check_seed(seed)


def _blocks(label: bytes, seed: bytes) -> Iterator[bytes]:
    # Counter mode: block i = SHA-256(DOMAIN ‖ 00 ‖ label ‖ 00 ‖ seed ‖ u32be(i)).
    prefix = _prefix(label, seed)
    counter = 0
    while True:
        yield hashlib.sha256(prefix + counter.to_bytes(4, "big")).digest()
        counter += 1


def derive_scalar(label: bytes, seed: bytes) -> int:
    """The key for ``label``: ``LE(SHA-512(DOMAIN ‖ 00 ‖ label ‖ 00 ‖ seed ‖ u32be(i))) mod L``
    for the first ``i`` that gives a nonzero value (the reduction is libsodium's,
    constant-time; its bias is below 2⁻²⁵⁹)."""
    prefix = _prefix(label, seed)
    counter = 0
    while True:
        value = g.hash_to_scalar(prefix, counter.to_bytes(4, "big"))
        if value:
            return value
        counter += 1  # pragma: no cover  (probability 2⁻²⁵²)


def derive_permutation(seed: bytes) -> tuple[int, ...]:
    """Uniform permutation π of 0..51 from the seed; a shuffle moves input ``π[i]`` to ``i``.

    Fisher–Yates from the top: for i = 51 down to 1, draw j uniform in 0..i and swap
    entries i and j. Each draw takes the next byte b of the "permutation" stream,
    rejecting b ≥ 256 − (256 mod (i+1)), so j = b mod (i+1) has no bias.
    """
    stream = (byte for block in _blocks(b"permutation", seed) for byte in block)
    order = list(range(DECK_SIZE))
    for i in range(DECK_SIZE - 1, 0, -1):
        bound = i + 1
        limit = 256 - 256 % bound
        byte = next(stream)
        while byte >= limit:
            byte = next(stream)
        j = byte % bound
        order[i], order[j] = order[j], order[i]
    return tuple(order)


def derive_position_key(seed: bytes, position: int) -> int:
    """The per-position key for final position ``position`` (label ``position-key`` ‖ byte)."""
    _check_position(position)
    return derive_scalar(b"position-key" + bytes((position,)), seed)


@dataclass(frozen=True)
class SeedMaterial:
    """Everything one shuffler derives from its seed. Secret until the hand ends."""

    seed: bytes = field(repr=False)
    permutation: tuple[int, ...] = field(repr=False)
    deck_key: int = field(repr=False)
    position_keys: tuple[int, ...] = field(repr=False)
    nonce_key: bytes = field(repr=False)  # the shuffle proof's nonces (§8.8)

    @classmethod
    def from_seed(cls, seed: bytes) -> SeedMaterial:
        """Derive permutation and keys; raises MalformedInput unless ``seed`` is 32 bytes."""
        return cls(
            seed=_check_seed(seed),
            permutation=derive_permutation(seed),
            deck_key=derive_scalar(b"deck-key", seed),
            position_keys=tuple(derive_position_key(seed, k) for k in range(DECK_SIZE)),
            nonce_key=hashlib.sha512(_prefix(b"shuffle-nonce-key", seed)).digest(),
        )


def key_bytes(key: int) -> bytes:
    """A key as it travels and is recorded: 32 bytes little-endian."""
    return key.to_bytes(KEY_BYTES, "little")


def key_from_bytes(data: bytes) -> int:
    """The integer a 32-byte key names (any value: whether it is a key is checked
    where it is used)."""
    return int.from_bytes(data, "little")


# --- commitment and context ---------------------------------------------------


def context(match_id: bytes, hand_number: int) -> bytes:
    """``u16be(len id) ‖ id ‖ u32be(hand)``: what commitments and proofs are bound to.

    Raises MalformedInput for a match id of 0 or over 65535 bytes or a hand number
    outside 0..2³²−1.
    """
    if not isinstance(match_id, bytes) or not 1 <= len(match_id) <= MAX_MATCH_ID_BYTES:
        raise MalformedInput("match id must be 1..65535 bytes")
    if (
        isinstance(hand_number, bool) or not isinstance(hand_number, int)
        or not 0 <= hand_number <= MAX_HAND_NUMBER
    ):
        raise MalformedInput(f"hand number must be 0..{MAX_HAND_NUMBER}, got {hand_number!r}")
    return len(match_id).to_bytes(2, "big") + match_id + hand_number.to_bytes(4, "big")


def commitment(seed: bytes, match_id: bytes, hand_number: int, role: Role) -> bytes:
    """SHA-256(DOMAIN ‖ 00 ‖ "commitment" ‖ 00 ‖ u16be(len id) ‖ id ‖ u32be(hand) ‖ role ‖ seed).

    Binding the match, hand and role stops a commitment being copied from the
    other player or replayed from another hand. Raises MalformedInput.
    """
    data = (DOMAIN + b"\x00commitment\x00" + context(match_id, hand_number)
            + bytes((role.code,)) + _check_seed(seed))
    return hashlib.sha256(data).digest()


def verify_commitment(
    commit: bytes, seed: bytes, match_id: bytes, hand_number: int, role: Role
) -> bool:
    """Whether ``seed`` opens ``commit`` for this match, hand and role."""
    if not isinstance(seed, bytes) or len(seed) != SEED_BYTES or not isinstance(commit, bytes):
        return False
    return hmac.compare_digest(commit, commitment(seed, match_id, hand_number, role))


# --- the three deck messages --------------------------------------------------


def build_message1(first: SeedMaterial) -> Deck:
    """Message 1: every card point under the whole-deck key, in the order πA."""
    points = g.card_points()
    return tuple(g.mul(points[c], first.deck_key) for c in first.permutation)


def build_message2(second: SeedMaterial, message1: Sequence[bytes], ctx: bytes
                   ) -> tuple[Deck, bytes]:
    """Message 2, ``m2[j] = b_j·m1[πB[j]]``, and its shuffle proof's bytes for the
    hand ``ctx`` (:func:`context`). ``message1`` MUST have been validated."""
    m2 = reencrypt(second, message1)
    proof = sp.prove(ctx, message1, m2, second.permutation, second.position_keys,
                     second.nonce_key)
    return m2, proof.to_bytes()


def reencrypt(second: SeedMaterial, message1: Sequence[bytes]) -> Deck:
    """Message 2's entries alone (what the hand-end audit recomputes)."""
    return tuple(g.mul(message1[second.permutation[j]], second.position_keys[j])
                 for j in range(DECK_SIZE))


def build_message3(first: SeedMaterial, message2: Sequence[bytes]) -> Deck:
    """Message 3: ``m3[k] = (a_k·a⁻¹)·m2[k]``, one multiplication per position."""
    undo = g.sinv(first.deck_key)
    return tuple(g.mul(message2[k], g.smul(undo, first.position_keys[k]))
                 for k in range(DECK_SIZE))


def validate_message(value: object, field: str) -> Deck:
    """Check a received deck message: 52 distinct ristretto255 elements, none the identity.

    ``field`` names it in errors ("message2"); raises :class:`MalformedDeck` naming
    the position of the first bad entry.
    """
    if not isinstance(value, list | tuple):
        raise MalformedDeck(f"expected a list of {DECK_SIZE} entries", field=field)
    if len(value) != DECK_SIZE:
        raise MalformedDeck(f"expected {DECK_SIZE} entries, got {len(value)}", field=field)
    seen: dict[bytes, int] = {}
    for position, entry in enumerate(value):
        if not isinstance(entry, bytes) or len(entry) != g.POINT_BYTES:
            raise MalformedDeck(f"expected {g.POINT_BYTES} bytes", field=field,
                                position=position)
        if entry in seen:
            raise MalformedDeck(f"repeats position {seen[entry]}", field=field,
                                position=position)
        if not is_point(entry):
            raise MalformedDeck(NOT_A_POINT, field=field, position=position)
        seen[entry] = position
    return tuple(value)


def proof_digest(proof: bytes) -> bytes:
    """SHA-256 of a shuffle proof's bytes: what records and the hand digest keep of it."""
    return hashlib.sha256(proof).digest()


def message2_refusal(ctx: bytes, message1: Deck, message2: Sequence[bytes], proof: bytes
                     ) -> tuple[str, str] | None:
    """Why a message 2 (any 52 entries of 32 bytes) and its proof's bytes do not show a
    shuffle of the valid ``message1`` for the hand ``ctx``: (where, why) — ``message2[k]``
    for a bad entry, ``proof`` for a proof that is malformed or fails — or None. ``why``
    does not repeat ``where`` (a finding shows both)."""
    try:
        m2 = validate_message(list(message2), "message2")
    except MalformedDeck as exc:
        return exc.where, exc.reason
    try:
        parsed = sp.ShuffleProof.from_bytes(proof)
    except sp.ProofMalformed as exc:
        return "proof", f"message 2's shuffle proof is malformed: {exc}"
    why = sp.verify(ctx, message1, m2, parsed)
    if why is not None:
        return "proof", f"message 2 is not proven a shuffle of message 1: {why}"
    return None


# --- opening positions --------------------------------------------------------


def _check_position(position: int) -> int:
    if isinstance(position, bool) or not isinstance(position, int):
        raise MalformedInput(f"deck position must be an int, got {position!r}")
    if not 0 <= position < DECK_SIZE:
        raise MalformedInput(f"deck position must be 0..51, got {position}")
    return position


def open_card(final: Deck, position: int, own_key: int, their_key: int, their_role: Role) -> int:
    """The card at ``position`` of message 3, opened with both players' keys for it.

    ``own_key`` is the caller's own (trusted) key; if the result is no card the
    other side's key or message is wrong: raises PeerFault(who=their_role.value,
    field="key[position]"). Raises MalformedInput for a bad position or scalar.
    """
    _check_position(position)
    g.check_secret(own_key)
    try:
        undo = g.sinv(g.smul(own_key, g.check_secret(their_key)))
    except g.InvalidScalar:
        raise PeerFault(
            f"key for position {position} is not a valid scalar",
            who=their_role.value, field=f"key[{position}]",
        ) from None
    card = g.card_of(g.mul(final[position], undo))
    if card is None:
        raise PeerFault(
            f"key for position {position} does not open it to a card",
            who=their_role.value, field=f"key[{position}]",
        )
    return card


def deck_order(
    first_permutation: Sequence[int], second_permutation: Sequence[int]
) -> tuple[int, ...]:
    """Card index at each final position: ``deck[k] = πA[πB[k]]``."""
    return tuple(first_permutation[second_permutation[k]] for k in range(DECK_SIZE))


# --- hand-end audit -----------------------------------------------------------


@dataclass(frozen=True)
class Deviation:
    """One way a side departed from what its seed dictates."""

    role: Role
    field: str  # "commitment", "message1", "message2", "proof", "message3" or "key"
    position: int | None
    detail: str

    def __str__(self) -> str:
        where = self.field if self.position is None else f"{self.field}[{self.position}]"
        return f"{self.role.value} shuffler, {where}: {self.detail}"


@dataclass(frozen=True)
class AuditReport:
    """The outcome of :func:`audit_hand`.

    ``deck`` is the card at each final position as the two seeds define it (None
    if a seed failed its commitment); when there are deviations, the hand played
    may have differed from it and the deviating side is at fault.
    """

    deviations: tuple[Deviation, ...]
    deck: tuple[int, ...] | None

    @property
    def ok(self) -> bool:
        return not self.deviations


def _card_text(card: int) -> str:
    return str(Card.from_index(card))


def _differences(
    role: Role, field: str, got: Sequence[bytes], want: Sequence[bytes],
    explain: Callable[[int, bytes], str],
) -> list[Deviation]:
    """A deviation, attributed to ``role``, at every position where a received
    message differs from its recomputation."""
    return [
        Deviation(role, field, k, explain(k, x))
        for k, (x, w) in enumerate(zip(got, want, strict=True))
        if x != w
    ]


def _explain1(first: SeedMaterial, got: bytes, position: int) -> str:
    card = g.card_of(g.mul(got, g.sinv(first.deck_key)))
    expected = _card_text(first.permutation[position])
    if card is None:
        return f"not a card under the deck key (expected {expected})"
    home = first.permutation.index(card)
    return f"holds {_card_text(card)} instead of {expected} (that card belongs at {home})"


def _explain2(second: SeedMaterial, message1: Deck, got: bytes, position: int) -> str:
    source = g.mul(got, g.sinv(second.position_keys[position]))
    expected = second.permutation[position]
    if source in message1:
        return f"re-encrypts message1[{message1.index(source)}] instead of message1[{expected}]"
    return f"not a re-encryption of any message1 entry (expected message1[{expected}])"


def _explain3(first: SeedMaterial, message2: Deck, got: bytes, position: int) -> str:
    source = g.mul(got, g.smul(first.deck_key, g.sinv(first.position_keys[position])))
    if source in message2:
        return f"re-keys message2[{message2.index(source)}] instead of message2[{position}]"
    return "not a re-keying of any message2 entry"


def _encrypt_cards(deck: Sequence[int], keys: Sequence[int]) -> Deck:
    points = g.card_points()
    return tuple(g.mul(points[deck[k]], keys[k]) for k in range(DECK_SIZE))


def _shape(value: Sequence[bytes], name: str, role: Role, out: list[Deviation]) -> Deck | None:
    try:
        return validate_message(value, name)
    except MalformedDeck as exc:
        out.append(Deviation(role, name, exc.position, exc.reason))
        return None


def audit_hand(
    *,
    match_id: bytes,
    hand_number: int,
    first_seed: bytes,
    second_seed: bytes,
    first_commitment: bytes,
    second_commitment: bytes,
    message1: Sequence[bytes],
    message2: Sequence[bytes],
    message3: Sequence[bytes],
    revealed_keys: Iterable[tuple[Role, int, int]] = (),
    proof: bytes | None = None,
    trust: Role | None = None,
) -> AuditReport:
    """Recompute the hand's deck messages from both seeds and attribute any deviation.

    Each message is recomputed from its sender's seed and the predecessor message
    as actually received, so a deviation is pinned on the side that sent it even
    when an earlier message was also wrong. ``revealed_keys`` lists (revealer,
    position, key) for every key sent during the hand. ``proof`` is the digest of
    message 2's proof (:func:`proof_digest`): when given and message 2 is honest, the
    proof the second shuffler's seed makes must have that digest (a player, which
    checked the proof on arrival or made it, passes None). ``trust`` is the caller's
    own role when it is a player: its messages, which it produced itself, are taken
    as honest and not recomputed (passing a message it did not produce under
    ``trust`` gives meaningless results). Never raises for a deviation: it is
    reported; MalformedInput for a bad match id or hand number.
    """
    deviations: list[Deviation] = []
    material: dict[Role, SeedMaterial] = {}
    for role, seed, commit in (
        (Role.FIRST, first_seed, first_commitment),
        (Role.SECOND, second_seed, second_commitment),
    ):
        if verify_commitment(commit, seed, match_id, hand_number, role):
            material[role] = SeedMaterial.from_seed(seed)
        else:
            deviations.append(
                Deviation(role, "commitment", None, "seed does not open the commitment")
            )

    first = material.get(Role.FIRST)
    second = material.get(Role.SECOND)
    deck = (
        deck_order(first.permutation, second.permutation)
        if first is not None and second is not None
        else None
    )
    # The trusted side's messages are the caller's own output: no need to re-check them.
    m1 = tuple(message1) if trust is Role.FIRST else _shape(
        message1, "message1", Role.FIRST, deviations)
    m2 = tuple(message2) if trust is Role.SECOND else _shape(
        message2, "message2", Role.SECOND, deviations)
    m3 = tuple(message3) if trust is Role.FIRST else _shape(
        message3, "message3", Role.FIRST, deviations)

    if first is not None and trust is not Role.FIRST and m1 is not None:
        deviations += _differences(Role.FIRST, "message1", m1, build_message1(first),
                                   lambda k, got: _explain1(first, got, k))
    if second is not None and trust is not Role.SECOND and m1 is not None and m2 is not None:
        if trust is Role.FIRST and first is not None and deck is not None:
            # Our own m1 is honest, so m1[πB[j]] = a·M_deck[j]: the same bytes come
            # from the card points, which the TypeScript twin keeps precomputed.
            want2 = _encrypt_cards(
                deck, [g.smul(first.deck_key, b) for b in second.position_keys]
            )
        else:
            want2 = reencrypt(second, m1)
        found = _differences(Role.SECOND, "message2", m2, want2,
                             lambda k, got: _explain2(second, m1, got, k))
        deviations += found
        if proof is not None and not found and not hmac.compare_digest(proof, proof_digest(
                sp.prove(context(match_id, hand_number), m1, m2, second.permutation,
                         second.position_keys, second.nonce_key).to_bytes())):
            deviations.append(Deviation(Role.SECOND, "proof", None,
                                        "not the shuffle proof the seed makes"))
    if first is not None and trust is not Role.FIRST and m2 is not None and m3 is not None:
        m1_honest = not any(d.field == "message1" for d in deviations)
        if trust is Role.SECOND and second is not None and deck is not None and m1_honest:
            # Likewise our own honest m2[k] = b_k·a·M_deck[k], but only when m1 was
            # honest too: our m2 re-encrypts the m1 we received.
            want3 = _encrypt_cards(
                deck,
                [g.smul(a, b) for a, b in zip(first.position_keys, second.position_keys,
                                              strict=True)],
            )
        else:
            want3 = build_message3(first, m2)
        deviations += _differences(Role.FIRST, "message3", m3, want3,
                                   lambda k, got: _explain3(first, m2, got, k))

    for role, position, key in revealed_keys:
        own = material.get(role)
        if own is None:
            continue  # its seed is already condemned by the commitment check
        if isinstance(position, bool) or not isinstance(position, int) or not (
            0 <= position < DECK_SIZE
        ):
            deviations.append(Deviation(role, "key", None, f"no such position {position!r}"))
        elif key != own.position_keys[position]:
            deviations.append(
                Deviation(role, "key", position, "revealed key differs from the seed's")
            )

    return AuditReport(tuple(deviations), deck)
