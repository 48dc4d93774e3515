"""The stages of `read_image`, top to bottom; see `vision.read` for the public API.

1. `vision.proposals.work_image`: the input at its working scale (bounded pixels, pips of
   `WORK_PIP_PX`), its markers and pip size.
2. `vision.proposals.propose`: a frame around every divider-like bar. Geometry only: recall first.
3. The gate (`vision.tilenet.TileNet.gate`, a tenth of the reader's cost) drops the crops that
   plainly hold no tile; most proposals are pip rows, seams, grain and clutter.
4. `settle`: the reader looks at each remaining crop, says whether a face-up tile is there and
   where exactly, and looks again from there, `LOOKS` times; frames it finds no tile in go. The
   last look's answer (pips, calibrated confidence, outline) is the reading.
5. `of_the_sets_size`: readings far from the set's size are looked at again at that size, and
   `proposals_at_the_sets_size`: gated proposals far from it (rows of pips where the divider
   hardly shows) are redrawn at that size and looked at.
6. `choose`: the best reading per place; a reading overlapping a better one goes.
7. `at_the_sets_scale`: when the tiles read say the pip estimate set the wrong working scale
   (or none is read), steps 1-6 run again at the scale they give and the better reading stays.
8. `vision.layout.find_joins` and `vision.facedown.find_face_down`; a block the network is sure
   holds no tile is no back.

Shapes: crops are uint8 (N, 64, 32, 3) (`vision.crops`), frames `TileFrame`s in working px until
the end, where corners are mapped back to input px. Every threshold is a named constant here or
in the stage's module.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from vision.crops import crops, refined
from vision.facedown import find_face_down
from vision.geometry import TileFrame, frame_from_corners, inside_any
from vision.layout import find_joins
from vision.marks import SCALE_DOUBT
from vision.proposals import PIP_PER_HALF_WIDTH, WorkImage, distinct, propose, redrawn, with_pip, work_image
from vision.tilenet import FACE_UP, GATE_MAX_NOT_A_TILE, KINDS, NOT_A_TILE, Readings, TileNet, shipped
from vision.types import SeenTile, TableView, Verdict, tile_name

FIRST_LOOK_MIN = 0.05  # face-up probability below which a proposal is not looked at again
# The network's probability of a face-up tile below which a reading is no tile, whatever its pips.
# Its probabilities are calibrated on crops of real tiles and of what the proposals usually frame;
# a frame on a pattern's cell, two backs side by side or a card is rarer in training and taken
# for a tile too readily. On 100 widened tuning tables (seeds 10000-10099) this bar cut the false
# tiles from 91 to 17 for 0.7 % of recall; the pips' own doubt stays with `min_confidence` (a
# pale pip read at 0.63 is a tile the network is sure of, unsure only of its value).
MIN_FACE_UP = 0.99
MAX_OVERLAP = 0.2  # share of the smaller tile two readings may cover of each other
LOOKS = 3  # refinements after the first look (each a batch through the network)
# A look whose answer moves the frame less than this (its centre by this share of the half-width,
# its sides by this log ratio, its axis by this many radians) has settled: looking again from a
# crop within a pixel of this one would give the same answer.
SETTLED = 0.02
CALIBRATED_LENGTH = (0.85, 1.15)  # a reading's length over the calibrated tile length, outside: not a tile
# A face-down block goes only when the network is this sure it holds no tile: backs pushed
# together in a boneyard are split into boxes that sit a little off each back, and the network
# is less sure of those than of a lone back.
NOT_A_BACK = 0.9
SIZE_VOTE_MIN = 0.5  # readings this confident set the set's size ...
SIZE_SPREAD = 0.15  # ... and one whose half-width is off it by more (log ratio) is looked at again
SURE_VOTES = 3  # confident readings that settle the scale; with fewer, other scales are read too


@dataclass(frozen=True)
class Reading:
    frame: TileFrame  # working px
    top: int
    bottom: int
    confidence: float  # face-up probability times the pips' joint probability
    face_up: float = 1.0  # the face-up probability alone


def read_pips(readings: Readings, index: int, max_pip: int) -> tuple[int, int, float]:
    """The likeliest pips of each half within this set's 0..max_pip, and their joint probability."""
    top = readings.top[index, : max_pip + 1]
    bottom = readings.bottom[index, : max_pip + 1]
    a, b = int(top.argmax()), int(bottom.argmax())
    return a, b, float(top[a] * bottom[b])


def overlap(first: TileFrame, second: TileFrame) -> float:
    """Shared area over the smaller tile's area, 0..1."""
    area, _ = cv2.intersectConvexConvex(first.corners(), second.corners())
    smaller = 4 * min(first.half_width * first.half_length, second.half_width * second.half_length)
    return float(area) / max(smaller, 1e-6)


