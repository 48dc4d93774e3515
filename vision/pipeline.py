"""The stages of `read_image`, top to bottom; see `vision.read` for the public API.

1. `coarse`: the checked input brought to a bounded scale (`vision.scale`: at most a 1080p
   frame's pixels, and with a calibration a tile at most `WORK_TILE_LENGTH_PX` long). Every later
   stage sees this image only, so any input costs about what a 1080p frame does.
2. `vision.finder.TileFinder.find`: every place a tile may lie, face up or face down, from a
   network that looks at the whole image at a pyramid of scales. Recall first.
3. `settle`: the tile reader (`vision.tilenet`) looks at an upright crop of each face-up
   candidate, says whether a face-up tile is there and where exactly, and looks again from
   there, up to `LOOKS` times; frames it finds no tile in go. The last look's answer (pips,
   calibrated confidence, outline) is the reading.
4. `choose`: the best reading per place; a reading overlapping a better one goes, and so does one
   the reader is not sure shows a tile at all. Given a background, a reading where the picture
   has not changed since goes (`vision.background`); told the picture shows one set, a second
   reading of a tile goes (`one_of_each`).
5. `vision.layout.find_joins`, and the backs: the reader looks at the finder's face-down
   candidates, and at the face-up candidates its first look called backs, as it looks for
   face-up tiles (`back_readings`); where it settles on a back it is sure of (`READ_BACK_MIN`),
   on no face-up tile read and of the set's size, a back is counted (`face_down`).

Shapes: crops are uint8 (N, 64, 32, 3) (`vision.crops`); frames are `TileFrame`s in coarse px
until the end, where corners are mapped back to input px. Every threshold is a named constant
here or in the stage's module.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import cv2
import numpy as np

from vision.background import MIN_CHANGED_SHARE, UNCHANGED, Changes
from vision.crops import crops, refined
from vision.errors import VisionError
from vision.finder import shipped_finder
from vision.geometry import TileFrame, first_of_each_place
from vision.image import checked_bgr
from vision.layout import find_joins
from vision.scale import coarse_factor, shrink
from vision.tilenet import BACK, FACE_UP, KINDS, Readings, TileNet, shipped
from vision.types import SeenTile, TableView, Verdict, tile_name

FIRST_LOOK_MIN = 0.05  # face-up probability below which a candidate is not looked at again
# The reader's probability of a face-up tile below which a reading is no tile, whatever its pips:
# a frame on a pattern's cell, two backs side by side or a card is taken for a tile at lower
# probabilities. Tuned on widened tuning tables 10000-10099 (never the held-out 0-999): 0.95
# kept precision 0.994 at recall 0.956 (0.99: 0.996 and 0.940; 0.5: 0.984 and 0.962). The pips'
# own doubt stays with `min_confidence` (a pale pip read at 0.63 is a tile the reader is sure
# of, unsure only of its value).
MIN_FACE_UP = 0.95
# ... unless the reader is at least this sure of a face-up tile and this sure of its pips, and
# the pips are not all blank. A face in a colour the network saw least (blue, green, pink) lowers
# its face-up probability while its pips stay clear; a back has no pips to be sure of, and a
# pattern's cell or a card reads as blank or unsure. Chosen on widened tuning tables 10000-10299
# (2290 -> 2297 tiles right, 11 -> 11 false); on 10300-10599, not looked at when choosing:
# 2104 -> 2118 right, 17 -> 17 false, 219 -> 221 tables exact.
FACE_UP_WITH_SURE_PIPS = (0.7, 0.99)
MAX_OVERLAP = 0.2  # share of the smaller tile two readings may cover of each other
LOOKS = 3  # refinements after the first look (each a batch through the network)
# A look whose answer moves the frame less than this (its centre by this share of the half-width,
# its sides by this log ratio, its axis by this many radians) has settled: looking again from a
# crop within a pixel of this one would give the same answer.
SETTLED = 0.02
# Two frames a look moved onto one place are looked at once from there: centres within this
# share of the half-width, half-widths within this log ratio, axes within this many radians.
SAME_PLACE = (0.25, 0.15, 0.14)
CALIBRATED_LENGTH = (0.85, 1.15)  # a reading's length over the calibrated tile length, outside: not a tile
# The reader's probability of a back from which a frame it settled on is one. Every face-down
# candidate of the finder is looked at (a plain back is as plain as a blank face to the finder,
# and its heat splits between the two: a row of tidy backs scored 0.2-0.6). On the tuning tables
# 10000-10099 (never the held-out 0-999) the count was off by 0.00 on average on the plain ones
# (100 of 100 exact) and 0.30 on the widened ones (77 exact); counting only the finder's
# candidates at least 0.5 sure, by 0.03 and 0.43; the table-colour blocks this replaced, by 0.28
# and 5.0 (a textured cloth is no one colour).
READ_BACK_MIN = 0.5
# The verdict on a reading dropped because a likelier one read the same tile and the picture
# shows one set, which holds each tile once (`one_of_each`).
REPEAT = "repeat"
# A back's half-width off the set's (the face-up tiles' median, else the likeliest back's) by more
# than this log ratio is something else (a sleeve, a box): every tile of a set has one size, and
# perspective changes it by a few per cent.
BACK_SIZE_SPREAD = 0.4


@dataclass(frozen=True)
class Coarse:
    """The image every stage reads, and how its pixels map back to the input's."""

    image: np.ndarray  # uint8 (H, W, 3) BGR
    factor: float  # input px * factor = coarse px
    # `image` averaged down for crops (`vision.crops.crops`), by quarter octave: built on demand.
    shrunk: dict[int, np.ndarray] = field(default_factory=dict, compare=False, repr=False)

    def to_input(self, points: np.ndarray) -> np.ndarray:
        """(..., 2) coarse px -> input px."""
        return (np.asarray(points, np.float32) / self.factor).astype(np.float32)

    def crops(self, frames: list[TileFrame]) -> np.ndarray:
        return crops(self.image, frames, self.shrunk)


