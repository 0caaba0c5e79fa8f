"""Your record (client/record.py): kept when a match ends, shown by `gin history`."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from client.cli import main
from client.record import (
    describe,
    friend_key,
    match_entry,
    opponent_label,
    parse,
    stored,
    summarize,
)
from client.storage import Storage
from client.table.controller import HUMAN, Game
from gin import players
from gin.engine.rules import PRESETS
from gin.protocol.records.identity import Identity, fingerprint

FIXTURE = Path(__file__).parent.parent / "fixtures" / "record.json"


def test_the_fixture_summarizes_as_stored() -> None:
    """client/web/test/record.test.ts summarizes the same file: the twins agree."""
    data = json.loads(FIXTURE.read_text())
    assert summarize(parse(data)) == data["summary"]


def play_match(storage: Storage, vs: str, seed: int) -> Game:
    """A whole match to 10 points, the player's moves chosen by the normal computer."""
    rng = random.Random(seed)
    me = players.get("normal", random.Random(seed + 1))
    game = Game(PRESETS["standard"].with_options(target=10), vs, rng, storage)
    while not game.match.over:
        if game.match.hand is not None and game.match.hand.phase.name == "OVER":
            game.next_hand()
        elif game.opponent_to_move:
            game.apply_opponent(game.opponent_move())
        else:
            game.play(me.choose(game.match.observation(HUMAN), game.legal()))
    return game


def history(capsys: Any, data_dir: Path, *extra: str) -> tuple[int, str, str]:
    status = main(["history", "--data-dir", str(data_dir), *extra])
    out, err = capsys.readouterr()
    return status, out, err


def test_history_json_counts_the_matches_played(tmp_path: Path, capsys: Any) -> None:
    storage = Storage(tmp_path)
    games = [play_match(storage, "easy", 1), play_match(storage, "hard", 2),
             play_match(storage, "hard", 3)]
    assert all(not g.take_warnings() for g in games)
    status, out, err = history(capsys, tmp_path, "--json")
    assert status == 0 and err == ""
    data = json.loads(out)
    assert [m["opponent"] for m in data["matches"]] == [
        "computer:easy", "computer:hard", "computer:hard"]
    overall = data["overall"]
    assert overall["matches"] == 3
    won = [g.match.totals.winner == HUMAN for g in games if g.match.totals]
    assert overall["matches_won"] == sum(won)
    assert overall["hands"] == sum(len(g.match.results) for g in games)
    assert overall["hands_won"] == sum(g.match.hands_won[HUMAN] for g in games)
    assert [o["opponent"] for o in data["opponents"]] == ["computer:easy", "computer:hard"]
    assert data["opponents"][1]["matches"] == 2
    status, out, _ = history(capsys, tmp_path)
    assert status == 0
    assert out.startswith(f"All matches: {sum(won)} of 3 matches won")
    assert "Computer (hard): " in out and "gins" in out and "undercuts" in out


def test_no_record_yet(tmp_path: Path, capsys: Any) -> None:
    status, out, _ = history(capsys, tmp_path)
    assert status == 0 and "No finished matches yet" in out
    status, out, _ = history(capsys, tmp_path, "--json")
    assert json.loads(out)["overall"]["matches"] == 0


@pytest.mark.parametrize("damage", [b"{not json", b'{"gin-save": 1, "sha256": "00", "data": {}}',
                                    None])
def test_a_damaged_record_is_set_aside_and_said(tmp_path: Path, capsys: Any,
                                                damage: bytes | None) -> None:
    storage = Storage(tmp_path)
    play_match(storage, "normal", 4)
    path = tmp_path / "record.json"
    if damage is None:  # sealed right, but not a record: an edit
        storage.save_state(path, {"format": 1, "matches": [{"opponent": 3}]})
    else:
        path.write_bytes(damage)
    status, out, err = history(capsys, tmp_path, "--json")
    assert status == 0
    assert "Your record in" in err and "moved to" in err and "Traceback" not in err
    assert json.loads(out)["overall"]["matches"] == 0
    assert not path.exists()
    assert len(list(tmp_path.glob("record.json.damaged-*"))) == 1
    # The next match begins a new record.
    path.write_bytes(b"garbage")
    game = play_match(storage, "normal", 5)
    warnings = game.take_warnings()
    assert len(warnings) == 1 and "A new record begins with this match" in warnings[0]
    assert len(storage.load_record()) == 1


def test_a_record_that_cannot_be_written_is_a_warning(tmp_path: Path, monkeypatch: Any) -> None:
    storage = Storage(tmp_path)
    real = storage.save_state

    def refuse(path: Path, data: Any) -> None:
        if path.name == "record.json":
            from client.storage import StorageError
            raise StorageError("Could not save record.json: the disk is full.")
        real(path, data)

    monkeypatch.setattr(storage, "save_state", refuse)
    game = play_match(storage, "easy", 6)
    assert game.take_warnings() == [
        "Could not save record.json: the disk is full. This match is not in your record."]


def test_parse_names_what_is_wrong() -> None:
    with pytest.raises(ValueError, match="format 1"):
        parse([])
    with pytest.raises(ValueError, match="match 1 has a hand"):
        parse({"format": 1, "matches": [{"opponent": "computer:easy", "won": True,
                                          "at": "", "hands": [{"kind": "huh"}]}]})


def test_abandoned_matches_are_counted_apart_never_as_wins() -> None:
    entry = match_entry("friend:0a1b", 1, None, [], None, "friend") | {"at": "2026-12-02"}
    assert entry["won"] is False and entry["abandoned"] == "friend"
    lines = describe(summarize(parse(stored([entry]))))
    assert lines[0].startswith("All matches: 0 of 1 match won")
    assert lines[3] == ("  abandoned: 1 match by your friend, 0 by you (one side fell silent: "
                        "never counted as a win)")
    with pytest.raises(ValueError, match="abandoned by neither the friend nor you"):
        parse(stored([entry | {"abandoned": "nobody"}]))


def test_a_friend_is_keyed_by_identity_words_or_by_the_link_while_unknown() -> None:
    identity = Identity(bytes(range(32))).public
    key = friend_key(identity, bytes(16))
    assert key == f"friend:{fingerprint(identity)}" and len(key.split(":")[1].split()) == 5
    assert opponent_label(key) == f"Friend ({fingerprint(identity)})"
    assert friend_key(None, bytes.fromhex("ab" * 16)) == "friend:" + "ab" * 8
    assert opponent_label("friend:" + "ab" * 8) == "Friend (link abababab)"
