"""`domino-referee vision read IMAGE... [--json] [--debug OUT.png] [--background EMPTY]
[--one-set] [--calibration FILE] [--min-confidence P]` and `vision eval DIR [--json] [--one-set]
[--min-confidence P]`.

OpenCV is imported inside the handlers so that `domino-referee --help` stays fast.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

ONE_SET_HELP = ("each image shows tiles of one set, each tile at most once: of two readings of one "
                "tile the likelier is kept")
MIN_CONFIDENCE_HELP = ("leave out readings the reader is less sure of than this calibrated probability, "
                       "0..1 (default: vision.pipeline.MIN_CONFIDENCE)")


def _min_confidence(args: argparse.Namespace) -> float:
    """`--min-confidence`, else the reader's default (imported here: it loads OpenCV)."""
    from vision.pipeline import MIN_CONFIDENCE

    return MIN_CONFIDENCE if args.min_confidence is None else float(args.min_confidence)


def register(subparsers: Any) -> None:
    vision = subparsers.add_parser("vision", help="read tiles from still photos; measure accuracy")
    actions = vision.add_subparsers(dest="vision_command", metavar="ACTION", required=True)
    read = actions.add_parser("read", help="list the tiles seen in each IMAGE")
    read.add_argument("images", nargs="+", metavar="IMAGE", help="image files (JPEG, PNG, ...)")
    read.add_argument("--json", action="store_true", help="print one JSON document")
    read.add_argument("--max-pip", type=int, default=6, help="highest pip value of the set (6)")
    read.add_argument("--debug", metavar="OUT.png",
                      help="also draw what was seen (one IMAGE: this file; several: OUT-<name>.png)")
    read.add_argument("--background", metavar="EMPTY",
                      help="the same camera's picture of the table before any tile was laid face up: "
                           "face-up tiles read where nothing changed since are left out, and what "
                           "changed that no tile read explains is looked at for tiles")
    read.add_argument("--one-set", action="store_true", help=ONE_SET_HELP)
    read.add_argument("--min-confidence", type=float, metavar="P", help=MIN_CONFIDENCE_HELP)
    read.add_argument("--calibration", metavar="FILE",
                      help="the camera's calibration (`calibrate table`): the table is read on its own "
                           "plane, where every tile has one length however the camera leans")
    read.set_defaults(handler=run_read)
    evaluate = actions.add_parser("eval", help="accuracy of `vision read` on a labelled folder")
    evaluate.add_argument("folder", metavar="DIR", help="a folder with images and labels.json")
    evaluate.add_argument("--json", action="store_true", help="print one JSON document")
    evaluate.add_argument("--max-pip", type=int, default=6,
                          help="highest pip value of the set (6), for images whose labels give none")
    evaluate.add_argument("--labels", metavar="FILE",
                          help="read the labels from FILE instead of DIR/labels.json")
    evaluate.add_argument("--one-set", action="store_true", help=ONE_SET_HELP)
    evaluate.add_argument("--min-confidence", type=float, metavar="P", help=MIN_CONFIDENCE_HELP)
    evaluate.set_defaults(handler=run_eval)


def _debug_path(base: str, image: Path, several: bool) -> Path:
    path = Path(base)
    return path.with_name(f"{path.stem}-{image.stem}{path.suffix or '.png'}") if several else path


def run_read(args: argparse.Namespace) -> int:
    import cv2

    from vision.calibration import Calibration
    from vision.debug import draw_view
    from vision.errors import VisionError
    from vision.image import load_image
    from vision.read import read_image

    documents: dict[str, Any] = {}
    background = load_image(Path(args.background)) if args.background else None
    calibration = Calibration.load(args.calibration) if args.calibration else None
    for name in args.images:
        path = Path(name)
        image = load_image(path)
        view = read_image(image, max_pip=args.max_pip, background=background, one_set=args.one_set,
                          calibration=calibration, min_confidence=_min_confidence(args))
        documents[path.name] = view.to_json()
        if args.debug:
            out = _debug_path(args.debug, path, len(args.images) > 1)
            if not cv2.imwrite(str(out), draw_view(image, view)):
                raise VisionError(f"{out}: cannot write the debug image")
        if not args.json:
            tiles = " ".join(t.tile for t in view.tiles) or "-"
            sys.stdout.write(f"{path.name}: {len(view.tiles)} face-up [{tiles}], "
                             f"{view.face_down} face-down")
            if view.joins:
                sys.stdout.write(", joins " + " ".join(f"{a}~{b}" for a, b in view.joins))
            sys.stdout.write("\n")
    if args.json:
        json.dump({"images": documents}, sys.stdout, indent=1)
        sys.stdout.write("\n")
    return 0


def run_eval(args: argparse.Namespace) -> int:
    from vision.errors import VisionError
    from vision.evaluate import label_max_pip, labelled_image, load_labels, score_image, summarise
    from vision.progress import progress
    from vision.read import read_image

    folder = Path(args.folder)
    if not folder.is_dir():
        raise VisionError(f"{folder}: not a folder")
    labels = load_labels(folder, args.labels)
    scores = []
    for name, label in progress(sorted(labels.items()), total=len(labels), what="reading"):
        view = read_image(labelled_image(folder, name, label), max_pip=label_max_pip(label, args.max_pip),
                          one_set=args.one_set, min_confidence=_min_confidence(args))
        scores.append(score_image(name, view.to_json(), label))
    total = summarise(scores)
    if args.json:
        json.dump({"images": {s.name: s.to_json() for s in scores}, "total": total}, sys.stdout, indent=1)
        sys.stdout.write("\n")
        return 0
    for s in scores:
        doc = s.to_json()
        line = (f"{s.name}: precision {doc['precision']:.3f} recall {doc['recall']:.3f} "
                f"{'exact' if s.exact else 'inexact'}")
        if s.face_down_error is not None:
            line += f" face-down error {s.face_down_error:+d}"
        if s.extra or s.missing:
            line += f" extra {s.extra} missing {s.missing}"
        sys.stdout.write(line + "\n")
    sys.stdout.write(
        f"total: {total['images']} images, tile precision {total['precision']:.3f}, "
        f"recall {total['recall']:.3f}, exact images {total['exact_images']}/{total['images']} "
        f"({total['exact_accuracy']:.3f})")
    if total["face_down_mean_abs_error"] is not None:
        sys.stdout.write(f", face-down mean abs error {total['face_down_mean_abs_error']}")
    if total["joins_recall"] is not None:
        sys.stdout.write(f", joins precision {total['joins_precision']:.3f} "
                         f"recall {total['joins_recall']:.3f}")
    sys.stdout.write("\n")
    return 0
