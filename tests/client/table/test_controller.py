"""The controller: dealing, the human's and the opponent's moves, saving after
every action, resuming exactly, and carrying on when the disk fails."""

from __future__ import annotations

import random
from typing import Any

import pytest

from client.storage import Storage, StorageError
from client.table import words
from client.table.controller import OPPONENT, PLAY_MODES, Game
from client.table.layout import grouped, laid_out, moved, own_order
from gin import (
    Card,
    DrawStock,
    IllegalAction,
    Knock,
    Pass,
    Phase,
    parse_action,
    parse_cards,
    shuffled_deck,
)
from gin.engine.rules import PRESETS

KNOCK = ("2c 3c 4c 5d 5h 5s 9s 9h 9d Kc", "5c 9c Jd Jh Js 7d 8d 2h 3h 4h", "Qd", "As")


def test_new_game_deals_the_human_the_first_upcard_offer(make_game: Any, deal: Any) -> None:
    game, _ = make_game(deal(*KNOCK))
    obs = game.observation()
    assert obs.hand == tuple(sorted(parse_cards(KNOCK[0]), key=lambda c: c.index))
    assert obs.dealer == OPPONENT and obs.my_turn and obs.phase is Phase.UPCARD
    assert not game.opponent_to_move


def test_human_and_opponent_moves(make_game: Any, deal: Any) -> None:
    game, opponent = make_game(deal(*KNOCK))
    game.play(Pass())
    assert game.opponent_to_move and game.legal() == []
    game.apply_opponent(game.opponent_move())
    assert opponent.seen[-1].player == OPPONENT  # it saw its own seat only
    assert not game.opponent_to_move
    with pytest.raises(IllegalAction):
        game.play(parse_action("take"))  # both passed: the stock only
    assert game.observation().phase is Phase.DRAW
    game.play(DrawStock())
    assert game.knock_counts() == {Card.parse("As"): 10, Card.parse("Kc"): 1}


def test_opponent_move_refused_on_the_humans_turn(make_game: Any, deal: Any) -> None:
    game, _ = make_game(deal(*KNOCK))
    with pytest.raises(IllegalAction):
        game.opponent_move()


def test_every_action_is_saved_and_resumes_exactly(make_game: Any, deal: Any,
                                                   storage: Storage) -> None:
    game, _ = make_game(deal(*KNOCK))
    for action in ("pass",):
        game.play(parse_action(action))
    game.apply_opponent(game.opponent_move())
    game.play(DrawStock())
    resumed = Game.resume(storage, make_opponent=lambda _s, _r: game.opponent)
    assert resumed is not None
    assert resumed.observation() == game.observation()
    assert resumed.rng.getstate() == game.rng.getstate()
    assert resumed.opponent_rng.getstate() == game.opponent_rng.getstate()
    # Finish the hand in both: the next decks come from the same shuffle.
    for g in (game, resumed):
        g.play(Knock(Card.parse("Kc")))
        g.apply_opponent(g.opponent_move())
        g.next_hand()
    assert resumed.match.hand is not None and game.match.hand is not None
    assert resumed.match.hand.to_dict() == game.match.hand.to_dict()


def test_a_finished_hand_is_saved_with_its_result(make_game: Any, deal: Any,
                                                  storage: Storage) -> None:
    game, _ = make_game(deal(*KNOCK))
    game.play(Pass())
    game.apply_opponent(game.opponent_move())
    game.play(DrawStock())
    result = game.play(Knock(Card.parse("Kc")))
    assert result is None  # the computer still has to lay off
    result = game.apply_opponent(game.opponent_move())
    assert result is not None and result.points == 14
    [record] = storage.saved_hands()
    assert record["result"] == result.to_dict()
    assert record["hand"]["deck"][20] == "Qd"
    assert record["scores_after"] == [14, 0]


def test_the_match_save_is_removed_when_the_match_ends(make_game: Any, deal: Any,
                                                       storage: Storage) -> None:
    game, _ = make_game(deal(*KNOCK), rules=PRESETS["standard"].with_options(target=10))
    game.play(Pass())
    game.apply_opponent(game.opponent_move())
    game.play(DrawStock())
    game.play(Knock(Card.parse("Kc")))
    game.apply_opponent(game.opponent_move())
    assert game.match.over
    assert storage.load_match() is None
    assert Game.resume(storage) is None


