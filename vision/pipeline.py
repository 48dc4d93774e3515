"""The stages of `read_image`, top to bottom; see `vision.read` for the public API.

1. `coarse`: the checked input brought to a bounded scale (`vision.scale`: at most a 1080p
   frame's pixels, and with a calibration a tile at most `WORK_TILE_LENGTH_PX` long). Every later
   stage sees this image only, so any input costs about what a 1080p frame does.
2. `vision.finder.TileFinder.find`: every place a tile may lie, face up or face down, from a
   network that looks at the whole image at a pyramid of scales, and once more closer when the
   tiles are small there. Recall first.
3. `first_look`: the tile reader (`vision.tilenet`) looks once at an upright crop of each
   candidate, whichever of the finder's heats found it: the finder's face up or face down is
   only a hint (a face-up tile's heat can split between the two, as a plain back's does), and
   the reader decides.
4. `settle`: from each frame the first look saw a face-up tile in, the reader looks again from
   where it says the tile really lies, up to `LOOKS` times; frames it finds no tile in go. The
   last look's answer (pips, calibrated confidence, outline) is the reading; one it is unsure of
   is read again from its crop seen four ways (`second_opinion`).
5. `choose`: the best reading per place; a reading overlapping a better one goes, and so does one
   the reader is not sure shows a tile at all, or one not the set's size (`of_the_sets_size`).
   Given a background, a reading where the picture has not changed since goes
   (`vision.background`); told the picture shows one set, a second reading of a tile goes
   (`one_of_each`). Before that, each sure candidate no reading covers is looked at once more
   turned a quarter and turned an eighth either way, at the set's size (`turned_frames`): the
   finder's axis is now and then across the tile, or well off it. Given a background, the
   regions that changed since and that no reading or back explains are looked at as the tiles
   that fill them (`changed_readings`, `vision.background.unexplained`).
6. `vision.layout.find_joins`, and the backs: the reader settles the same way from each frame
   its first look saw a back in (`back_readings`); where it settles on a back it is sure of
   (`READ_BACK_MIN`), on no face-up tile read and of the set's size, a back is counted
   (`face_down`).

Shapes: crops are uint8 (N, 64, 32, 3) (`vision.crops`); frames are `TileFrame`s in coarse px
until the end, where corners are mapped back to input px. Every threshold is a named constant
here or in the stage's module.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import cv2
import numpy as np

from vision.background import MIN_CHANGED_SHARE, UNCHANGED, Changes, unexplained
from vision.crops import crops, refined
from vision.errors import VisionError
from vision.finder import Found, shipped_finder
from vision.geometry import TILE_ASPECT, TileFrame, first_of_each_place, inside_any, turned
from vision.image import checked_bgr
from vision.layout import find_joins
from vision.scale import coarse_factor, shrink
from vision.tilenet import BACK, FACE_UP, KINDS, Readings, TileNet, shipped
from vision.types import SeenTile, TableView, Verdict, tile_name

# The reader's probability of a face-up tile (or, looking for backs, of a back) below which a
# frame is not looked at again.
FIRST_LOOK_MIN = 0.05
# The calibrated confidence (face-up probability times the pips' joint probability) below which
# a reading is left out: `read_image`'s default `min_confidence`. On widened tuning tables
# 10000-11199 (never the held-out 0-999), told one set, the readings between 0.5 and 0.7 were
# right 15 times and wrong 8, as calibrated, nearly all a webcam's blurred pips, and all wrong
# ones but one were misreads of a tile that is there. For the referee a misread is a false
# play, and a reading left out is read again from the next frame. From 0.5: tiles right
# 8992 -> 8977, false 17 -> 9 (docs/vision-design.md, "Why a reading must be 0.7 sure").
MIN_CONFIDENCE = 0.7
# The reader's probability of a face-up tile below which a reading is no tile, whatever its pips:
# a frame on a pattern's cell, two backs side by side or a card is taken for a tile at lower
# probabilities. Tuned on widened tuning tables 10000-10099 (never the held-out 0-999): 0.95
# kept precision 0.994 at recall 0.956 (0.99: 0.996 and 0.940; 0.5: 0.984 and 0.962). The pips'
# own doubt stays with `min_confidence` (a pale pip is a tile the reader is sure of, unsure only
# of its value).
MIN_FACE_UP = 0.95
# ... unless the reader is at least this sure of a face-up tile and this sure of its pips, and
# the pips are not all blank. A face in a colour the network saw least (blue, green, pink) lowers
# its face-up probability while its pips stay clear; a back has no pips to be sure of, and a
# pattern's cell or a card reads as blank or unsure. Chosen on widened tuning tables 10000-10299
# (2290 -> 2297 tiles right, 11 -> 11 false); on 10300-10599, not looked at when choosing:
# 2104 -> 2118 right, 17 -> 17 false, 219 -> 221 tables exact.
FACE_UP_WITH_SURE_PIPS = (0.7, 0.99)
# A face-up reading (after the last look) less sure than this of its tile and pips is read again
# from its crop turned half round and mirrored each way, and the four answers agreed
# (`second_opinion`): a tile reads the same every way, a misread seldom does. Shown each tile's
# true frame on widened tuning tables 10000-10299, agreeing the four views took the share read
# right and kept from 0.979 to 0.983 and the misreads kept from 6 to 3. In the pipeline, on tuning
# tables 10000-10299 and 10600-11199 (never the held-out 0-999): 2335 -> 2340 and 4456 -> 4466
# tiles right, 6 -> 5 and 6 -> 8 false, 254 -> 255 and 492 -> 496 tables exact; a 1080p photo
# frame 92 -> 96 ms. Reading every reading again gained nothing more (4466, 8, 496) for 13 % more time.
SECOND_OPINION_BELOW = 0.99
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
# A tile's half-width off the set's by more than this log ratio (1.5x) is something else: every
# tile of a set has one size, and perspective changes it by a few per cent. A back's is measured
# against the face-up tiles' median half-width, else the likeliest back's (a sleeve, a box as
# plain as a back is larger); a face-up reading's against the median of at least
# `SET_SIZE_QUORUM` readings (a frame round several tiles read as one large tile). Face-up, on
# widened tuning tables 10000-10299, 10300-10599 and 10600-11199 (never the held-out 0-999):
# false tiles 8 -> 6, 12 -> 7 and 13 -> 6, not one tile right lost, 16 more tables exact.
SET_SIZE_SPREAD = 0.4
SET_SIZE_QUORUM = 3  # face-up readings: fewer have no median to go by
# The verdict on a face-up reading dropped because it is not the set's size (`SET_SIZE_SPREAD`).
OFF_SIZE = "not the set's size"
# The finder's axis is now and then a quarter turn off: its frame lies across the tile, and the
# reader sees no tile in it (on widened tuning tables 10600-10899, 14 of the 34 tiles lost with a
# candidate inside them that the reader reads right at their true frames). So each candidate at
# least this sure whose centre no kept reading covers is looked at once more turned a quarter,
# at the set's size (the median of at least `SET_SIZE_QUORUM` readings kept): `turned_frames`.
# Told one set, on tuning tables 10000-10299 (never the held-out 0-999): 2361 -> 2370 tiles
# right, 3 -> 3 false; 10300-10599 and 10600-11199, not looked at when choosing 0.2: 2173 -> 2185
# and 4500 -> 4521 right, 3 -> 3 and 4 -> 5 false; CPU per read +3-8 % at the median. With no
# least score (and the off-size candidates also looked at resized), 2373 on 10000-10299 for 34 %
# more CPU.
TURNED_LOOK_MIN = 0.2
# The turns, in degrees from the candidate's axis, of the frames `turned_frames` looks at: a
# quarter, and an eighth either way. The finder's axis is also 20-45 degrees off now and then (of
# twelve tiles lost on widened tuning tables 10600-10716 that the reader reads right at their true
# frames, half had their candidates so turned), beyond the 20 degrees the reader was taught to
# pull a frame back from (`vision.train.harvest.POSITIVE_DEGREES`); with the candidate's own axis
# the four axes leave none more than 22.5 degrees off. Told one set, on tuning tables 10000-10299,
# 10300-10599 and 10600-11199 (never the held-out 0-999), against the quarter turn alone: 2370 ->
# 2376, 2185 -> 2196 and 4521 -> 4542 tiles right, 3 -> 3, 3 -> 3 and 5 -> 5 false, 272 -> 276,
# 256 -> 266 and 517 -> 533 tables exact; CPU per read +15 % at the median, +20 % on average (the
# real photos' 1080p frame: 95-96 -> 97 ms). Turns of 35 degrees read as many (2375, 2197, 4546);
# 30 and 60 as well (2376, 2199) for 12 % more CPU.
TURNED_DEGREES = (90.0, 45.0, -45.0)


@dataclass(frozen=True)
class Coarse:
    """The image every stage reads, and how its pixels map back to the input's."""

    image: np.ndarray  # uint8 (H, W, 3) BGR
    factor: float  # input px * factor = coarse px
    # `image` halved for crops of large frames (`vision.crops.crops`), by octave: built on demand.
    octaves: dict[int, np.ndarray] = field(default_factory=dict, compare=False, repr=False)

    def to_input(self, points: np.ndarray) -> np.ndarray:
        """(..., 2) coarse px -> input px."""
        return (np.asarray(points, np.float32) / self.factor).astype(np.float32)

    def crops(self, frames: list[TileFrame]) -> np.ndarray:
        return crops(self.image, frames, self.octaves)


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


