"""The tracker over whole stretches of a hand: draws from a boneyard, reveals, a contradiction and
its repair, and partial reads that see what whole-frame reads see (real reader, real pixels)."""

from __future__ import annotations

import json
from pathlib import Path

from vision.read import read_image
from vision.synth.film import GameFilm, fixed_camera_film
from vision.synth.scene import PlacedTile
from vision.synth.style import PLAIN_STYLE, Style
from vision.tracker import Tracker
from vision.types import BoneyardChanged, Desync, Resynced, TilePlaced, TilesRevealed

SIZE = (1280, 720)


def _film(seed: int, *, incremental: bool = True, style: Style = PLAIN_STYLE) -> tuple[GameFilm, Tracker]:
    film, calibration = fixed_camera_film(style, seed, SIZE, approach_frames=2, leave_frames=1,
                                          rest_frames=4)
    return film, Tracker(read_image, calibration=calibration, incremental=incremental)


def _feed(tracker: Tracker, frames: list) -> list:
    out = []
    for frame in frames:
        out += tracker.feed(frame.t, frame.image)
    return out


def test_each_draw_from_a_full_boneyard_is_one_tile_fewer() -> None:
    film, tracker = _film(3)
    counts = [o.count for o in _feed(tracker, film.new_hand(boneyard=14)) if isinstance(o, BoneyardChanged)]
    assert counts == [14]
    for left in (13, 12, 11):
        observed = _feed(tracker, film.draw(left % 2))
        assert [o.count for o in observed if isinstance(o, BoneyardChanged)] == [left], observed
        assert not any(isinstance(o, TilePlaced) for o in observed)
    assert tracker.desync is None


def test_a_new_hands_tidy_row_of_plain_backs_is_counted_as_the_tracker_reads_it() -> None:
    """The boneyard a hand starts with, backs side by side in a row, read through the calibration:
    every count exact in 12 films. A reader that tells a back from the frames straddling two backs
    less well miscounts these rows (the wider reader fitted with three crops per back instead of
    six got 4 of 12; docs/vision-design.md)."""
    counts = []
    for seed in range(12):
        film, calibration = fixed_camera_film(PLAIN_STYLE, seed, SIZE, approach_frames=2, leave_frames=1,
                                              rest_frames=4)
        backs = 14 if seed % 2 else 10
        image = film.new_hand(boneyard=backs)[-1].image
        counts.append(read_image(image, calibration=calibration).face_down - backs)
    assert counts == [0] * 12


def test_the_backs_rows_benchmark_counts_each_films_row_against_the_backs_laid(tmp_path: Path) -> None:
    from benchmarks.vision_backs_rows import counted_row, main

    report = tmp_path / "rows.json"
    assert main(["--count", "2", "--seed", "100", "--json", str(report)]) == 0
    figures = json.loads(report.read_text())
    rows = [counted_row(seed) for seed in (100, 101)]
    assert figures["rows"] == 2 and figures["backs_laid"] == sum(laid for laid, _ in rows)
    assert all(8 <= laid <= 14 for laid, _ in rows)
    assert sum(figures["rows_by_error"].values()) == 2
    assert figures["rows_exact"] == figures["rows_by_error"].get("+0", 0)
    miscounted = [(film, laid, read)
                  for film, (laid, read) in zip((100, 101), rows, strict=True) if read != laid]
    assert [(row["film"], row["laid"], row["read"]) for row in figures["miscounted"]] == miscounted
    # Film 100 is the tracker test's plain table: its row is counted exactly, as those are.
    assert rows[0][0] == rows[0][1]


def test_a_hand_laid_face_up_in_a_seat_zone_is_revealed_not_played() -> None:
    film, tracker = _film(4)
    _feed(tracker, film.new_hand(boneyard=0))
    _feed(tracker, film.play(0, "2-4", None))
    observed = _feed(tracker, film.reveal(1, ["1-3", "5-6", "0-0"]))
    assert [(o.zone, sorted(o.tiles)) for o in observed if isinstance(o, TilesRevealed)] == [
        ("seat1", ["0-0", "1-3", "5-6"])
    ]
    assert not any(isinstance(o, TilePlaced) for o in observed)


