import pytest
from hypothesis import given
from hypothesis import strategies as st

from gin import DECK, Card, MalformedInput, parse_cards
from gin.engine.cards import cards_mask, format_cards, mask_cards


@pytest.mark.parametrize(
    ("text", "canonical"),
    [("7h", "7h"), ("Th", "Th"), ("10h", "Th"), ("7♥", "7h"), ("aS", "As"), ("kc", "Kc"),
     ("10♦", "Td"), ("Q♠\ufe0f", "Qs")],
)
def test_parse_accepts_every_form(text: str, canonical: str) -> None:
    assert str(Card.parse(text)) == canonical


@given(st.sampled_from(DECK))
def test_text_round_trips(card: Card) -> None:
    assert Card.parse(str(card)) == card
    assert Card.from_index(card.index) == card


def test_values_and_deck() -> None:
    values = [c.value for c in parse_cards("Ac 2c 9c Tc Jc Qc Kc")]
    assert values == [1, 2, 9, 10, 10, 10, 10]
    assert len(set(DECK)) == 52
    assert sum(c.value for c in DECK) == 340
    assert sum(c.value for c in DECK if c.rank > 10) == 120


def test_parse_cards_list() -> None:
    assert format_cards(parse_cards("5h 6h 7h 7s 7d")) == "5h 6h 7h 7s 7d"
    assert format_cards(parse_cards(" 10h,  7♥ , as ")) == "Th 7h As"
    assert parse_cards("") == []


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("5h 6h 5h", "card 3 of '5h 6h 5h': 5h appears twice"),
        ("5h Xh", "card 2 of '5h Xh': card 'Xh': unknown rank 'X'"),
        ("5h 6x", "card 2 of '5h 6x': card '6x': unknown suit 'x'"),
        ("5h,,6h", "card 2 of '5h,,6h' is empty"),
        ("h", "expected a rank then a suit"),
    ],
)
def test_parse_cards_errors_name_token_and_position(text: str, fragment: str) -> None:
    with pytest.raises(MalformedInput) as info:
        parse_cards(text)
    assert fragment in str(info.value)


def test_masks_round_trip() -> None:
    cards = parse_cards("Ac Kd 7h 2s")
    assert mask_cards(cards_mask(cards)) == tuple(sorted(cards, key=lambda c: c.index))