def coarse(image_bgr: object, tile_length_px: float | None = None) -> Coarse:
    """The checked input at its bounded scale (`vision.scale.coarse_factor`)."""
    checked = checked_bgr(image_bgr)
    factor = coarse_factor(checked.shape, tile_length_px)
    return Coarse(shrink(checked, factor), factor)


@dataclass(frozen=True)
class Reading:
    frame: TileFrame  # coarse px
    top: int
    bottom: int
    confidence: float  # face-up probability times the pips' joint probability
    face_up: float = 1.0  # the face-up probability alone

    def is_tile(self) -> bool:
        """Whether the reader is sure enough this is a face-up tile (`MIN_FACE_UP`,
        `FACE_UP_WITH_SURE_PIPS`)."""
        if self.face_up >= MIN_FACE_UP:
            return True
        least_face_up, least_pips = FACE_UP_WITH_SURE_PIPS
        pips = self.confidence / max(self.face_up, 1e-9)
        return self.face_up >= least_face_up and pips >= least_pips and self.top + self.bottom > 0


def read_pips(readings: Readings, index: int, max_pip: int) -> tuple[int, int, float]:
    """The likeliest pips of each half within this set's 0..max_pip, and their joint probability."""
    top = readings.top[index, : max_pip + 1]
    bottom = readings.bottom[index, : max_pip + 1]
    a, b = int(top.argmax()), int(bottom.argmax())
    return a, b, float(top[a] * bottom[b])


def overlap(first: TileFrame, second: TileFrame) -> float:
    """Shared area over the smaller tile's area, 0..1."""
    apart = math.hypot(first.half_width, first.half_length) + math.hypot(second.half_width,
                                                                         second.half_length)
    if float(np.hypot(*(first.center - second.center))) >= apart:
        return 0.0  # circumcircles apart: most of a read's pairs need no polygon clip
    area, _ = cv2.intersectConvexConvex(first.corners(), second.corners())
    smaller = 4 * min(first.half_width * first.half_length, second.half_width * second.half_length)
    return float(area) / max(smaller, 1e-6)


def choose(readings: list[Reading], min_confidence: float) -> list[Reading]:
    """The most confident reading per place, of at least `min_confidence` and a tile (`Reading.is_tile`)."""
    kept: list[Reading] = []
    for reading in sorted(readings, key=lambda r: -r.confidence):
        if reading.confidence < min_confidence:
            break
        if not reading.is_tile():
            continue
        if any(overlap(reading.frame, k.frame) > MAX_OVERLAP for k in kept):
            continue
        kept.append(reading)
    return kept


def one_of_each(readings: list[Reading]) -> tuple[list[Reading], list[Reading]]:
    """`readings` (likeliest first) split into the first reading of each tile and the repeats:
    one set holds each tile once, so a second 3-4 is a misread of some other tile. On the widened
    tuning tables 10000-10299 both repeats were the less likely reading and misread."""
    seen: set[tuple[int, int]] = set()
    kept: list[Reading] = []
    repeats: list[Reading] = []
    for reading in readings:
        tile = (min(reading.top, reading.bottom), max(reading.top, reading.bottom))
        (repeats if tile in seen else kept).append(reading)
        seen.add(tile)
    return kept, repeats


