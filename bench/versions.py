#!/usr/bin/env python3
"""Writes a dataset of many game versions for the "versions pile up" benchmark (issue 17).

    bench/versions.py OUT [--versions 20]

OUT gets the three bundled versions of fixtures/ copied as they are, then later versions up to
--versions in all, each a patch of the one before, as a game's updates are: about 30 base prices
moved, 3 shop prices lowered, 6 items renamed in English (their translations kept, as a translator
has not caught up), a new version number, build and release date two months on. Every version is a whole dataset in docs/data-format.md's layout, so `tapster import
OUT` reads them all and their changes are real changes. Deterministic (seeded); standard library
only.
"""

from __future__ import annotations

import argparse
import datetime
import json
import random
import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"

PRICE_CHANGES = 30
RENAMES = 6
ADJECTIVES = ["Fine", "Hearty", "Old", "Rustic", "Golden", "Aged", "Fresh", "Spiced", "Smoked", "Bright"]


def read(path: Path):
    return json.loads(path.read_text(encoding="utf-8"))


def write_records(path: Path, records: list) -> None:
    # One record per line, as the generator writes the bundled files.
    lines = ",\n".join(json.dumps(r, ensure_ascii=False) for r in records)
    path.write_text(f"[\n{lines}\n]\n", encoding="utf-8")


def write_object(path: Path, value: dict) -> None:
    path.write_text(json.dumps(value, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


def bundled() -> list[Path]:
    """The bundled version folders, oldest first (by build id)."""
    folders = [p for p in FIXTURES.iterdir() if (p / "manifest.json").is_file()]
    return sorted(folders, key=lambda p: read(p / "manifest.json")["build_id"])


def patch(previous: Path, target: Path, number: int, rng: random.Random) -> None:
    """Writes into `target` the version after `previous`: the `number`-th generated one."""
    shutil.copytree(previous, target)
    manifest = read(previous / "manifest.json")
    released = datetime.date.fromisoformat(manifest["released"]) + datetime.timedelta(days=61)
    manifest.update(
        game_version=f"v0.8.{number}.0.1",
        build_id=manifest["build_id"] + 400 + rng.randrange(200),
        released=released.isoformat(),
    )
    write_object(target / "manifest.json", manifest)

    items = read(previous / "items.json")
    listed = [i for i in items if not i.get("unlisted") and i["base_price"] > 0]
    for item in rng.sample(listed, PRICE_CHANGES):
        factor = rng.choice([0.8, 0.85, 0.9, 1.1, 1.15, 1.2, 1.25])
        item["base_price"] = max(1, round(item["base_price"] * factor))
    write_records(target / "items.json", items)

    # A few prices set by shops alone, as a merchant's discount.
    shops = read(previous / "shops.json")
    for shop in rng.sample(shops, 3):
        entry = rng.choice(shop["catalogue"])
        entry["price"] = max(1, entry["price"] - 1 - rng.randrange(3))
    write_records(target / "shops.json", shops)

    english = read(previous / "localization" / "en.json")
    for item in rng.sample(listed, RENAMES):
        key = item["name_key"]
        name = english.get(key)
        if name and not name.startswith(tuple(ADJECTIVES)):
            english[key] = f"{rng.choice(ADJECTIVES)} {name}"
    write_object(target / "localization" / "en.json", english)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--versions", type=int, default=20)
    args = parser.parse_args()

    folders = bundled()
    if args.versions < len(folders):
        parser.error(f"--versions must be at least {len(folders)}, the bundled ones")
    if args.out.exists():
        shutil.rmtree(args.out)
    args.out.mkdir(parents=True)
    for folder in folders:
        shutil.copytree(folder, args.out / folder.name)
    rng = random.Random(17)
    previous = args.out / folders[-1].name
    for number in range(1, args.versions - len(folders) + 1):
        target = args.out / f"v0.8.{number}.0.1"
        patch(previous, target, number, rng)
        previous = target
    print(f"{args.versions} versions in {args.out}")


if __name__ == "__main__":
    main()