def reading_at(frame: TileFrame, readings: Readings, index: int, max_pip: int) -> Reading:
    """The reading of `frame` from `readings`' answer at `index`: its likeliest pips within the
    set's 0..max_pip (`read_pips`), and how sure the reader is of a face-up tile and of them."""
    a, b, pips = read_pips(readings, index, max_pip)
    face_up = float(readings.kind[index, FACE_UP])
    return Reading(frame, a, b, face_up * pips, face_up)


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
class Looked:
    """Frames and the reader's answer for each, one to one."""

    frames: list[TileFrame]  # coarse px
    readings: Readings

    def holding(self, kind: int) -> Looked:
        """The frames the reader gives at least `FIRST_LOOK_MIN` of holding a tile of `kind`."""
        index = np.nonzero(self.readings.kind[:, kind] >= FIRST_LOOK_MIN)[0]
        return Looked([self.frames[i] for i in index.tolist()], self.readings.rows(index))

    def idle(self, picture: Coarse) -> list[Verdict]:
        """A verdict on each frame the reader sees neither a face-up tile nor a back in
        (`FIRST_LOOK_MIN`): no later stage looks at it again."""
        kinds = self.readings.kind
        idle = np.nonzero((kinds[:, FACE_UP] < FIRST_LOOK_MIN) & (kinds[:, BACK] < FIRST_LOOK_MIN))[0]
        return _verdicts(picture, self.frames, self.readings, idle)


