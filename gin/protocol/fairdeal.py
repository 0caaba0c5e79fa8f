"""The fair deal: commutative encryption of a 52-card deck by two shufflers.

Each shuffler derives from a secret 32-byte seed a permutation of 52, one
whole-deck key and 52 per-position keys (scalars of P-256, see :mod:`gin.protocol.ecc`).
Three deck messages follow:

1. the first shuffler (role FIRST, keys ``a``, ``a_k``, permutation ``πA``) sends
   ``m1[i] = E_a(M_{πA[i]})``;
2. the second (role SECOND, keys ``b_j``, permutation ``πB``) sends
   ``m2[j] = E_{b_j}(m1[πB[j]])`` — its keys are indexed by the position after
   its own permutation;
3. the first swaps its single key for per-position keys, without permuting:
   ``m3[k] = E_{a_k}(D_a(m2[k]))``.

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
from gin.protocol import ecc

DOMAIN = b"gin/fairdeal/v1"
SEED_BYTES = 32
DECK_SIZE = 52
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
    """A deck message of the wrong shape; ``field`` and ``position`` say where."""

    def __init__(self, message: str, *, field: str, position: int | None = None) -> None:
        super().__init__(message)
        self.field = field
        self.position = position


# --- derivation from the seed -------------------------------------------------


def _check_seed(seed: bytes) -> bytes:
    if not isinstance(seed, bytes) or len(seed) != SEED_BYTES:
        raise MalformedInput(f"seed must be {SEED_BYTES} bytes")
    return seed


def _blocks(label: bytes, seed: bytes) -> Iterator[bytes]:
    # Counter mode: block i = SHA-256(DOMAIN ‖ 00 ‖ label ‖ 00 ‖ seed ‖ u32be(i)).
    # Labels are fixed strings of distinct lengths, so inputs never collide.
    prefix = DOMAIN + b"\x00" + label + b"\x00" + _check_seed(seed)
    counter = 0
    while True:
        yield hashlib.sha256(prefix + counter.to_bytes(4, "big")).digest()
        counter += 1


def derive_bytes(label: bytes, seed: bytes) -> bytes:
    """32 bytes for ``label``: the first block of its stream, ``block(label, seed, 0)``."""
    return next(_blocks(label, seed))


def _scalar(label: bytes, seed: bytes) -> int:
    # Rejection sampling keeps the key uniform in [1, n-1] (a reject has odds ~2^-32).
    for block in _blocks(label, seed):
        value = int.from_bytes(block, "big")
        if 1 <= value < ecc.N:
            return value
    raise AssertionError("unreachable")  # pragma: no cover


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


def derive_deck_key(seed: bytes) -> int:
    """The first shuffler's whole-deck key (label ``deck-key``)."""
    return _scalar(b"deck-key", seed)


def derive_position_key(seed: bytes, position: int) -> int:
    """The per-position key for final position ``position`` (label ``position-key`` ‖ byte)."""
    _check_position(position)
    return _scalar(b"position-key" + bytes((position,)), seed)


@dataclass(frozen=True)
class SeedMaterial:
    """Everything one shuffler derives from its seed. Secret until the hand ends."""

    seed: bytes = field(repr=False)
    permutation: tuple[int, ...] = field(repr=False)
    deck_key: int = field(repr=False)
    position_keys: tuple[int, ...] = field(repr=False)

    @classmethod
    def from_seed(cls, seed: bytes) -> SeedMaterial:
        """Derive permutation and keys; raises MalformedInput unless ``seed`` is 32 bytes."""
        return cls(
            seed=_check_seed(seed),
            permutation=derive_permutation(seed),
            deck_key=derive_deck_key(seed),
            position_keys=tuple(derive_position_key(seed, k) for k in range(DECK_SIZE)),
        )


# --- commitment ---------------------------------------------------------------


