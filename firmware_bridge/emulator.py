"""A Python scoreboard on a pty: the same protocol and display as the firmware, for tests and the demo.

`Emulator` opens a pty pair (`os.openpty`), serves the master side from a thread with a
`BoardModel`, and gives the host the slave side's name — or a symlink at a fixed `link` path, so
`unplug()` / `replug()` can make the device vanish and come back at the same URL like a USB board.
"""

from __future__ import annotations

import contextlib
import os
import select
import tempfile
import threading
import time
import tty
from collections.abc import Callable
from pathlib import Path
from typing import Any

from firmware_bridge.display import Cell, cells_text
from firmware_bridge.protocol.board import BeepRecord, BoardModel
from firmware_bridge.protocol.codec import button_code

POLL_INTERVAL = 0.01


class Emulator:
    """A scoreboard emulator serving a pty. Use as a context manager or `start()`/`stop()`.

    `clock` is the board's own time (the countdown, beep log and timeouts); tests pass an
    accelerated clock to count a long clock down quickly.
    """

    def __init__(self, *, link: str | os.PathLike[str] | None = None,
                 clock: Callable[[], float] = time.monotonic, **board_options: Any) -> None:
        self.clock = clock
        self.board = BoardModel(now=clock(), **board_options)
        self._own_dir: tempfile.TemporaryDirectory[str] | None = None
        if link is None:
            self._own_dir = tempfile.TemporaryDirectory(prefix="scoreboard-emulator-")
            link = Path(self._own_dir.name) / "tty"
        self.link = Path(link)
        self.received = bytearray()  # everything the host sent, for line tests
        self._master = -1
        self._slave = -1
        self._lock = threading.RLock()
        self._changed = threading.Condition(self._lock)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._wake_r, self._wake_w = os.pipe()

    @property
    def url(self) -> str:
        """The pyserial URL the host opens (the symlink, which survives unplug/replug)."""
        return str(self.link)

    # -- lifecycle -------------------------------------------------------------------------------

    def start(self) -> Emulator:
        self.replug()
        self._thread = threading.Thread(target=self._serve, name="scoreboard-emulator", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        os.write(self._wake_w, b"x")
        if self._thread is not None:
            self._thread.join(timeout=2)
        self.unplug()
        os.close(self._wake_r)
        os.close(self._wake_w)
        if self._own_dir is not None:
            self._own_dir.cleanup()

    def __enter__(self) -> Emulator:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def unplug(self) -> None:
        """The USB cable is pulled: the device and its name vanish; the host's reads fail."""
        with self._lock:
            for fd in (self._master, self._slave):
                if fd >= 0:
                    os.close(fd)
            self._master = self._slave = -1
            with contextlib.suppress(FileNotFoundError):
                self.link.unlink()
        os.write(self._wake_w, b"x")

    def replug(self, *, power_cycle: bool = False) -> None:
        """A (new) pty appears at the same name; with `power_cycle` the board also restarts."""
        with self._lock:
            if self._master >= 0:
                self.unplug()
            master, slave = os.openpty()
            tty.setraw(slave)  # no echo, no line discipline before the host configures it
            os.set_blocking(master, False)
            self._master, self._slave = master, slave
            temporary = self.link.with_name(self.link.name + ".new")
            with contextlib.suppress(FileNotFoundError):
                temporary.unlink()
            temporary.symlink_to(os.ttyname(slave))
            temporary.replace(self.link)
            if power_cycle:
                self.board.power_on(self.clock())
        os.write(self._wake_w, b"x")

    def reset(self) -> None:
        """The board resets (watchdog, brown-out) while the port stays open."""
        with self._lock:
            self.board.power_on(self.clock())
            self._changed.notify_all()

    # -- the board's buttons and line faults --------------------------------------------------

    def press(self, button: str | int, *, held: bool = False) -> None:
        """Press a button: 'start', 'pass', 'continue', 'done-N', or a protocol button code."""
        code = button_code(button) if isinstance(button, str) else button
        with self._lock:
            self._write(self.board.press(code, self.clock(), held=held))

    def drop_answers(self, count: int = 1) -> None:
        """Leave the next `count` answers unsent, as if lost on the line."""
        with self._lock:
            self.board.drop_answers += count

    def drop_incoming(self, count: int = 1) -> None:
        """Ignore the next `count` frames from the host, as if lost on the line."""
        with self._lock:
            self.board.drop_incoming += count

    def send_raw(self, data: bytes) -> None:
        """Write bytes to the host as they are (garbage on the line)."""
        with self._lock:
            self._write(data)

    # -- what it shows ----------------------------------------------------------------------

    @property
    def beeps(self) -> list[BeepRecord]:
        with self._lock:
            return list(self.board.beeps)

    def cells(self) -> list[Cell]:
        with self._lock:
            return self.board.cells(self.clock())

    def text(self) -> str:
        """The display in its compact one-line form, e.g. `  12|  -5|    |    | 9.5|P2  `."""
        return cells_text(self.cells())

    def tenths_left(self) -> int:
        with self._lock:
            return self.board.tenths_left(self.clock())

    def wait_for(self, condition: Callable[[BoardModel], bool], timeout: float) -> bool:
        """Wait until `condition(board)` holds (checked after every frame from the host)."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while not condition(self.board):
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._changed.wait(min(left, 0.05))
            return True

    # -- the serving thread -------------------------------------------------------------------

    def _write(self, data: bytes) -> None:
        if data and self._master >= 0:
            try:
                os.write(self._master, data)
            except BlockingIOError:
                pass  # nobody reads the port and its buffer is full: a real UART drops bytes too
            except OSError:
                pass

    def _serve(self) -> None:
        while not self._stop.is_set():
            master = self._master
            watched = [self._wake_r] + ([master] if master >= 0 else [])
            try:
                ready, _, _ = select.select(watched, [], [], POLL_INTERVAL)
            except (OSError, ValueError):
                continue  # the pty was closed under us by unplug()
            if self._wake_r in ready:
                os.read(self._wake_r, 64)
            with self._lock:
                if self._master >= 0 and self._master in ready and self._master == master:
                    try:
                        data = os.read(self._master, 4096)
                    except (BlockingIOError, OSError):
                        data = b""
                    if data:
                        self.received += data
                        self._write(self.board.receive(data, self.clock()))
                        self._changed.notify_all()
                self._write(self.board.tick(self.clock()))


def main(argv: list[str] | None = None) -> int:
    """`python -m firmware_bridge.emulator --link PATH`: serve an emulated board until interrupted."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m firmware_bridge.emulator", description=main.__doc__)
    parser.add_argument("--link", required=True, help="path of the symlink to the pty (the host's port URL)")
    args = parser.parse_args(argv)
    stop = threading.Event()
    with Emulator(link=args.link):
        print(f"scoreboard emulator on {args.link}", flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            stop.wait()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
