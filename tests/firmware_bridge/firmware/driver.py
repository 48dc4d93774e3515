"""A bare, synchronous host for line-level tests: it sends exactly the frames a test asks for
(with the seq it chooses) and collects every frame the board sends, with arrival times."""

from __future__ import annotations

import time
from dataclasses import dataclass

import serial

from firmware_bridge.protocol.codec import Frame, FrameProtocol, Hello, HelloReply, Message

READ_TIMEOUT = 0.01


@dataclass(frozen=True)
class Received:
    wall: float
    frame: Frame


class Driver:
    def __init__(self, url: str) -> None:
        self.port = serial.serial_for_url(url, baudrate=115200, timeout=READ_TIMEOUT)
        self.protocol = FrameProtocol()
        self.seq = 0
        self.received: list[Received] = []
        self._unread = 0

    def close(self) -> None:
        self.port.close()

    def write(self, data: bytes) -> float:
        self.port.write(data)
        self.port.flush()
        return time.monotonic()

    def send(self, message: Message, seq: int | None = None) -> int:
        """Send `message` as frame `seq` (default: the next of our counter); returns the seq."""
        if seq is None:
            seq, self.seq = self.seq, (self.seq + 1) % 255
        self.write(Frame(seq, message).encode())
        return seq

    def _pump(self, timeout: float) -> None:
        data = self.port.read(max(1, self.port.in_waiting))
        if data:
            now = time.monotonic()
            self.received += [Received(now, frame) for frame in self.protocol.feed(data)]

    def next(self, timeout: float = 1.0) -> Received:
        """The next frame from the board not returned yet."""
        deadline = time.monotonic() + timeout
        while self._unread >= len(self.received):
            if time.monotonic() > deadline:
                raise TimeoutError(f"no frame from the board within {timeout} s")
            self._pump(timeout)
        self._unread += 1
        return self.received[self._unread - 1]

    def request(self, message: Message, seq: int | None = None, timeout: float = 1.0) -> Frame:
        """Send and return the board's answer to it (the next frame with its seq)."""
        seq = self.send(message, seq)
        deadline = time.monotonic() + timeout
        while True:
            got = self.next(max(0.0, deadline - time.monotonic()))
            if got.frame.seq == seq:
                return got.frame

    def collect(self, duration: float) -> list[Received]:
        """Every frame that arrives within `duration` seconds (to prove nothing else came)."""
        deadline = time.monotonic() + duration
        while time.monotonic() < deadline:
            self._pump(deadline - time.monotonic())
        frames = self.received[self._unread:]
        self._unread = len(self.received)
        return frames

    def handshake(self) -> HelloReply:
        reply = self.request(Hello()).message
        assert isinstance(reply, HelloReply), reply
        return reply
