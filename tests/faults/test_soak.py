"""A short real soak (`benchmarks/soak.py`): a few minutes of compressed play, a fault every few
dozen seconds of match time, against a real broker, a pty scoreboard and a small tmpfs."""

from __future__ import annotations

from benchmarks.soak import REPORT_LIMIT, soak, summary


def test_a_short_soak_loses_doubles_and_reuses_nothing() -> None:
    said: list[str] = []
    report = soak(minutes=4, every=0.4, seed=3, say=said.append)
    text = summary(report)
    assert len(report.faults) >= 6 and len({f.kind for f in report.faults}) >= 5, text
    assert report.accepted > 100, text
    counts = (report.lost, report.doubled, report.seq_reused, report.events_missing_at_subscriber)
    assert counts == (0, 0, 0, 0), text
    late = [f for f in report.faults
            if f.kind != "clock-jump" and (f.reported is None or f.reported > REPORT_LIMIT)]
    assert not late, text
    assert all(f.recovered is not None for f in report.faults if f.kind != "clock-jump"), text
