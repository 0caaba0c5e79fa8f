"""Rulesets: presets are exactly themselves, every number is bounded, names are plain."""

from dataclasses import asdict, fields
from typing import Any

import pytest

from gin.engine.errors import MalformedInput
from gin.engine.rules import (
    BOUNDS,
    CLASSIC,
    CUSTOM,
    PRESETS,
    RULE_WORDS,
    STANDARD,
    RulesError,
    Ruleset,
)


def test_presets_are_valid_and_round_trip() -> None:
    for name, preset in PRESETS.items():
        assert preset.name == name and preset.is_preset
        assert Ruleset.from_dict(preset.to_dict()) == preset


@pytest.mark.parametrize("change", [
    {"big_gin_bonus": 50}, {"gin_bonus": 26}, {"dead_stock": 3}, {"winner_deals": True}])
def test_a_ruleset_named_like_a_preset_must_be_it(change: dict[str, Any]) -> None:
    (field,) = change
    with pytest.raises(RulesError, match=f"must be the standard rules exactly, but "
                       f"{RULE_WORDS[field]} is"):
        Ruleset.from_dict(STANDARD.to_dict() | change)
    with pytest.raises(RulesError, match="the classic rules have"):
        Ruleset(**(asdict(CLASSIC) | change))


@pytest.mark.parametrize("field", sorted(BOUNDS))
def test_every_number_is_bounded(field: str) -> None:
    low, high = BOUNDS[field]
    base = STANDARD.to_dict() | {"name": "house"}
    for good in (low, high):
        assert getattr(Ruleset.from_dict(base | {field: good}), field) == good
    for bad in (low - 1, high + 1, True, "10", 2.0):
        with pytest.raises(RulesError, match=f"^{RULE_WORDS[field]} must be a whole number "
                                             f"from {low} to {high}"):
            Ruleset.from_dict(base | {field: bad})


def test_the_issues_examples_are_refused() -> None:
    with pytest.raises(RulesError):  # big gin worth 500 under the standard name
        Ruleset.from_dict(STANDARD.to_dict() | {"big_gin_bonus": 500})
    with pytest.raises(RulesError, match="the stock left at a dead hand"):  # every hand dead
        Ruleset.from_dict(STANDARD.to_dict() | {"name": "house", "dead_stock": 30})


@pytest.mark.parametrize("flag", ["knock_limit_from_upcard", "winner_deals"])
def test_switches_are_true_or_false(flag: str) -> None:
    with pytest.raises(RulesError, match=f"^{RULE_WORDS[flag]} must be true or false, not 1$"):
        Ruleset.from_dict(STANDARD.to_dict() | {"name": "house", flag: 1})


@pytest.mark.parametrize("name", ["", "x" * 33, "\x1b[2Jstandard", "new\nline", " lead",
                                  "bell\x07", "[bold]x", 7])
def test_names_are_short_plain_text(name: object) -> None:
    with pytest.raises(RulesError, match="the rules' name must be"):
        Ruleset.from_dict(STANDARD.to_dict() | {"name": name})


def test_a_refusal_says_what_is_wrong_as_a_person_would() -> None:
    # Issue 21: "ruleset field 'knock_limit' must be a whole number in 0..10, got 99".
    refusals = {
        "the knock limit must be a whole number from 0 to 10, not 99": {"knock_limit": 99},
        "the big gin bonus must be a whole number from 0 to 100 (or null: no big gin), "
        "not 101": {"big_gin_bonus": 101},
        "whether the winner deals next must be true or false, not 'yes'":
            {"winner_deals": "yes"},
        "the shutout rule must be double_bonus, double_total or none, not null":
            {"shutout": None},
    }
    for message, change in refusals.items():
        with pytest.raises(RulesError) as info:
            Ruleset.from_dict({"name": "house"} | change)
        assert str(info.value) == message
    with pytest.raises(RulesError) as info:
        Ruleset.from_dict({"name": "standard", "gin_bonus": 20, "box_bonus": 30})
    assert str(info.value) == (
        "rules named 'standard' must be the standard rules exactly, but the gin bonus is 20 "
        "(the standard rules have 25) and the box bonus is 30 (the standard rules have 25)")
    for data, kind in (([], "a list"), ("standard", "text"), (None, "null")):
        with pytest.raises(RulesError, match=f"^the rules must be a map of names to values, "
                                             f"not {kind}$"):
            Ruleset.from_dict(data)
    with pytest.raises(RulesError, match="^no such rule: knock_limt, zeta$"):
        Ruleset.from_dict({"knock_limt": 3, "zeta": 1})


def test_bad_maps_are_rules_errors_and_malformed_input() -> None:
    for data in (None, [], {"name": "house", "colour": "red"}, {"gin_bonus": None}):
        with pytest.raises(RulesError) as info:
            Ruleset.from_dict(data)
        assert isinstance(info.value, MalformedInput)


def test_what_custom_rules_change_is_marked_against_the_nearest_preset() -> None:
    # Issue 21 item 14: a guest was shown every number with nothing marking what differs.
    house = STANDARD.with_options(knock_limit=7, target=50, name="house")
    assert house.nearest_preset() is STANDARD
    lines = house.describe_lines()
    assert lines[0] == ("custom rules named house: the standard rules with 2 changes", False)
    assert [text for text, changed in lines if changed] == [
        "knock limit: 7 — changed from 10", "match to: 50 — changed from 100"]
    short = CLASSIC.with_options(target=50)
    assert short.nearest_preset() is CLASSIC
    assert short.describe().splitlines()[0] == "custom rules: the classic rules with 1 change"
    assert Ruleset(name="house").describe().splitlines()[0] == \
        "custom rules named house: the same as the standard rules"
    assert not any(changed for _, changed in CLASSIC.describe_lines())


def test_a_changed_preset_is_custom() -> None:
    short = STANDARD.with_options(target=50)
    assert (short.name, short.target, short.is_preset) == (CUSTOM, 50, False)
    assert STANDARD.with_options() is not None and STANDARD.with_options().is_preset
    assert STANDARD.with_options(gin_bonus=25) == STANDARD  # nothing changed
    assert STANDARD.with_options(target=50, name="short").name == "short"
    assert short.with_options(target=60).name == CUSTOM


def test_describe_shows_every_rule() -> None:
    text = STANDARD.with_options(big_gin_bonus=31, dead_stock=4).describe()
    assert text.splitlines()[0] == "custom rules: the standard rules with 2 changes"
    assert "big gin: 31 + deadwood — changed from off" in text
    assert "leaves 4 in the stock — changed from a discard that leaves 2" in text
    # The name, then one line a rule (the knock limit's two fields share one).
    assert len(text.splitlines()) == len(fields(Ruleset)) - 1
    assert STANDARD.with_options(name="short", target=50).describe().startswith(
        "custom rules named short: the standard rules with 1 change\n")
    assert PRESETS["oklahoma"].describe().splitlines()[0] == "oklahoma rules"
    assert "first upcard's value" in PRESETS["oklahoma"].describe()
