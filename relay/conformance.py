"""``python -m relay.conformance DIR``: write ``DIR/relay.jsonl``, the conformance
case that holds the browser's relay client (client/web/src/online/relay.ts) to
``relay.wire``; ``npm run conformance`` checks it (docs/conformance.md)."""

from __future__ import annotations

import argparse
import json
import pathlib
from collections.abc import Iterator
from typing import Any

from relay.wire import FIELDS, FINAL_CLOSE_CODES, NEW_ROOM_FIELDS, WELCOMES, Close, Control, Peer

FILE = "relay.jsonl"


def _named(constants: type) -> dict[str, Any]:
    """A constants class's members by name, in the order they are defined."""
    return {name: value for name, value in vars(constants).items() if name.isupper()}


def cases() -> Iterator[dict[str, Any]]:
    yield {
        "kind": "relay_wire",
        "close": _named(Close),
        "final_close_codes": sorted(FINAL_CLOSE_CODES),
        "control": _named(Control),
        "welcomes": sorted(WELCOMES),
        "fields": {kind: list(names) for kind, names in FIELDS.items()},
        "peer": _named(Peer),
        "new_room": list(NEW_ROOM_FIELDS),
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        prog="python -m relay.conformance",
        description=f"Write {FILE}: the relay's wire constants for the browser's client.",
    )
    parser.add_argument("out_dir", type=pathlib.Path, help="folder for the .jsonl file")
    args = parser.parse_args()
    args.out_dir.mkdir(parents=True, exist_ok=True)
    path = args.out_dir / FILE
    count = 0
    with open(path, "w", encoding="utf-8") as out:
        for case in cases():
            out.write(json.dumps(case, separators=(",", ":")) + "\n")
            count += 1
    print(f"{path}: {count} cases")


if __name__ == "__main__":
    main()
