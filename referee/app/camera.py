"""The camera as a table device: frames → vision (`vision.read`) → tracker → table inputs.

`CameraDevice` runs a frame source (camera index, video file, image folder, RTSP stream) on its own
thread for `domino-referee run`. `play_through_vision` is the demo's camera: the synthetic
renderer films the engine players' moves and the same tracker reads them. The tracker only commits
what stays put once hands have left, so a hand sweeping over the table is never a play.
"""

from __future__ import annotations

import threading
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Protocol

import numpy as np

from referee.app.config import Config
from referee.app.health import Health
from referee.app.ports import Feed, Input, InputKind
from referee.app.service import TableService
from referee.app.supervisor import Backoff, Policy
from referee.errors import DominoError
from referee.rules import find_rules
from vision.errors import VisionError
from vision.onnx import chosen_runtime
from vision.rectify import checked_calibration
from vision.tracker import Tracker
from vision.types import BoneyardChanged, Observation, TableView, TilePlaced, TileRemoved, TilesRevealed

# A missing camera is tried again after 1 s, then 2, 4 … up to 30 s.
CAMERA_BACKOFF = Backoff(first=1.0)


class CameraSettingError(DominoError, ValueError):
    """The [camera] section names something the camera device cannot use."""


def observation_input(observation: Observation, at: float) -> Input | None:
    """A tracker observation as a service input (None for what the referee need not act on)."""
    if isinstance(observation, TilePlaced):
        return Input(InputKind.PLACED, {"tile": str(observation.tile), "end": observation.end}, at, "camera")
    if isinstance(observation, TileRemoved):
        return Input(InputKind.REMOVED, {"tile": str(observation.tile)}, at, "camera")
    if isinstance(observation, BoneyardChanged):
        return Input(InputKind.BONEYARD, {"count": int(observation.count)}, at, "camera")
    if isinstance(observation, TilesRevealed):
        tiles = [str(tile) for tile in observation.tiles]
        return Input(InputKind.REVEALED, {"zone": str(observation.zone), "tiles": tiles}, at, "camera")
    return None


def quiet_reader() -> Callable[..., TableView]:
    """`vision.read.read_image` with numpy's warnings about empty regions kept off the console,
    told that the picture shows one set (`one_set`): a game is played with one set, so a second
    reading of a tile already read is a misread of some other tile, and only the likelier of the
    two is kept."""
    from vision.read import read_image

    def read(frame: np.ndarray, **options: Any) -> TableView:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            return read_image(frame, one_set=True, **options)
    return read