def choose(readings: list[Reading], min_confidence: float) -> list[Reading]:
    """The most confident reading per place, of at least `min_confidence` and `MIN_FACE_UP`."""
    kept: list[Reading] = []
    for reading in sorted(readings, key=lambda r: -r.confidence):
        if reading.confidence < min_confidence:
            break
        if reading.face_up < MIN_FACE_UP:
            continue
        if any(overlap(reading.frame, k.frame) > MAX_OVERLAP for k in kept):
            continue
        kept.append(reading)
    return kept


def _verdicts(
    work: WorkImage, frames: list[TileFrame], readings: Readings, index: np.ndarray
) -> list[Verdict]:
    out = []
    for i in index.tolist():
        kind = int(readings.kind[i].argmax())
        out.append(Verdict(work.to_input(frames[i].corners()), KINDS[kind], float(readings.kind[i, kind])))
    return out


def settle(
    net: TileNet, work: WorkImage, frames: list[TileFrame], batch: np.ndarray | None = None
) -> tuple[list[TileFrame], Readings, list[Verdict]]:
    """Look at `frames` up to `1 + LOOKS` times, each time from where the last look put the tile,
    dropping frames the network sees no face-up tile in. The frames of the last look, its
    readings, and a verdict on each frame dropped on the way.

    A frame the last look barely moved (`SETTLED`) keeps that look: another would see the same
    crop. Frames that moved onto the same place (`vision.proposals.distinct`: the pip rows and the
    divider of one tile all lead to it) are looked at once, from the likeliest of them."""
    readings = net.read(crops(work.image, frames, work.shrunk) if batch is None else batch)
    verdicts: list[Verdict] = []
    kept_frames: list[TileFrame] = []
    kept: list[Readings] = []
    for _ in range(LOOKS):
        face_up = readings.kind[:, FACE_UP]
        alive = face_up >= FIRST_LOOK_MIN
        verdicts += _verdicts(work, frames, readings, np.nonzero(~alive)[0])
        still = alive & (np.abs(readings.geometry).max(axis=1) < SETTLED)
        kept_frames += [frames[i] for i in np.nonzero(still)[0].tolist()]
        kept.append(readings.rows(still))
        going = np.nonzero(alive & ~still)[0]
        going = going[np.argsort(-face_up[going], kind="stable")]
        moved = [refined(frames[i], readings.geometry[i]) for i in going.tolist()]
        frames = distinct(moved, by_size=False)
        readings = net.read(crops(work.image, frames, work.shrunk))
    return kept_frames + frames, Readings.joined([*kept, readings]), verdicts


def _readings(frames: list[TileFrame], readings: Readings, max_pip: int) -> list[Reading]:
    out = []
    for i, frame in enumerate(frames):
        a, b, pips = read_pips(readings, i, max_pip)
        face_up = float(readings.kind[i, FACE_UP])
        out.append(Reading(frame, a, b, face_up * pips, face_up))
    return out


def sets_size(found: list[Reading]) -> tuple[float, float] | None:
    """The set's half-width and half-length: the median of the confident readings' (at least two).

    Every tile of a set has one size (perspective changes it by a few per cent)."""
    sizes = [(r.frame.half_width, r.frame.half_length) for r in found if r.confidence >= SIZE_VOTE_MIN]
    if len(sizes) < 2:
        return None
    half_width, half_length = (float(v) for v in np.median(np.array(sizes), axis=0))
    return half_width, half_length


def off_size(frame: TileFrame, half_width: float) -> bool:
    """Whether `frame`'s half-width is off the set's `half_width` by more than `SIZE_SPREAD`."""
    return abs(math.log(frame.half_width / half_width)) > SIZE_SPREAD


def of_the_sets_size(net: TileNet, work: WorkImage, found: list[Reading], max_pip: int) -> list[Reading]:
    """`found`, with readings far from the set's size (`sets_size`) looked at again from a frame
    of that size: a frame that settled much smaller or larger began from a bar that was no
    divider of this set's proportions, and the crop around it showed too little or too much of
    the tile for the network to find its ends."""
    size = sets_size(found)
    if size is None:
        return found
    odd = [i for i, r in enumerate(found) if off_size(r.frame, size[0])]
    if not odd:
        return found
    frames = [TileFrame(found[i].frame.center, found[i].frame.across, *size) for i in odd]
    frames, readings, _ = settle(net, work, frames)
    again = set(odd)
    kept = [r for i, r in enumerate(found) if i not in again]
    return kept + _readings(frames, readings, max_pip)