def first_look(net: TileNet, picture: Coarse, candidates: list[TileFrame]) -> Looked:
    """The reader's first look at each of `candidates`, less repeats (`distinct`)."""
    frames = distinct(candidates)
    return Looked(frames, net.read(picture.crops(frames)))


@dataclass(frozen=True)
class Settled:
    """What the reader's looks made of some frames (`settle`)."""

    frames: list[TileFrame]  # where the last look put each tile still seen (coarse px)
    readings: Readings  # the last look's answer for each of `frames`
    dropped: list[Verdict]  # a verdict on each frame dropped on the way (input px)


def settle(net: TileNet, picture: Coarse, looked: Looked, *, kind: int = FACE_UP) -> Settled:
    """From `looked` (frames and a look at each), look again up to `LOOKS` times, each time from
    where the last look put the tile, dropping frames the reader sees no tile of `kind` (face
    up, or a back) in.

    A frame the last look barely moved (`SETTLED`) keeps that look: another would see the same
    crop. Frames that moved onto the same place (`distinct`) are looked at once, from the
    likeliest of them."""
    frames, readings = looked.frames, looked.readings
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
    return Settled(kept_frames + frames, Readings.joined([*kept, readings]), verdicts)


def second_opinion(net: TileNet, picture: Coarse, frames: list[TileFrame], readings: Readings, *,
                   max_pip: int) -> Readings:
    """`readings` of `frames`, each less than `SECOND_OPINION_BELOW` sure of a face-up tile and its
    pips read again from its crop seen four ways (`TileNet.read_mirrored`); its reading is the
    upright view's (a crop depends on its frame alone, `vision.crops.sampled_crop`)."""
    sure = np.array([reading_at(frame, readings, i, max_pip).confidence for i, frame in enumerate(frames)])
    doubt = np.nonzero(sure < SECOND_OPINION_BELOW)[0]
    if not len(doubt):
        return readings
    second = net.read_mirrored(picture.crops([frames[i] for i in doubt.tolist()]), readings.rows(doubt))
    agreed = {name: getattr(readings, name).copy() for name in ("kind", "top", "bottom")}
    for name, values in agreed.items():
        values[doubt] = getattr(second, name)
    return Readings(agreed["kind"], agreed["top"], agreed["bottom"], readings.geometry)