def commitment(seed: bytes, match_id: bytes, hand_number: int, role: Role) -> bytes:
    """SHA-256(DOMAIN ‖ 00 ‖ "commitment" ‖ 00 ‖ u16be(len id) ‖ id ‖ u32be(hand) ‖ role ‖ seed).

    Binding the match, hand and role stops a commitment being copied from the
    other player or replayed from another hand. Raises MalformedInput.
    """
    if not isinstance(match_id, bytes) or not 1 <= len(match_id) <= MAX_MATCH_ID_BYTES:
        raise MalformedInput("match id must be 1..65535 bytes")
    if (
        isinstance(hand_number, bool) or not isinstance(hand_number, int)
        or not 0 <= hand_number <= MAX_HAND_NUMBER
    ):
        raise MalformedInput(f"hand number must be 0..{MAX_HAND_NUMBER}, got {hand_number!r}")
    data = (
        DOMAIN + b"\x00commitment\x00"
        + len(match_id).to_bytes(2, "big") + match_id
        + hand_number.to_bytes(4, "big")
        + bytes((role.code,))
        + _check_seed(seed)
    )
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
    points = ecc.card_points()
    return ecc.mul_many((points[c] for c in first.permutation), first.deck_key)


def build_message2(second: SeedMaterial, message1: Sequence[bytes]) -> Deck:
    """Message 2: ``m2[j] = E_{b_j}(m1[πB[j]])``. Raises InvalidPoint on a bad entry."""
    return tuple(
        ecc.mul(message1[second.permutation[j]], second.position_keys[j])
        for j in range(DECK_SIZE)
    )


def build_message3(first: SeedMaterial, message2: Sequence[bytes]) -> Deck:
    """Message 3: ``m3[k] = E_{a_k}(D_a(m2[k]))``, one multiplication by ``a_k·a⁻¹``."""
    undo = ecc.inverse(first.deck_key)
    return tuple(
        ecc.mul(message2[k], ecc.product(undo, first.position_keys[k]))
        for k in range(DECK_SIZE)
    )


def validate_message(value: object, field: str) -> Deck:
    """Check a received deck message: 52 distinct x-coordinates of points on P-256.

    ``field`` names it in errors ("message2"); raises :class:`MalformedDeck` naming
    the position of the first bad entry.
    """
    if not isinstance(value, list | tuple):
        raise MalformedDeck(f"{field}: expected a list of {DECK_SIZE} entries", field=field)
    if len(value) != DECK_SIZE:
        raise MalformedDeck(
            f"{field}: expected {DECK_SIZE} entries, got {len(value)}", field=field
        )
    seen: dict[bytes, int] = {}
    for position, entry in enumerate(value):
        where = f"{field}[{position}]"
        if not isinstance(entry, bytes) or len(entry) != ecc.COORD_BYTES:
            raise MalformedDeck(
                f"{where}: expected {ecc.COORD_BYTES} bytes", field=field, position=position
            )
        if entry in seen:
            raise MalformedDeck(
                f"{where}: repeats position {seen[entry]}", field=field, position=position
            )
        if not ecc.is_valid_x(entry):
            raise MalformedDeck(
                f"{where}: not a point on P-256", field=field, position=position
            )
        seen[entry] = position
    return tuple(value)


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
    ecc.check_scalar(own_key)
    try:
        undo = ecc.inverse(ecc.product(own_key, their_key))
    except ecc.InvalidScalar:
        raise PeerFault(
            f"key for position {position} is not a valid scalar",
            who=their_role.value, field=f"key[{position}]",
        ) from None
    card = ecc.card_of(ecc.mul(final[position], undo))
    if card is None:
        raise PeerFault(
            f"key for position {position} does not open it to a card",
            who=their_role.value, field=f"key[{position}]",
        )
    return card


def verify_key(seed: bytes, position: int, key: int) -> bool:
    """Whether ``key`` is the per-position key that ``seed`` derives for ``position``."""
    return key == derive_position_key(seed, position)


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
    field: str  # "commitment", "message1", "message2", "message3" or "key"
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

    @property
    def at_fault(self) -> frozenset[Role]:
        return frozenset(d.role for d in self.deviations)

    def raise_for_fault(self) -> None:
        """Raise PeerFault for the first deviation, if any."""
        if self.deviations:
            first = self.deviations[0]
            where = first.field if first.position is None else f"{first.field}[{first.position}]"
            raise PeerFault(str(first), who=first.role.value, field=where)