class CameraDevice:
    """Frames from `[camera] source` through the tracker into the table: a supervised `Worker`.

    A camera that is missing or stops giving frames is one clear line in the `Health` (``camera
    failed: cannot open camera index 7: …``; the health's reminders say it again while it lasts),
    never a traceback, and it is opened again with backoff until it returns; the tracker keeps
    what it knew of the table meanwhile. A video file or image folder that ends just ends.
    """

    name = "camera"
    part = "camera"
    policy = Policy.RESTART

    def __init__(self, source_spec: str, fps: float, now: Callable[[], float],
                 on_note: Callable[[str], None] | None = None, calibration_file: str | None = None, *,
                 health: Health | None = None, backoff: Backoff = CAMERA_BACKOFF) -> None:
        self.source_spec = source_spec
        self.calibration_file = calibration_file
        self.fps = fps
        self.now = now
        self.on_note = on_note
        self.health = health or Health()
        self.backoff = backoff
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._tracker: Any = None
        self.frames = 0
        # Called with (image, tracker) after every frame is read (the web page's newest frame).
        self.on_frame: Callable[[Any, Any], object] | None = None
        self.opened = 0   # how many times the source was opened (a return counts again)
        self._size_seen: tuple[int, int] | None = None  # the frames' size last judged (`_wrong_size`)
        self._size_wrong = False
        # What runs the networks (`vision.onnx`), said in the health when the source opens, so that
        # a table manager sees whether the `fast` extra is in use. A DOMINO_VISION_RUNTIME that
        # cannot be used raises VisionError here (`open_camera` makes it a CameraSettingError).
        self.runtime = chosen_runtime()

    @property
    def live(self) -> bool:
        """A camera or a stream (it should never end), not a file or a folder."""
        spec = self.source_spec.strip()
        return spec.isdigit() or "://" in spec

    # Device (an unsupervised thread, as before)
    def start(self, feed: Feed) -> None:
        self._thread = threading.Thread(target=self.run, args=(feed, self._stop), name="camera", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(5)

    # Worker
    def doing(self) -> str:
        return f"reading frame {self.frames + 1} of {self.source_spec!r}"

    def run(self, feed: Feed, stop: threading.Event) -> None:
        import cv2

        from vision.synth.source import open_source

        cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_ERROR)  # our own line says it
        failures = 0
        while not stop.is_set():
            try:
                source = open_source(self.source_spec, fps=self.fps)
            except VisionError as error:
                failures += 1
                self.health.failed(self.part, f"{error} (trying again)")
                if stop.wait(self.backoff.delay(failures)):
                    return
                continue
            self.opened += 1
            self.health.ok(self.part, f"reading {self.source_spec!r} (networks run by {self.runtime})")
            try:
                self._frames(source, feed, stop)
            finally:
                source.close()
            if stop.is_set():
                return
            if not self.live:
                self.health.ok(self.part, f"{self.source_spec!r} ended")
                return
            failures += 1
            self.health.failed(self.part, f"camera {self.source_spec!r} stopped giving frames (reopening)")
            if stop.wait(self.backoff.delay(failures)):
                return

    def _frames(self, source: Any, feed: Feed, stop: threading.Event) -> None:
        if self._tracker is None:
            calibration = None
            if self.calibration_file:
                from vision.calibration import Calibration
                calibration = Calibration.load(self.calibration_file)
            self._tracker = Tracker(quiet_reader(), calibration=calibration)
        tracker = self._tracker
        self._size_seen = None  # judged anew at each opening, which reported the camera ok
        for _, frame in source:
            if stop.is_set():
                break
            self.frames += 1
            if self._wrong_size(tracker.calibration, frame):
                continue
            at = self.now()
            try:
                observations = tracker.feed(at, frame)
            except Exception as error:  # an unreadable frame is skipped, never fatal
                if self.on_note is not None:
                    self.on_note(f"camera frame {self.frames} unreadable: {error}")
                continue
            if self.on_frame is not None:
                self.on_frame(frame, tracker)
            for observation in observations:
                inp = observation_input(observation, at)
                if inp is not None:
                    feed(inp)

    def _wrong_size(self, calibration: Any, frame: np.ndarray) -> bool:
        """Whether `calibration` cannot be used on the camera's `frame` (made for pictures of
        another size: `vision.rectify.checked_calibration`, the reader's own check): then no frame
        can be read through it, and the health says so once (its reminders repeat it) rather than
        a note on every frame. Judged again when the frames' size changes."""
        height, width = frame.shape[:2]
        if calibration is None or (width, height) == self._size_seen:
            return self._size_wrong
        self._size_seen = (width, height)
        try:
            checked_calibration(calibration, width, height)
            self._size_wrong = False
        except VisionError as error:
            self._size_wrong = True
            self.health.failed(self.part, f"camera {self.source_spec!r} cannot use the calibration "
                                          f"{self.calibration_file!r}: {error}: run 'domino-referee "
                                          "calibrate table' again at this resolution, or set the "
                                          "camera to it")
        return self._size_wrong


def open_camera(config: Config, health: Health | None = None) -> CameraDevice | None:
    """The `[camera]` as an input device; None for `synthetic`, which films only in the demo."""
    camera = config["camera"]
    spec = camera["source"]
    if spec == "synthetic":
        return None
    saved = None
    if camera["calibration"] == "fixed":
        from pathlib import Path

        saved = camera["calibration_file"] or str(Path(config["storage"]["data_dir"]) / "calibration.json")
        if not Path(saved).exists():
            raise CameraSettingError(f"camera.calibration_file: {saved!r} does not exist: run "
                              "'domino-referee calibrate table PHOTO' first, or use calibration = \"aruco\"")
    try:  # a DOMINO_VISION_RUNTIME it cannot use is refused at start, not at every frame
        return CameraDevice(spec, camera["fps"], time.monotonic, calibration_file=saved, health=health)
    except VisionError as error:
        raise CameraSettingError(f"camera: {error}") from error


@dataclass
class VisionReport:
    """How vision did in the demo: moves read right, and those the table manager had to correct."""

    read: int = 0
    corrected: list[str] = field(default_factory=list)
    seconds: float = 0.0
    frames: int = 0
    failures: list[str] = field(default_factory=list)
    unfilmed: list[str] = field(default_factory=list)