def distinct(frames: list[TileFrame]) -> list[TileFrame]:
    """`frames` less those that repeat an earlier one (`SAME_PLACE`): the looks from a tile's
    candidates at two levels, or from both heats, lead to one place."""
    reach, size_log, axis = SAME_PLACE
    return [frames[i] for i in first_of_each_place(frames, reach=reach, size_log=size_log, axis_radians=axis)]


def _verdicts(picture: Coarse, frames: list[TileFrame], readings: Readings,
              index: np.ndarray) -> list[Verdict]:
    out = []
    for i in index.tolist():
        kind = int(readings.kind[i].argmax())
        out.append(Verdict(picture.to_input(frames[i].corners()), KINDS[kind], float(readings.kind[i, kind])))
    return out


@dataclass(frozen=True)
class Settled:
    """What the reader's looks made of some candidates (`settle`)."""

    frames: list[TileFrame]  # where the last look put each tile still seen (coarse px)
    readings: Readings  # the last look's answer for each of `frames`
    dropped: list[Verdict]  # a verdict on each frame dropped on the way (input px)
    backs: list[TileFrame]  # candidates the first look called backs (`READ_BACK_MIN`)


def settle(net: TileNet, picture: Coarse, frames: list[TileFrame], *, kind: int = FACE_UP) -> Settled:
    """Look at `frames` up to `1 + LOOKS` times, each time from where the last look put the tile,
    dropping frames the reader sees no tile of `kind` (face up, or a back) in.

    A frame the last look barely moved (`SETTLED`) keeps that look: another would see the same
    crop. Frames that moved onto the same place (`distinct`) are looked at once, from the
    likeliest of them."""
    readings = net.read(picture.crops(frames))
    kinds = readings.kind
    called_back = (kinds.argmax(axis=1) == BACK) & (kinds[:, BACK] >= READ_BACK_MIN)
    backs = [frames[i] for i in np.nonzero(called_back)[0].tolist()]
    verdicts: list[Verdict] = []
    kept_frames: list[TileFrame] = []
    kept: list[Readings] = []
    for _ in range(LOOKS):
        likelihood = readings.kind[:, kind]
        alive = likelihood >= FIRST_LOOK_MIN
        verdicts += _verdicts(picture, frames, readings, np.nonzero(~alive)[0])
        still = alive & (np.abs(readings.geometry).max(axis=1) < SETTLED)
        kept_frames += [frames[i] for i in np.nonzero(still)[0].tolist()]
        kept.append(readings.rows(still))
        going = np.nonzero(alive & ~still)[0]
        going = going[np.argsort(-likelihood[going], kind="stable")]
        frames = distinct([refined(frames[i], readings.geometry[i]) for i in going.tolist()])
        readings = net.read(picture.crops(frames))
    return Settled(kept_frames + frames, Readings.joined([*kept, readings]), verdicts, backs)


def face_up_readings(net: TileNet, picture: Coarse, candidates: list[TileFrame], *,
                     max_pip: int) -> tuple[list[Reading], list[Verdict], list[TileFrame]]:
    """Every candidate's last reading that still holds a face-up tile, a verdict on each
    candidate, and the candidates the reader's first look called backs (`Settled.backs`)."""
    if not candidates:
        return [], [], []
    settled = settle(net, picture, candidates)
    frames, readings = settled.frames, settled.readings
    verdicts = settled.dropped + _verdicts(picture, frames, readings, np.arange(len(frames)))
    out = []
    for i, frame in enumerate(frames):
        a, b, pips = read_pips(readings, i, max_pip)
        face_up = float(readings.kind[i, FACE_UP])
        out.append(Reading(frame, a, b, face_up * pips, face_up))
    return out, verdicts, settled.backs


def _of_length(frame: TileFrame, length: float | None) -> bool:
    """Whether `frame` is as long as a calibrated tile (`CALIBRATED_LENGTH`), or no length is known."""
    return length is None or CALIBRATED_LENGTH[0] < 2 * frame.half_length / length < CALIBRATED_LENGTH[1]


