"""This reader beside the peer jmherzog-de/domino-detection, on the same labelled photos.

    python -m benchmarks.peer_detection --peer CHECKOUT [--python PEER_PYTHON] [DIR] [--json]

CHECKOUT is a clone of the peer (GPL-3.0; never copied into this repository), PEER_PYTHON an
interpreter with the libraries it pins (see README, "Benchmarks"). DIR defaults to the shared real
photos, which are the peer's own sample images. Without `--peer` (or `PEER_DETECTION_CHECKOUT`)
the benchmark says so and exits 0, so that `make bench` runs on a machine without the peer.

For each photo the peer runs as a whole process in its own interpreter (`_peer_driver.py`: its
`app.py` photo mode, headless, with the defaults it ships), and so does this reader
(`domino-referee vision read IMAGE --json`); CPU is user + system time of that process and its
threads. Each side's in-process time is measured too: `read_image` here, the peer's photo mode
from opening the file to its final projection there (Qt's offscreen drawing of each widget
included: that is how the peer runs). Scores are those of `vision eval`: tile identity precision
and recall over the multiset of values per image, exact images, joins. The peer reads a half as
1..6 or None (its pattern check found no valid count; it has no pattern for a blank), so it is
scored twice: strictly (a stone with a None half is a tile seen but wrong) and generously (None
read as blank). Its tile finding is scored apart, without values: stones it found against tiles
labelled, and the pip sum of each image.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vision.evaluate import ImageScore, load_labels, score_image, summarise
from vision.image import load_image
from vision.progress import progress
from vision.read import read_image

REAL_PHOTOS = Path(__file__).resolve().parents[1] / ".." / "shared" / "datasets" / "real-photos"
DRIVER = Path(__file__).resolve().parent / "_peer_driver.py"
ROOT = Path(__file__).resolve().parents[1]
# One photo of ~1 megapixel takes the peer under a second and this reader a few; a run past this
# is a hang (a Qt platform waiting for a display), not a slow read.
PROCESS_TIMEOUT_S = 300
UNREAD = "?"  # the name half of a tile gets when the peer read no value for it


@dataclass
class Side:
    """One reader's results over the folder."""

    name: str
    views: dict[str, dict[str, Any]]
    process_cpu_s: list[float]
    inprocess_cpu_s: list[float]
    errors: dict[str, str]


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_process(command: Sequence[str], cwd: Path, env: dict[str, str] | None = None,
                ) -> tuple[subprocess.CompletedProcess[str], float]:
    """Run `command` to its end; its result and the CPU seconds it and its threads used."""
    before = children_cpu()
    done = subprocess.run(list(command), cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=PROCESS_TIMEOUT_S, check=False)
    return done, children_cpu() - before


def _half(value: Any, blank_for_unread: bool) -> str:
    if value is None:
        return "0" if blank_for_unread else UNREAD
    return str(int(value))


def peer_view(result: dict[str, Any], *, blank_for_unread: bool) -> dict[str, Any]:
    """The peer's answer for one image in `TableView.to_json()`'s shape, for `score_image`.

    A stone counts as a tile it reports when it read at least one half (its projection widget
    drops the others as dividers found where there is none). Strictly, an unread half is `?` and
    the tile can match no label; with `blank_for_unread` it is read as a blank.
    Joins are the pairs of reported stones its matching step linked, each pair once.
    """
    stones = result.get("stones", [])
    names: dict[int, str] = {}
    for index, stone in enumerate(stones):
        if stone.get("left") is None and stone.get("right") is None:
            continue
        halves = sorted((_half(stone.get("left"), blank_for_unread),
                         _half(stone.get("right"), blank_for_unread)),
                        key=lambda h: (h == UNREAD, int(h) if h != UNREAD else 0))
        names[index] = "-".join(halves)
    joins = []
    for index, stone in enumerate(stones):
        for link in stone.get("links", []):
            other = int(link["index"])
            if index < other and index in names and other in names:
                joins.append([names[index], names[other]])
    return {"tiles": [{"tile": name} for name in names.values()], "joins": joins}


def pip_sum(view: dict[str, Any]) -> int:
    """Pips on every tile of `view` (an unread half counts none)."""
    total = 0
    for tile in view.get("tiles", []):
        total += sum(int(h) for h in str(tile["tile"]).split("-") if h != UNREAD)
    return total