def face_up_readings(net: TileNet, picture: Coarse, looked: Looked, *,
                     max_pip: int) -> tuple[list[Reading], list[Verdict]]:
    """From the frames of `looked` that may hold a face-up tile (`Looked.holding`), every last
    reading that still holds one, and a verdict on each frame looked at on the way."""
    settled = settle(net, picture, looked.holding(FACE_UP))
    frames, readings = settled.frames, settled.readings
    readings = second_opinion(net, picture, frames, readings, max_pip=max_pip)
    verdicts = settled.dropped + _verdicts(picture, frames, readings, np.arange(len(frames)))
    return [reading_at(frame, readings, i, max_pip) for i, frame in enumerate(frames)], verdicts


def turned_frames(found: list[Found], readings: list[Reading]) -> list[TileFrame]:
    """The frames of the candidates in `found` at least `TURNED_LOOK_MIN` sure whose centres no
    reading covers, each turned about its centre by each of `TURNED_DEGREES` and given the median
    size of `readings` (none with fewer than `SET_SIZE_QUORUM`)."""
    sure = [f.frame for f in found if f.score >= TURNED_LOOK_MIN]
    size = sets_size(readings)
    if size is None or not sure:
        return []
    half_width, half_length = size
    covered = inside_any(np.array([frame.center for frame in sure], np.float32), [r.frame for r in readings])
    return [TileFrame(frame.center, turned(frame.across, math.radians(degrees)), half_width, half_length)
            for frame, explained in zip(sure, covered, strict=True) if not explained
            for degrees in TURNED_DEGREES]


def turned_readings(net: TileNet, picture: Coarse, found: list[Found], readings: list[Reading], *,
                    max_pip: int) -> tuple[list[Reading], list[Verdict]]:
    """The face-up readings the reader settles on from `turned_frames`, less blank ones (0-0),
    and a verdict on each frame looked at on the way. A turned frame is a guess where the finder
    saw no tile on this axis, and a blank face there has no pip to tell it from a plain patch of
    cloth or a card: on the tuning tables, 3 of the 4 tiles it made up were 0-0, and 2 of the 44
    it found."""
    frames = turned_frames(found, readings)
    if not frames:
        return [], []
    more, verdicts = face_up_readings(net, picture, first_look(net, picture, frames), max_pip=max_pip)
    return [r for r in more if r.top or r.bottom], verdicts


def changed_readings(net: TileNet, picture: Coarse, changes: Changes, readings: list[Reading],
                     backs: list[TileFrame], length: float | None, *,
                     max_pip: int) -> tuple[list[Reading], list[Verdict]]:
    """The face-up readings the reader settles on from the regions that changed since the empty
    table and that neither `readings` nor `backs` explain (`vision.background.unexplained`), and
    a verdict on each frame looked at on the way. The set's size is the readings' (`sets_size`),
    else the calibrated tile's."""
    size = sets_size(readings)
    if size is None and length is not None:
        size = (length / (2 * TILE_ASPECT), length / 2)
    frames = unexplained(changes, [r.frame for r in readings] + backs, size)
    if not frames:
        return [], []
    return face_up_readings(net, picture, first_look(net, picture, frames), max_pip=max_pip)


def _of_length(frame: TileFrame, length: float | None) -> bool:
    """Whether `frame` is as long as a calibrated tile (`CALIBRATED_LENGTH`), or no length is known."""
    return length is None or CALIBRATED_LENGTH[0] < 2 * frame.half_length / length < CALIBRATED_LENGTH[1]


def back_readings(net: TileNet, picture: Coarse, looked: Looked) -> tuple[list[TileFrame], list[Verdict]]:
    """Where the reader, settling from the frames of `looked` that may hold a back (`settle`),
    sees a back at least `READ_BACK_MIN` sure, likeliest first; and a verdict on each frame
    looked at on the way."""
    settled = settle(net, picture, looked.holding(BACK), kind=BACK)
    kinds = settled.readings.kind
    verdicts = settled.dropped + _verdicts(picture, settled.frames, settled.readings, np.arange(len(kinds)))
    backs = np.nonzero((kinds.argmax(axis=1) == BACK) & (kinds[:, BACK] >= READ_BACK_MIN))[0]
    backs = backs[np.argsort(-kinds[backs, BACK], kind="stable")]
    return [settled.frames[i] for i in backs.tolist()], verdicts


