"""The tones of each beep pattern (docs/serial-protocol.md), shared by the emulator and the GPIO buzzer."""

from __future__ import annotations

from dataclasses import dataclass

from firmware_bridge.protocol.codec import Beep, BeepPattern


@dataclass(frozen=True)
class Tone:
    on_ms: int
    off_ms: int
    frequency_hz: int


_PATTERNS: dict[BeepPattern, tuple[Tone, ...]] = {
    BeepPattern.OK: (Tone(100, 0, 2000),),
    BeepPattern.WARNING: (Tone(100, 100, 2000), Tone(100, 100, 2000)),
    BeepPattern.ERROR: (Tone(600, 0, 400),),
    BeepPattern.TIMEOUT: (Tone(400, 200, 1000),) * 3,
    BeepPattern.MATCH_END: (Tone(150, 50, 1000), Tone(150, 50, 1500), Tone(150, 50, 2000)),
}


def tones(beep: Beep) -> tuple[Tone, ...]:
    """The tones `beep` sounds, in order."""
    if beep.pattern == BeepPattern.CUSTOM:
        return (Tone(beep.on_ms, beep.off_ms, beep.frequency_hz),) * beep.count
    return _PATTERNS[beep.pattern]


def duration_ms(beep: Beep) -> int:
    """From the first tone's start to the last tone's end (the last pause is not sounded)."""
    sounds = tones(beep)
    return sum(tone.on_ms + tone.off_ms for tone in sounds) - sounds[-1].off_ms
