"""`open_source` with the synthetic table: "synth:SEED" films a demo game from seed SEED.

Every other spec goes to `vision.sources.open_source`. The renderer imports vision, never the
other way round, so the synthetic source is added here rather than in `vision.sources`.
"""

from __future__ import annotations

from vision.sources import FrameSource, SourceError, SyntheticSource
from vision.sources import open_source as open_real_source

SYNTH_PREFIX = "synth:"


def open_source(spec: str, *, fps: float = 1.0) -> FrameSource:
    """A frame source from text: "synth:SEED", or anything `vision.sources.open_source` opens."""
    text = spec.strip()
    if not text.startswith(SYNTH_PREFIX):
        return open_real_source(spec, fps=fps)
    seed_text = text.removeprefix(SYNTH_PREFIX) or "0"
    if not seed_text.isdigit():
        raise SourceError(f"synthetic source {spec!r}: the seed must be a whole number, as in synth:7")
    from vision.synth.film import demo_game_frames

    return SyntheticSource(demo_game_frames(int(seed_text)))