def _canonical(tile: str) -> str:
    a, b = sorted(int(x) for x in tile.split("-"))
    return f"{a}-{b}"


def demo_camera(size: tuple[int, int], seed: int, *, spinner: bool = False, fps: float = 5.0,
                approach_frames: int = 2, leave_frames: int = 1, rest_frames: int = 4) -> tuple[Any, Any]:
    """The demo's table and camera: a `GameFilm` and the `Tracker` that reads it.

    A plain blue-grey cloth and a pin-less ivory set with plain backs under even light (what the
    reader handles well today), filmed close up by a fixed camera whose saved homography is the
    calibration, as with ``[camera] calibration = "fixed"`` on a real table.
    """
    from vision.synth.film import fixed_camera_film
    from vision.synth.style import PLAIN_STYLE

    film, calibration = fixed_camera_film(PLAIN_STYLE, seed, size, fps=fps, spinner=spinner,
                                          approach_frames=approach_frames, leave_frames=leave_frames,
                                          rest_frames=rest_frames)
    tracker = Tracker(quiet_reader(), calibration=calibration, stable_frames=3, spinner=spinner)
    return film, tracker


class FilmDriver(Protocol):
    """What filming the demo needs of the demo's driver (`referee.app.demo.Driver`)."""

    @property
    def clock(self) -> FilmClockLike: ...

    @property
    def service(self) -> TableService: ...

    @property
    def on_frame(self) -> Callable[[Any, Any], object] | None: ...   # every filmed frame (the web's)

    def next_move(self) -> bool: ...

    def advance(self, t: float) -> None: ...

    def fits(self, tile: str) -> int: ...

    def feed(self, kind: InputKind, data: dict[str, Any]) -> None: ...

    def press(self, button: str, kind: str) -> None: ...

    def show(self) -> None: ...


class FilmClockLike(Protocol):
    START: float

    def __call__(self) -> float: ...


def play_through_vision(driver: FilmDriver, record: dict[str, Any], players: list[str], config: Config, *,
                        video: str | None = None, seed: int = 0) -> VisionReport:
    """Film every move, read it with the tracker, and feed what vision saw.

    After each move the demo's table manager compares what the tracker reported with the film's
    truth; a move vision missed or misread is corrected by hand (fed as it truly was) and counted,
    as a person at a real table would fix a misread instead of letting the match go wrong.
    """
    started = time.monotonic()
    width, height = config["camera"]["width"], config["camera"]["height"]
    spinner = find_rules(config["table"]["rules"]).spinner
    film, tracker = demo_camera((width, height), seed, spinner=spinner)
    report = VisionReport()
    writer = _VideoWriter(video, (width, height), film.fps) if video else None
    base = driver.clock.START

    def film_move(shoot: Callable[[], Sequence[Any]], truth: list[Input], what: str) -> None:
        live = driver.next_move()
        try:
            frames = shoot()
        except ValueError as error:  # the renderer cannot show it (a boneyard too big for its zone)
            frames = []
            report.unfilmed.append(f"{what}: {error}")
        if not live:
            # A resumed demo re-films the moves its log already holds (the film keeps the table's
            # layout) but the restarted camera only sees the table as it is from now on.
            return
        seen: list[Input] = []
        for frame in frames:
            driver.advance(base + frame.t)
            try:
                observations = tracker.feed(frame.t, frame.image)
            except Exception as error:  # a vision failure is a misread to correct, never a crash
                report.failures.append(f"{what}: {type(error).__name__}: {error}")
                observations = []
            seen += [inp for inp in (observation_input(o, driver.clock()) for o in observations) if inp]
            report.frames += 1
            if driver.on_frame is not None:
                driver.on_frame(frame.image, tracker)
            if writer is not None:
                writer.write(frame.image, tracker, what)
        accepted = _matching(seen, truth, driver.fits)
        if accepted is None:
            report.corrected.append(f"{what}: vision saw {[_describe(i) for i in seen] or 'nothing'}")
            accepted = truth
        else:
            report.read += 1
        for inp in accepted:
            driver.feed(inp.kind, dict(inp.data))
        driver.show()

    try:
        for hand in record["hands"]:
            if not any("play" in event for event in hand["events"]):
                continue
            boneyard = list(hand.get("boneyard", []))
            held = {name: list(tiles) for name, tiles in hand.get("dealt", {}).items()}
            tracker.new_hand()
            deal = [Input(InputKind.BONEYARD, {"count": len(boneyard)})]
            film_move(partial(film.new_hand, boneyard=len(boneyard)), deal, "a new hand is dealt")
            if hand.get("leader") and driver.next_move():
                driver.press(f"done-{players.index(hand['leader'])}", "lead")
            for event in hand["events"]:
                player = event.get("player")
                seat = players.index(player) if player in players else 0
                if "play" in event:
                    tile = str(event["play"])
                    held[player] = [t for t in held[player] if _canonical(t) != _canonical(tile)]
                    truth = [Input(InputKind.PLACED, {"tile": tile, "end": event.get("end")})]
                    film_move(partial(film.play, seat, tile, event.get("end")), truth,
                              f"{player} plays {tile}")
                elif "draw" in event:
                    drawn = event["draw"] if isinstance(event["draw"], str) else boneyard[0]
                    boneyard.remove(drawn)
                    held[player].append(drawn)
                    film_move(partial(film.draw, seat), [Input(InputKind.BONEYARD, {"count": len(boneyard)})],
                              f"{player} draws")
                elif "pass" in event and driver.next_move():
                    driver.press("pass", "pass")
                if driver.service.match_over.is_set():
                    break
            if driver.service.match_over.is_set():
                break
            for seat, name in enumerate(players):
                if held.get(name):
                    tiles = sorted(held[name])
                    truth = [Input(InputKind.REVEALED, {"zone": f"seat{seat}", "tiles": tiles})]
                    film_move(partial(film.reveal, seat, tiles), truth,
                              f"{name} reveals {len(tiles)} tiles")
    finally:
        if writer is not None:
            writer.close()
    report.seconds = time.monotonic() - started
    return report


