"""`domino-referee calibrate`: print the table markers, save a calibration from a photo.

domino-referee calibrate markers OUT.png [--marker-mm 50] [--dpi 300]
domino-referee calibrate table IMAGE --out FILE [--layout LAYOUT.json]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "calibrate",
        help="print the table's ArUco markers; calibrate the camera against them",
        description="Print the four corner markers and save the camera's view of the table.",
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    markers = actions.add_parser("markers", help="write a printable A4 sheet with the 4 markers (ids 0-3)")
    markers.add_argument("out", type=Path, help="image file to write (PNG)")
    markers.add_argument(
        "--marker-mm", type=float, default=50.0, help="printed marker side in mm (default 50)"
    )
    markers.add_argument("--dpi", type=int, default=300, help="print resolution (default 300)")
    markers.set_defaults(handler=_markers)
    table = actions.add_parser("table", help="find the markers in a photo of the table; save the calibration")
    table.add_argument("image", type=Path, help="photo or video frame from the fixed camera")
    table.add_argument("--out", type=Path, required=True, help="calibration JSON file to write")
    table.add_argument("--layout", type=Path, help="table layout JSON (size, marker places, zones)")
    table.set_defaults(handler=_table)


def _markers(args: argparse.Namespace) -> int:
    import cv2

    from vision.calibration import CalibrationError, TableLayout, markers_sheet

    if not 10 <= args.marker_mm <= 90 or not 72 <= args.dpi <= 1200:
        raise CalibrationError(
            f"--marker-mm must be 10..90 and --dpi 72..1200, got {args.marker_mm}, {args.dpi}"
        )
    page = markers_sheet(TableLayout(marker_mm=args.marker_mm), args.dpi)
    if not cv2.imwrite(str(args.out), page):
        raise CalibrationError(f"cannot write {str(args.out)!r} (unknown image type or unwritable folder)")
    print(f"wrote {args.out}: markers 0-3, {args.marker_mm:g} mm at {args.dpi} dpi")
    return 0


def _table(args: argparse.Namespace) -> int:

    from vision.calibration import CalibrationError, TableLayout, calibrate_from_markers

    layout = TableLayout()
    if args.layout is not None:
        try:
            layout = TableLayout.from_json(json.loads(args.layout.read_text()))
        except (OSError, json.JSONDecodeError) as error:
            raise CalibrationError(f"cannot read layout file {str(args.layout)!r}: {error}") from error
    from vision.errors import VisionError
    from vision.image import load_image

    try:
        image = load_image(args.image)
    except VisionError as error:
        raise CalibrationError(f"cannot read image {str(args.image)!r}: {error}") from error
    calibration = calibrate_from_markers(image, layout)
    calibration.save(args.out)
    print(
        f"wrote {args.out}: markers {list(calibration.markers_found)}, "
        f"{calibration.pixels_per_mm():.2f} px/mm at the table's centre"
    )
    return 0