def test_a_full_disk_loses_nothing(make_game: Any, deal: Any, storage: Storage,
                                   monkeypatch: Any) -> None:
    game, _ = make_game(deal(*KNOCK))
    real_write = storage.write_json

    def full(path: Any, data: Any) -> None:
        raise StorageError("Could not save: the disk is full.")

    monkeypatch.setattr(storage, "write_json", full)
    game.play(Pass())
    game.apply_opponent(game.opponent_move())
    game.play(DrawStock())
    game.play(Knock(Card.parse("Kc")))
    game.apply_opponent(game.opponent_move())
    warnings = game.take_warnings()
    assert warnings and all("disk is full" in w for w in warnings)
    assert game.take_warnings() == []
    # Space again: the next save writes the hand that could not be saved.
    monkeypatch.setattr(storage, "write_json", real_write)
    game.next_hand()
    assert [r["result"]["points"] for r in storage.saved_hands()] == [14]
    assert storage.load_match() is not None


def test_a_corrupt_save_is_a_clear_error(storage: Storage) -> None:
    storage.save_match({"format": 1, "vs": "normal", "match": {"rules": {}}})
    with pytest.raises(StorageError, match="cannot be continued"):
        Game.resume(storage)


def test_default_deck_source_shuffles_with_the_injected_rng(storage: Storage) -> None:
    game = Game(PRESETS["standard"], "normal", random.Random(5), storage,
                make_opponent=lambda _s, _r: None)  # type: ignore[arg-type,return-value]
    assert game.match.hand is not None
    rng = random.Random(5)
    rng.getrandbits(64)  # the opponent's own source is seeded first
    expected = shuffled_deck(rng)
    assert [game.match.hand.card_at(i) for i in range(52)] == expected


def test_strength_can_change_and_online_is_listed(make_game: Any, deal: Any) -> None:
    game, _ = make_game(deal(*KNOCK))
    game.set_strength("hard")
    assert game.vs == "hard"
    with pytest.raises(Exception, match="unknown strength"):
        game.set_strength("grandmaster")
    online = [m for m in PLAY_MODES if m.key == "online"]
    assert online and online[0].available and online[0].factory is None  # played via OnlineGame


def test_computer_players_plug_in() -> None:
    game = Game(PRESETS["standard"], "hard", random.Random(1))
    game.play(Pass())
    action = game.opponent_move()
    assert action in game.match.legal_actions()
    hint = Game(PRESETS["standard"], "easy", random.Random(1)).hint()
    assert hint.reason


# -- words and layout ----------------------------------------------------------


def test_prompt_says_what_to_do(make_game: Any, deal: Any) -> None:
    game, _ = make_game(deal(*KNOCK))
    assert words.prompt(game.observation(), False) == "Take the Q♦ or pass"
    game.play(Pass())
    assert words.prompt(game.observation(), False) == "The computer is thinking…"
    game.apply_opponent(game.opponent_move())
    assert words.prompt(game.observation(), False) == \
        "Both passed the first card: draw from the stock"
    game.play(DrawStock())
    assert words.prompt(game.observation(), True) == "Throw a card, or knock"


def test_how_to_play_takes_its_numbers_from_the_rules() -> None:
    classic = words.how_to_play(PRESETS["classic"])
    assert "| Gin | their deadwood + 20 |" in classic
    assert "| Undercut | the difference + 10 |" in classic
    assert "| Every hand won | 20 at the end |" in classic
    assert "doubled in a shutout" in classic
    assert "first upcard's value" in words.how_to_play(PRESETS["oklahoma"])


def test_layout_helpers() -> None:
    # The seeds' case: the set of sevens leaves less than the run of hearts.
    hand = parse_cards("5h 6h 7h 7s 7d Kc 2c")
    groups = grouped(hand)
    assert [g.meld for g in groups] == [True, False]
    assert groups[0].cards == tuple(parse_cards("7d 7h 7s"))
    assert groups[1].cards == tuple(parse_cards("2c 5h 6h Kc"))
    assert own_order(parse_cards("Kc 5h"), hand)[:2] == parse_cards("Kc 5h")
    assert moved(parse_cards("Kc 5h 2c"), Card.parse("2c"), -5) == parse_cards("2c Kc 5h")


def test_laid_out_marks_the_defenders_layoffs() -> None:
    from gin import settle

    outcome = settle(parse_cards("2c 3c 4c 5d 5h 5s 9s 9h 9d As"),
                     parse_cards("5c 9c Jd Jh Js 7d 8d 2h 3h 4h"))
    knocker = laid_out(outcome, knocker=True)
    assert knocker[0].cards == tuple(parse_cards("2c 3c 4c 5c"))
    assert knocker[0].marked == frozenset(parse_cards("5c"))
    assert knocker[-1].cards == tuple(parse_cards("As")) and not knocker[-1].meld