def run_peer(folder: Path, names: list[str], peer: Path, python: str) -> tuple[Side, dict[str, Any]]:
    """The peer on every image: its raw answers too, for the stone counts."""
    side = Side("jmherzog-de/domino-detection", {}, [], [], {})
    raw: dict[str, Any] = {}
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", PYTHONPATH="")
    for name in progress(names, total=len(names), what="photos (peer)"):
        done, cpu = run_process([python, str(DRIVER), str(peer), str(folder / name)], peer, env)
        side.process_cpu_s.append(cpu)
        try:
            result = json.loads(done.stdout.strip().splitlines()[-1])
        except (IndexError, json.JSONDecodeError):
            tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
            side.errors[name] = f"exit status {done.returncode}: {tail}"
            result = {"stones": []}
        else:
            side.inprocess_cpu_s.append(float(result["photo_cpu_s"]))
        raw[name] = result
    return side, raw


def run_ours(folder: Path, names: list[str]) -> Side:
    side = Side("domino-referee", {}, [], [], {})
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    for name in progress(names, total=len(names), what="photos (ours, in process)"):
        image = load_image(folder / name)
        started = time.process_time()
        view = read_image(image)
        side.inprocess_cpu_s.append(time.process_time() - started)
        side.views[name] = view.to_json()
    for name in progress(names, total=len(names), what="photos (ours, one process each)"):
        command = [sys.executable, "-m", "referee.app.cli", "vision", "read", str(folder / name), "--json"]
        done, cpu = run_process(command, ROOT, env)
        side.process_cpu_s.append(cpu)
        if done.returncode != 0:
            side.errors[name] = f"exit status {done.returncode}: {done.stderr.strip()[-200:]}"
    return side