def _card_text(card: int) -> str:
    return str(Card.from_index(card))


def _differences(
    role: Role, field: str, got: Sequence[bytes], want: Sequence[bytes],
    explain: Callable[[int, bytes], str],
) -> list[Deviation]:
    """A deviation, attributed to ``role``, at every position where a received
    message differs from its recomputation."""
    return [
        Deviation(role, field, k, explain(k, g))
        for k, (g, w) in enumerate(zip(got, want, strict=True))
        if g != w
    ]


def _explain1(first: SeedMaterial, got: bytes, position: int) -> str:
    card = ecc.card_of(ecc.mul(got, ecc.inverse(first.deck_key)))
    expected = _card_text(first.permutation[position])
    if card is None:
        return f"not a card under the deck key (expected {expected})"
    home = first.permutation.index(card)
    return f"holds {_card_text(card)} instead of {expected} (that card belongs at {home})"


def _explain2(second: SeedMaterial, message1: Deck, got: bytes, position: int) -> str:
    source = ecc.mul(got, ecc.inverse(second.position_keys[position]))
    expected = second.permutation[position]
    if source in message1:
        return f"re-encrypts message1[{message1.index(source)}] instead of message1[{expected}]"
    return f"not a re-encryption of any message1 entry (expected message1[{expected}])"


def _explain3(first: SeedMaterial, message2: Deck, got: bytes, position: int) -> str:
    source = ecc.mul(got, ecc.product(first.deck_key, ecc.inverse(first.position_keys[position])))
    if source in message2:
        return f"re-keys message2[{message2.index(source)}] instead of message2[{position}]"
    return "not a re-keying of any message2 entry"


def _encrypt_cards(deck: Sequence[int], keys: Sequence[int]) -> Deck:
    points = ecc.card_points()
    return tuple(ecc.mul(points[deck[k]], keys[k]) for k in range(DECK_SIZE))


def _shape(value: Sequence[bytes], name: str, role: Role, out: list[Deviation]) -> Deck | None:
    try:
        return validate_message(value, name)
    except MalformedDeck as exc:
        out.append(Deviation(role, name, exc.position, str(exc)))
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
    trust: Role | None = None,
) -> AuditReport:
    """Recompute the hand's deck messages from both seeds and attribute any deviation.

    Each message is recomputed from its sender's seed and the predecessor message
    as actually received, so a deviation is pinned on the side that sent it even
    when an earlier message was also wrong. ``revealed_keys`` lists (revealer,
    position, key) for every key sent during the hand. ``trust`` is the caller's
    own role when it is a player: its messages, which it produced itself, are
    taken as honest and not recomputed (passing a message it did not produce
    under ``trust`` gives meaningless results). Never raises for a deviation: it
    is reported; MalformedInput for a bad match id or hand number.
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
            # Our own m1 is honest, so m1[πB[j]] = E_a(M_deck[j]): the same bytes come
            # from the card points, which stay decoded, instead of decoding m1 again.
            want2 = _encrypt_cards(
                deck, [ecc.product(first.deck_key, b) for b in second.position_keys]
            )
        else:
            want2 = build_message2(second, m1)
        deviations += _differences(Role.SECOND, "message2", m2, want2,
                                   lambda k, got: _explain2(second, m1, got, k))
    if first is not None and trust is not Role.FIRST and m2 is not None and m3 is not None:
        m1_honest = not any(d.field == "message1" for d in deviations)
        if trust is Role.SECOND and second is not None and deck is not None and m1_honest:
            # Likewise our own honest m2[k] = E_{b_k}(E_a(M_deck[k])), but only when
            # m1 was honest too: our m2 re-encrypts the m1 we received.
            want3 = _encrypt_cards(
                deck,
                [ecc.product(a, b) for a, b in zip(first.position_keys, second.position_keys,
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
