"""``python -m gin.conformance DIR``: write the conformance corpus (JSON lines)."""

from __future__ import annotations

import argparse
import json
import pathlib

from gin.conformance import corpus


def main() -> None:
    parser = argparse.ArgumentParser(
        prog="python -m gin.conformance",
        description="Write the conformance corpus (JSON lines) for the TypeScript engine.",
    )
    parser.add_argument("out_dir", type=pathlib.Path, help="folder for the .jsonl files")
    parser.add_argument("--scale", type=int, default=1, help="multiply the case counts")
    args = parser.parse_args()
    args.out_dir.mkdir(parents=True, exist_ok=True)
    for name, cases in corpus(args.scale).items():
        count = 0
        with open(args.out_dir / name, "w", encoding="utf-8") as out:
            for case in cases:
                out.write(json.dumps(case, separators=(",", ":")) + "\n")
                count += 1
        print(f"{args.out_dir / name}: {count} cases")


main()
