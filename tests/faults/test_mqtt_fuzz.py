"""The MQTT fuzz, small and real (issue 17): 2,000 random and malformed payloads over every
`cmd/` topic against a real mosquitto and a real `domino-referee run`; each is answered once, the
service still referees, its network thread lives, its memory stays flat. The benchmark
(`python -m benchmarks.mqtt_fuzz`) runs 100,000."""

from __future__ import annotations

from pathlib import Path

from benchmarks.mqtt_fuzz import RSS_GROWTH_LIMIT_MB, must_be_refused, payloads, run_fuzz


def test_two_thousand_malformed_payloads_are_each_answered_once(tmp_path: Path) -> None:
    result = run_fuzz(2000, seed=7, window=100, directory=tmp_path)
    assert result.sent == result.answered == 2000 and result.extra_answers == 0
    assert result.play_accepted and result.alive
    assert result.rss_end_mb - result.rss_warm_mb <= RSS_GROWTH_LIMIT_MB
    assert len(result.kinds) >= 12        # every command topic and unknown ones were hit


def test_the_generator_covers_the_limits() -> None:
    import random

    generated = payloads(random.Random(3))
    sample = [next(generated) for _ in range(3000)]
    refused = [(name, body) for name, body in sample if must_be_refused(name, body)]
    assert len(refused) > 0.8 * len(sample)
    assert any(len(body) > 60_000 for _, body in refused)           # far beyond the size limit
    assert any(body.startswith(b"[" * 1100) for _, body in refused)  # beyond the recursion limit
    assert any(b"Zed" in body for _, body in refused)               # not a player