def test_a_tile_taken_out_of_the_line_is_a_desync_until_it_is_put_back() -> None:
    film, tracker = _film(6)
    _feed(tracker, film.new_hand(boneyard=0))
    for seat, (tile, end) in enumerate([("3-5", None), ("5-6", "right"), ("1-3", "left")]):
        _feed(tracker, film.play(seat, tile, end))
    kept, joins = list(film.line.tiles), list(film.line.joins)
    film.line.tiles.pop()  # somebody takes the last tile back into their hand
    film.line.joins.pop()
    observed = _feed(tracker, film.still(8))
    assert any(isinstance(o, Desync) and "1-3" in o.reason for o in observed), observed
    film.line.tiles[:], film.line.joins[:] = kept, joins
    observed = _feed(tracker, film.still(8))
    assert any(isinstance(o, Resynced) for o in observed), observed
    assert tracker.desync is None


def test_partial_reads_report_what_whole_frame_reads_report() -> None:
    plays = [("4-4", None), ("2-4", "left"), ("4-6", "right"), ("1-2", "left"), ("6-6", "right")]
    reports = []
    for incremental in (True, False):
        film, tracker = _film(9, incremental=incremental)
        observed = _feed(tracker, film.new_hand(boneyard=6))
        for seat, (tile, end) in enumerate(plays):
            observed += _feed(tracker, film.play(seat % 2, tile, end))
            if seat == 2:
                observed += _feed(tracker, film.draw(1))
        reports.append(([(type(o).__name__, getattr(o, "tile", None), getattr(o, "end", None),
                          getattr(o, "count", None)) for o in observed], tracker.partial_reads))
    (with_parts, parts), (whole, none) = reports
    assert none == 0 and parts >= len(plays) - 1, "plays after the first are read from a crop"
    assert with_parts == whole
    assert [(name, tile, end) for name, tile, end, _ in whole if name == "TilePlaced"] == [
        ("TilePlaced", tile, end) for tile, end in plays
    ]


def test_a_new_hands_boneyard_is_reported_even_when_as_big_as_the_last() -> None:
    film, tracker = _film(5)
    _feed(tracker, film.new_hand(boneyard=4))
    _feed(tracker, film.play(0, "1-2", None))
    tracker.new_hand()
    observed = _feed(tracker, film.new_hand(boneyard=4))
    assert [o.count for o in observed if isinstance(o, BoneyardChanged)] == [4]
    assert not any(isinstance(o, Desync) for o in observed)


def test_a_face_up_reading_in_the_boneyard_zone_is_no_play() -> None:
    film, tracker = _film(7)
    _feed(tracker, film.new_hand(boneyard=0))
    x0, y0, x1, y1 = film.layout.zones["boneyard"]
    film.boneyard.append(PlacedTile(2, 5, (x0 + x1) / 2, (y0 + y1) / 2, 90.0))  # what a misread would see
    observed = _feed(tracker, film.still(8))
    assert not any(isinstance(o, TilePlaced) for o in observed), observed


def test_black_tiles_on_dark_felt_are_seen_by_their_colour() -> None:
    """A black set with coloured pips on dark blue felt is as dark as the felt: in grey the table
    hardly changes, and only colour shows a tile was laid."""
    style = PLAIN_STYLE.replace(tile_body="black", pips="coloured", back_colour=(0.1, 0.1, 0.11),
                                table="felt_blue", table_colour=(0.42, 0.2, 0.07))
    film, tracker = _film(5, style=style)
    _feed(tracker, film.new_hand(boneyard=0))
    placed = []
    for seat, (tile, end) in enumerate([("2-5", None), ("5-6", "right")]):
        observed = _feed(tracker, film.play(seat, tile, end))
        placed += [(o.tile, o.end) for o in observed if isinstance(o, TilePlaced)]
    assert placed == [("2-5", None), ("5-6", "right")]