def _describe(inp: Input) -> str:
    return f"{inp.kind} {' '.join(str(v) for v in inp.data.values())}"


def _matching(seen: list[Input], truth: list[Input], fits: Callable[[str], int]) -> list[Input] | None:
    """Vision's inputs for the move when they say what truly happened, else None. A play whose end
    vision could not tell is right when the tile fits only one end (the referee needs no end)."""
    accepted: list[Input] = []
    for want in truth:
        match = None
        for got in seen:
            if got.kind != want.kind:
                continue
            if _same(got, want, fits):
                match = got
        if match is None:
            return None
        accepted.append(match)
    return accepted


def _same(got: Input, want: Input, fits: Callable[[str], int]) -> bool:
    if want.kind == "placed":
        end, seen_end = want.data.get("end"), got.data.get("end")
        return _canonical(got.data["tile"]) == _canonical(want.data["tile"]) and \
            (end in (None, seen_end) or (seen_end is None and fits(want.data["tile"]) <= 1))
    if want.kind == "boneyard":
        return bool(got.data["count"] == want.data["count"])
    if want.kind == "revealed":
        return bool(got.data["zone"] == want.data["zone"] and
                    sorted(map(_canonical, got.data["tiles"])) == sorted(map(_canonical, want.data["tiles"])))
    return False


class _VideoWriter:
    """The rendered video with what vision committed drawn over it (tile outlines and names)."""

    def __init__(self, path: str, size: tuple[int, int], fps: float) -> None:
        import cv2

        self.cv2 = cv2
        fourcc = cv2.VideoWriter_fourcc(*"mp4v")  # type: ignore[attr-defined]
        self.writer = cv2.VideoWriter(path, fourcc, fps, size)
        if not self.writer.isOpened():
            from referee.errors import DominoError
            raise DominoError(f"--video: cannot write {path!r} (use a .mp4 or .avi name)")

    def write(self, image: np.ndarray, tracker: Tracker, caption: str) -> None:
        cv2 = self.cv2
        canvas = image.copy()
        for tile in getattr(tracker, "tiles", []):
            corners = np.asarray(tile.image_corners, np.int32).reshape(-1, 1, 2)
            colour = (0, 200, 0) if tile.in_line else (0, 200, 255)
            cv2.polylines(canvas, [corners], True, colour, 2)
            x, y = corners.reshape(-1, 2).mean(axis=0).astype(int)
            cv2.putText(canvas, tile.name, (int(x) - 14, int(y) + 5), cv2.FONT_HERSHEY_SIMPLEX, 0.5,
                        (0, 0, 255), 2)
        cv2.putText(canvas, caption, (10, 24), cv2.FONT_HERSHEY_SIMPLEX, 0.7, (255, 255, 255), 2)
        self.writer.write(canvas)

    def close(self) -> None:
        self.writer.release()