def face_down(backs: list[TileFrame], face_up: list[TileFrame], length: float | None) -> list[TileFrame]:
    """Of `backs` (likeliest first), those on no face-up tile and no likelier back, of the
    calibrated length when there is one, and of the set's size (`SET_SIZE_SPREAD`)."""
    kept: list[TileFrame] = []
    for frame in backs:
        if _of_length(frame, length) and not any(overlap(frame, other) > MAX_OVERLAP
                                                 for other in [*face_up, *kept]):
            kept.append(frame)
    if not kept:
        return []
    sets_width = float(np.median([f.half_width for f in face_up])) if face_up else kept[0].half_width
    return [b for b in kept if _of_width(b, sets_width)]


def _of_width(frame: TileFrame, sets_width: float) -> bool:
    """Whether `frame`'s half-width is within `SET_SIZE_SPREAD` of the set's."""
    return abs(math.log(frame.half_width / sets_width)) <= SET_SIZE_SPREAD


def sets_size(readings: list[Reading]) -> tuple[float, float] | None:
    """The set's half-width and half-length: the medians of `readings`' frames (every tile of a
    set has one size), or None when fewer than `SET_SIZE_QUORUM` give no median to go by."""
    if len(readings) < SET_SIZE_QUORUM:
        return None
    return (float(np.median([r.frame.half_width for r in readings])),
            float(np.median([r.frame.half_length for r in readings])))


def of_the_sets_size(readings: list[Reading]) -> tuple[list[Reading], list[Reading]]:
    """`readings` split into those of the set's size and those off it by more than
    `SET_SIZE_SPREAD` from their median half-width; all are of the set's size when fewer than
    `SET_SIZE_QUORUM`."""
    size = sets_size(readings)
    if size is None:
        return readings, []
    of_size = [_of_width(r.frame, size[0]) for r in readings]
    return ([r for r, ok in zip(readings, of_size, strict=True) if ok],
            [r for r, ok in zip(readings, of_size, strict=True) if not ok])


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
    looked = first_look(net, picture, [f.frame for f in found])
    readings, verdicts = face_up_readings(net, picture, looked, max_pip=max_pip)
    verdicts = looked.idle(picture) + verdicts
    def chosen_of(candidates: list[Reading]) -> list[Reading]:
        return [r for r in choose(candidates, min_confidence) if _of_length(r.frame, length)]

    chosen = chosen_of(readings)
    more, more_verdicts = turned_readings(net, picture, found, chosen, max_pip=max_pip)
    if more:
        readings += more
        chosen = chosen_of(readings)
    verdicts += more_verdicts
    seen_backs, back_verdicts = back_readings(net, picture, looked)
    changes = None if empty is None else Changes(picture.image, empty)
    if changes is not None:
        more, more_verdicts = changed_readings(net, picture, changes, chosen, seen_backs, length,
                                               max_pip=max_pip)
        if more:
            readings += more
            chosen = chosen_of(readings)
        verdicts += more_verdicts
    chosen, off_size = of_the_sets_size(chosen)
    verdicts += [Verdict(picture.to_input(r.frame.corners()), OFF_SIZE, r.confidence) for r in off_size]
    if changes is not None:
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
    backs = face_down(seen_backs, frames, length)
    return joined_view(tiles, frames, tuple(picture.to_input(back.corners()) for back in backs),
                       tuple(verdicts + back_verdicts))


def joined_view(tiles: tuple[SeenTile, ...], frames: list[TileFrame],
                face_down_corners: tuple[np.ndarray, ...], candidates: tuple[Verdict, ...]) -> TableView:
    """The view of `tiles` (`frames[i]` is tile i's frame, in any one scale: joins are judged in
    half-widths) with their joins (`vision.layout.find_joins`), backs and candidates."""
    joins = find_joins(frames, [(t.a, t.b) for t in tiles])
    return TableView(
        tiles=tiles,
        face_down_corners=face_down_corners,
        joins=tuple((tiles[j.first].tile, tiles[j.second].tile) for j in joins),
        join_halves=tuple((j.first, j.first_half, j.second, j.second_half) for j in joins),
        candidates=candidates,
    )