def count_scores(found: dict[str, int], labels: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Tile finding without values: per image min(found, labelled) tiles count as right."""
    right = sum(min(found[n], len(labels[n].get("tiles", []))) for n in found)
    seen = sum(found.values())
    labelled = sum(len(labels[n].get("tiles", [])) for n in found)
    return {"precision": round(right / seen, 4) if seen else 1.0,
            "recall": round(right / labelled, 4) if labelled else 1.0,
            "exact_images": sum(found[n] == len(labels[n].get("tiles", [])) for n in found)}


def pip_sum_exact(views: dict[str, dict[str, Any]], labels: dict[str, dict[str, Any]]) -> int:
    return sum(pip_sum(views[n]) == pip_sum(labels[n]) for n in views)


def _seconds(values: list[float]) -> str:
    if not values:
        return "—"
    return f"{statistics.mean(values):.3f} / {statistics.median(values):.3f}"


def _found(count: dict[str, Any]) -> str:
    return f"{count['precision']:.3f} / {count['recall']:.3f}"


def _joins(scores: list[ImageScore]) -> str:
    """Counts, not ratios: `summarise` calls a precision of nothing seen 1.0."""
    labelled = [s for s in scores if s.joins_labelled is not None]
    return (f"{sum(s.joins_right or 0 for s in labelled)} / {sum(s.joins_predicted or 0 for s in labelled)}"
            f" / {sum(s.joins_labelled or 0 for s in labelled)}")


def compare(folder: Path, peer: Path, python: str) -> dict[str, Any]:
    labels = load_labels(folder)
    names = sorted(labels)
    ours = run_ours(folder, names)
    theirs, raw = run_peer(folder, names, peer, python)
    if len(theirs.errors) == len(names):
        first = next(iter(theirs.errors.values()))
        raise RuntimeError(f"the peer ran on none of the {len(names)} photos: {first}")
    strict = {n: peer_view(raw[n], blank_for_unread=False) for n in names}
    generous = {n: peer_view(raw[n], blank_for_unread=True) for n in names}
    columns: dict[str, dict[str, Any]] = {}
    for title, views in (("ours", ours.views), ("peer, strict", strict), ("peer, None as blank", generous)):
        scores: list[ImageScore] = [score_image(n, views[n], labels[n]) for n in names]
        columns[title] = {"scores": scores, "total": summarise(scores),
                          "pip_sum_exact": pip_sum_exact(views, labels)}
    our_counts = {n: len(ours.views[n].get("tiles", [])) for n in names}
    peer_counts = {n: len(raw[n].get("stones", [])) for n in names}
    return {"folder": folder, "names": names, "labels": labels, "ours": ours, "peer": theirs,
            "raw": raw, "columns": columns,
            "counts": {"ours": count_scores(our_counts, labels),
                       "peer": count_scores(peer_counts, labels)},
            "peer_counts": peer_counts, "strict": strict}


def print_report(result: dict[str, Any]) -> None:
    names, labels = result["names"], result["labels"]
    columns, counts = result["columns"], result["counts"]
    ours, peer = result["ours"], result["peer"]
    tiles = sum(len(labels[n].get("tiles", [])) for n in names)
    print(f"{len(names)} photos, {tiles} tiles ({Path(result['folder']).resolve().name})")
    heads = list(columns)
    rows: list[tuple[str, list[str]]] = [
        ("tile precision", [f"{columns[h]['total']['precision']:.3f}" for h in heads]),
        ("tile recall", [f"{columns[h]['total']['recall']:.3f}" for h in heads]),
        ("exact images", [f"{columns[h]['total']['exact_images']}/{len(names)}" for h in heads]),
        ("joins right / seen / labelled", [_joins(columns[h]["scores"]) for h in heads]),
        ("pip sum right (images)", [f"{columns[h]['pip_sum_exact']}/{len(names)}" for h in heads]),
        ("tiles found, no values: P / R", [_found(counts["ours"])] + [_found(counts["peer"])] * 2),
        ("tile count right (images)", [f"{counts['ours']['exact_images']}/{len(names)}"]
         + [f"{counts['peer']['exact_images']}/{len(names)}"] * 2),
        ("CPU s/photo, whole process (mean / median)", [_seconds(ours.process_cpu_s)]
         + [_seconds(peer.process_cpu_s)] * 2),
        ("CPU s/photo, in process (mean / median)", [_seconds(ours.inprocess_cpu_s)]
         + [_seconds(peer.inprocess_cpu_s)] * 2),
    ]
    width = max(len(r[0]) for r in rows)
    cells = [max(len(h), *(len(r[1][i]) for r in rows)) for i, h in enumerate(heads)]
    print(" " * width + "  " + "  ".join(h.rjust(cells[i]) for i, h in enumerate(heads)))
    for label, values in rows:
        print(label.ljust(width) + "  " + "  ".join(v.rjust(cells[i]) for i, v in enumerate(values)))
    print("\nper photo: labelled | ours right/seen | peer stones found, halves read, tiles it named")
    for name in names:
        ours_score = next(s for s in columns["ours"]["scores"] if s.name == name)
        stones = result["raw"][name].get("stones", [])
        read = sum((s.get("left") is not None) + (s.get("right") is not None) for s in stones)
        named = [t["tile"] for t in result["strict"][name]["tiles"]]
        print(f"  {name:20} {len(labels[name].get('tiles', [])):2} | {ours_score.true_positives:2}/"
              f"{ours_score.predicted:<2} | {len(stones):2} stones, {read:2}/{2 * len(stones):<2} halves, "
              f"{', '.join(named) or '-'}")
    for side in (ours, peer):
        for name, error in side.errors.items():
            print(f"  {side.name} failed on {name}: {error}")


def as_json(result: dict[str, Any]) -> dict[str, Any]:
    ours, peer = result["ours"], result["peer"]
    return {
        "photos": len(result["names"]),
        "scores": {h: {**c["total"], "pip_sum_exact": c["pip_sum_exact"], "joins": _joins(c["scores"])}
                   for h, c in result["columns"].items()},
        "tiles_found": result["counts"],
        "cpu_s": {"ours": {"process": ours.process_cpu_s, "in_process": ours.inprocess_cpu_s},
                  "peer": {"process": peer.process_cpu_s, "in_process": peer.inprocess_cpu_s}},
        "peer_stones": result["raw"],
        "errors": {"ours": ours.errors, "peer": peer.errors},
    }


def default_python(peer: Path) -> str | None:
    named = os.environ.get("PEER_DETECTION_PYTHON")
    if named:
        return named
    local = peer / ".venv" / "bin" / "python"
    return str(local) if local.exists() else None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.peer_detection", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folder", nargs="?", type=Path, default=REAL_PHOTOS)
    parser.add_argument("--peer", type=Path, default=os.environ.get("PEER_DETECTION_CHECKOUT"),
                        help="a clone of jmherzog-de/domino-detection (or PEER_DETECTION_CHECKOUT)")
    parser.add_argument("--python", default=None,
                        help="the peer's interpreter (or PEER_DETECTION_PYTHON; "
                             "default CHECKOUT/.venv/bin/python)")
    parser.add_argument("--json", action="store_true", help="print one JSON document instead of the table")
    args = parser.parse_args(argv)
    if args.peer is None:
        print("peer_detection: skipped (no --peer CHECKOUT and no PEER_DETECTION_CHECKOUT; "
              "README, \"Benchmarks\")")
        return 0
    peer = Path(args.peer).resolve()
    if not (peer / "mainwindow.py").is_file():
        parser.error(f"--peer {peer}: no mainwindow.py there; "
                     "expected a clone of jmherzog-de/domino-detection")
    python = args.python or default_python(peer)
    if python is None:
        parser.error("give --python: an interpreter with the peer's libraries (README, \"Benchmarks\")")
    try:
        result = compare(args.folder, peer, python)
    except (RuntimeError, OSError, subprocess.TimeoutExpired) as error:
        print(f"peer_detection: error: {error}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(as_json(result), indent=1))
    else:
        print_report(result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