def proposals_at_the_sets_size(
    net: TileNet, work: WorkImage, proposals: list[TileFrame], found: list[Reading], max_pip: int
) -> tuple[list[Reading], list[Verdict]]:
    """Readings from gated proposals far from the set's size (`sets_size`), redrawn at that size.

    Where a set's divider hardly shows (a blurred, noisy webcam; a divider near the face's colour)
    the only bars on a tile are rows of its pips, shorter than a divider: their frames are a
    fraction of the tile, and the network, shown a crop of pips alone, cannot find the tile's
    ends from it. Such a frame is redrawn at the set's size, along its bar and across it (a row of
    pips may run either way), centred on the bar and with the bar in either half
    (`vision.proposals.redrawn`), and gated and looked at like any proposal.

    Only readings `choose` would keep (`MIN_FACE_UP`) give the size: two doubtful readings on a
    page of print would otherwise set a size at which its lines read as tiles. With fewer than
    two, nothing is redrawn (the pip estimate's size stands in badly: print reads as 6-6 at it).
    Bars on a tile already read (its own pip rows) are left out, and so are the frames the gate
    saw no tile in at their own size (a row of a tile's pips is seen as part of a tile; redrawing
    every proposal read 0.82 of the tiles of 100 widened tables against 0.78, for 2.2 times the
    reading's CPU)."""
    found = [r for r in found if r.face_up >= MIN_FACE_UP]
    size = sets_size(found)
    if size is None or not proposals:
        return [], []
    read = [r.frame for r in found if r.confidence >= SIZE_VOTE_MIN]
    on_a_read_tile = inside_any(np.array([p.center for p in proposals], np.float32), read)
    frames: list[TileFrame] = []
    for proposal, on_read in zip(proposals, on_a_read_tile.tolist(), strict=True):
        if not on_read and off_size(proposal, size[0]):
            frames += redrawn(proposal, *size)
    frames = distinct(frames, by_size=False)
    batch, through, verdicts = gated(net, work, frames)
    readings, more_verdicts = looks(net, work, frames, batch, through, max_pip)
    return readings, verdicts + more_verdicts


def gated(
    net: TileNet, work: WorkImage, frames: list[TileFrame]
) -> tuple[np.ndarray, np.ndarray, list[Verdict]]:
    """The crops of `frames`, which of them the gate passes, and a verdict on each it does not."""
    batch = crops(work.image, frames, work.shrunk)
    not_a_tile = net.gate(batch)
    through = not_a_tile < GATE_MAX_NOT_A_TILE
    verdicts = [
        Verdict(work.to_input(f.corners()), KINDS[NOT_A_TILE], float(p))
        for f, p, ok in zip(frames, not_a_tile, through, strict=True)
        if not ok
    ]
    return batch, through, verdicts


def looks(
    net: TileNet,
    work: WorkImage,
    frames: list[TileFrame],
    batch: np.ndarray,
    through: np.ndarray,
    max_pip: int,
) -> tuple[list[Reading], list[Verdict]]:
    """The looks (`settle`) from the frames the gate passed: the last readings, a verdict on each."""
    frames = [f for f, ok in zip(frames, through, strict=True) if ok]
    if not frames:
        return [], []
    frames, readings, dropped = settle(net, work, frames, batch[through])
    verdicts = dropped + _verdicts(work, frames, readings, np.arange(len(frames)))
    return _readings(frames, readings, max_pip), verdicts


def face_up_readings(net: TileNet, work: WorkImage, *, max_pip: int) -> tuple[list[Reading], list[Verdict]]:
    """Every proposal's last reading that still holds a face-up tile, and a verdict on each."""
    proposals = propose(work)
    batch, through, verdicts = gated(net, work, proposals)
    found, more = looks(net, work, proposals, batch, through, max_pip)
    found = of_the_sets_size(net, work, found, max_pip)
    passed = [p for p, ok in zip(proposals, through.tolist(), strict=True) if ok]
    resized, resized_verdicts = proposals_at_the_sets_size(net, work, passed, found, max_pip)
    return found + resized, verdicts + more + resized_verdicts


def _read_at(
    net: TileNet, work: WorkImage, *, max_pip: int, min_confidence: float
) -> tuple[WorkImage, list[Reading], list[Verdict]]:
    readings, verdicts = face_up_readings(net, work, max_pip=max_pip)
    return work, choose(readings, min_confidence), verdicts


def _votes(chosen: list[Reading]) -> int:
    return sum(r.confidence >= SIZE_VOTE_MIN for r in chosen)