def back_readings(net: TileNet, picture: Coarse, candidates: list[TileFrame]
                  ) -> tuple[list[TileFrame], list[Verdict]]:
    """Where the reader, looking from `candidates` as it looks for face-up tiles (`settle`), sees
    a back at least `READ_BACK_MIN` sure, likeliest first; and a verdict on each candidate."""
    candidates = distinct(candidates)
    if not candidates:
        return [], []
    settled = settle(net, picture, candidates, kind=BACK)
    kinds = settled.readings.kind
    verdicts = settled.dropped + _verdicts(picture, settled.frames, settled.readings, np.arange(len(kinds)))
    backs = np.nonzero((kinds.argmax(axis=1) == BACK) & (kinds[:, BACK] >= READ_BACK_MIN))[0]
    backs = backs[np.argsort(-kinds[backs, BACK], kind="stable")]
    return [settled.frames[i] for i in backs.tolist()], verdicts


def face_down(backs: list[TileFrame], face_up: list[TileFrame], length: float | None) -> list[TileFrame]:
    """Of `backs` (likeliest first), those on no face-up tile and no likelier back, of the
    calibrated length when there is one, and of the set's size (`BACK_SIZE_SPREAD`)."""
    kept: list[TileFrame] = []
    for frame in backs:
        if _of_length(frame, length) and not any(overlap(frame, other) > MAX_OVERLAP
                                                 for other in [*face_up, *kept]):
            kept.append(frame)
    if not kept:
        return []
    sets_width = float(np.median([f.half_width for f in face_up])) if face_up else kept[0].half_width
    return [b for b in kept if abs(math.log(b.half_width / sets_width)) <= BACK_SIZE_SPREAD]


def checked_background(background: object, shape: tuple[int, ...]) -> np.ndarray:
    """The checked `background` (`vision.background`): a picture of the same camera, so of the
    input's `shape`."""
    checked = checked_bgr(background, name="background")
    if checked.shape[:2] != tuple(shape[:2]):
        raise VisionError(f"the background is {checked.shape[1]}x{checked.shape[0]} px but the image is "
                          f"{shape[1]}x{shape[0]}: it must be the same camera's picture of the empty table")
    return checked


def empty_table(background: object, picture: Coarse, shape: tuple[int, ...]) -> np.ndarray:
    """The checked `background` at `picture`'s scale."""
    return shrink(checked_background(background, shape), picture.factor)


def read_checked(
    image_bgr: object, *, max_pip: int, min_confidence: float, tile_length_px: float | None = None,
    background: object = None, one_set: bool = False,
) -> TableView:
    """`read_image` on a checked frame, at a bounded cost whatever its size."""
    net = shipped()
    checked = checked_bgr(image_bgr)
    picture = coarse(checked, tile_length_px)
    # Checked before the read, so that a wrong background costs no read.
    empty = None if background is None else empty_table(background, picture, checked.shape)
    length = None if tile_length_px is None else tile_length_px * picture.factor
    found = shipped_finder().find(picture.image, tile_length_px=length)
    candidates = [f.frame for f in found if f.face_up]
    readings, verdicts, called_backs = face_up_readings(net, picture, candidates, max_pip=max_pip)
    chosen = [r for r in choose(readings, min_confidence) if _of_length(r.frame, length)]
    if empty is not None:
        changes = Changes(picture.image, empty)
        shares = [changes.share(r.frame) for r in chosen]
        verdicts += [Verdict(picture.to_input(r.frame.corners()), UNCHANGED, share)
                     for r, share in zip(chosen, shares, strict=True) if share < MIN_CHANGED_SHARE]
        chosen = [r for r, share in zip(chosen, shares, strict=True) if share >= MIN_CHANGED_SHARE]
    if one_set:
        chosen, repeats = one_of_each(chosen)
        verdicts += [Verdict(picture.to_input(r.frame.corners()), REPEAT, r.confidence) for r in repeats]
    tiles = tuple(
        SeenTile(tile_name(r.top, r.bottom), r.top, r.bottom, picture.to_input(r.frame.corners()),
                 r.confidence)
        for r in chosen
    )
    frames = [r.frame for r in chosen]
    joins = find_joins(frames, [(t.a, t.b) for t in tiles])
    back_candidates = [f.frame for f in found if not f.face_up] + called_backs
    seen_backs, back_verdicts = back_readings(net, picture, back_candidates)
    backs = face_down(seen_backs, frames, length)
    return TableView(
        tiles=tiles,
        face_down_corners=tuple(picture.to_input(back.corners()) for back in backs),
        joins=tuple((tiles[j.first].tile, tiles[j.second].tile) for j in joins),
        join_halves=tuple((j.first, j.first_half, j.second, j.second_half) for j in joins),
        candidates=tuple(verdicts + back_verdicts),
    )
