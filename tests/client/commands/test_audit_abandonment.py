"""`gin audit` of an abandonment record: the claimant's signed word, told in plain words and
never as verified (status 3); a forged one fails by name (1); junk is not a record (2)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from client.cli import main
from gin.protocol.records import cosign
from gin.protocol.records.abandonment import AbandonmentRecord
from gin.protocol.records.history import identities_text
from gin.protocol.records.identity import Identity

SINCE = 1_796_198_400  # 2026-12-02 08:00:00 UTC
HOST = cosign.Signer(bytes(range(32, 64)))
GUEST = cosign.Signer(bytes(range(64, 96)))
LINK = cosign.link_id_for(bytes(32))
IDS = (Identity(bytes(range(128, 160))), Identity(bytes(range(160, 192))))
KEYS = (HOST.public, GUEST.public)


def claim(**changes: object) -> AbandonmentRecord:
    fields: dict[str, object] = dict(
        match_id=cosign.match_id_for(LINK, KEYS, (IDS[0].public, IDS[1].public), b""),
        link_id=LINK, signing_keys=KEYS, identities=(IDS[0].public, IDS[1].public),
        vouches=tuple(i.vouch(LINK, seat, KEYS[seat], b"") for seat, i in enumerate(IDS)),
        previous=None, hand_number=3, owed_seat=1, owed="seed",
        since=SINCE, claimed=SINCE + 300, received=40, received_digest=bytes(32),
        scores=(45, 30), claimant=0)
    return AbandonmentRecord(**(fields | changes)).signed(HOST)  # type: ignore[arg-type]


def test_the_record_is_told_as_the_hosts_word(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "gin-match-hand-03-abandoned.json"
    path.write_text(claim().to_json(), encoding="utf-8")
    assert main(["audit", "--quiet", str(path)]) == 3
    out = capsys.readouterr().out
    assert out == (
        f"{path}:\n{identities_text((IDS[0].public, IDS[1].public))}\n"
        "abandoned by the guest: it owed its seed for hand 3 since 2026-12-02 "
        "08:00:00 UTC; the host ended the match at 08:05:00 (after 300 s). This is the host's "
        "signed word: not a cheat, and not proven (the guest may have withheld it, or the "
        "relay dropped it)\nnot verified: that the guest fell silent: only the host says so\n")
    assert "verified\n" not in out.replace("not verified", "")


def test_a_changed_record_fails_and_junk_is_not_a_record(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = claim().to_dict()
    data["scores"] = [45, 60]  # the guest "won" more in the file than the host signed
    forged = tmp_path / "forged.json"
    forged.write_text(json.dumps(data), encoding="utf-8")
    assert main(["audit", str(forged)]) == 1
    out = capsys.readouterr().out
    assert "FAILED signature: the host's signature does not sign this record (at fault: " \
        "record)" in out
    junk = tmp_path / "junk.json"
    junk.write_text(json.dumps(data | {"owed": {"seat": 1, "what": "\x1b[2Jtea"}}),
                    encoding="utf-8")
    assert main(["audit", str(junk), str(forged)]) == 2
    err = capsys.readouterr().err
    assert "abandonment record: record.owed.what: expected one of hello" in err
    assert "\x1b" not in err