def at_the_sets_scale(
    net: TileNet, work: WorkImage, *, max_pip: int, min_confidence: float
) -> tuple[WorkImage, list[Reading], list[Verdict]]:
    """The reading at the scale the tiles themselves give, not only the pip estimate's.

    The pip size is estimated from round marks, and a patterned cloth (gingham squares, a floral
    print's dots) can outvote the pips: the image is then shrunk until its dividers vanish, or not
    enough for them to show. The tiles read say how large pips really are (`PIP_PER_HALF_WIDTH`
    of a tile's half-width): when they disagree with the estimate by more than `SCALE_DOUBT`,
    the image is read again at the scale they give. When fewer than `SURE_VOTES` tiles are read
    confidently (one or two readings may be a cell of the pattern read as a tile), it is read
    again at the estimate's other guesses (`WorkImage.pip_alternatives`) and at twice and half
    the estimate, until one reads `SURE_VOTES`. The reading with the most confident tiles wins; a
    tie keeps the earlier."""
    best = _read_at(net, work, max_pip=max_pip, min_confidence=min_confidence)
    coarse_pip = work.pip / work.scale
    confident = [r for r in best[1] if r.confidence >= SIZE_VOTE_MIN]
    tried = [coarse_pip]

    def read_at(pip: float) -> None:
        nonlocal best
        if any(abs(math.log(pip / other)) < math.log(SCALE_DOUBT) / 2 for other in tried):
            return  # as good as read at that scale already
        tried.append(pip)
        other = _read_at(net, with_pip(work, pip), max_pip=max_pip, min_confidence=min_confidence)
        if _votes(other[1]) > _votes(best[1]):
            best = other

    if confident:
        implied = PIP_PER_HALF_WIDTH * float(np.median([r.frame.half_width for r in confident])) / work.scale
        if abs(math.log(implied / coarse_pip)) > math.log(SCALE_DOUBT):
            read_at(implied)
    if len(confident) < SURE_VOTES:
        for pip in [*work.pip_alternatives, coarse_pip * 2, coarse_pip / 2]:
            if _votes(best[1]) >= SURE_VOTES:
                break  # as settled as a first reading of that many tiles
            read_at(pip)
    return best


def confirmed_backs(net: TileNet, work: WorkImage, corners: list[np.ndarray]) -> list[np.ndarray]:
    """The face-down blocks (coarse px) the network does not see as no tile at all."""
    if not corners:
        return []
    frames = [frame_from_corners(c * work.scale + work.margin) for c in corners]
    readings = net.read(crops(work.image, frames, work.shrunk))
    return [c for c, p in zip(corners, readings.kind[:, NOT_A_TILE], strict=True) if p < NOT_A_BACK]


def read_checked(
    image_bgr: object, *, max_pip: int, min_confidence: float, tile_length_px: float | None = None
) -> TableView:
    """`read_image` on a checked frame, at a bounded cost whatever its size."""
    net = shipped()
    work = work_image(image_bgr, tile_length_px)
    read_at = _read_at if tile_length_px is not None else at_the_sets_scale  # calibrated: scale known
    work, chosen, verdicts = read_at(net, work, max_pip=max_pip, min_confidence=min_confidence)
    if tile_length_px is not None:
        length = tile_length_px * work.coarse_factor * work.scale
        chosen = [
            r
            for r in chosen
            if CALIBRATED_LENGTH[0] < 2 * r.frame.half_length / length < CALIBRATED_LENGTH[1]
        ]
    tiles = tuple(
        SeenTile(tile_name(r.top, r.bottom), r.top, r.bottom, work.to_input(r.frame.corners()), r.confidence)
        for r in chosen
    )
    frames = [r.frame for r in chosen]
    joins = find_joins(frames, [t.is_double for t in tiles])
    # Backs are found at the coarse scale: with few pips in view the pip size, and so the working
    # scale, says nothing about the size of a back.
    coarse_frames = [
        TileFrame(
            (f.center - work.margin) / work.scale,
            f.across,
            f.half_width / work.scale,
            f.half_length / work.scale,
        )
        for f in frames
    ]
    coarse_length = None if tile_length_px is None else tile_length_px * work.coarse_factor
    backs = find_face_down(work.coarse, coarse_frames, markers=work.markers, tile_length_px=coarse_length)
    backs = confirmed_backs(net, work, backs)
    return TableView(
        tiles=tiles,
        face_down_corners=tuple((c / work.coarse_factor).astype(np.float32) for c in backs),
        joins=tuple((tiles[j.first].tile, tiles[j.second].tile) for j in joins),
        join_halves=tuple((j.first, j.first_half, j.second, j.second_half) for j in joins),
        candidates=tuple(verdicts),
    )
