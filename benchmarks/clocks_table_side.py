"""How much the table side costs: replay with and without it, and ledger bookings per second.

Run: `python -m benchmarks.clocks_table_side` from the project root. Reports
(1) replay time of a timed 8-hand italian record with the table-side observer against the
engine's plain replay (the peer), and (2) ledger bookings per second from one process and from
two processes writing at once (the second as a ratio of the first), best of 3 runs each.
"""

from __future__ import annotations

import json
import multiprocessing
import tempfile
import time
import timeit
from fractions import Fraction
from pathlib import Path
from typing import Any

from referee.club.ledger import Ledger, MatchSettlement, record_hash
from referee.record import load_record, replay
from referee.table.leaving import LedgerEntry
from referee.table.observer import replay_with_table

RECORDS = Path(__file__).resolve().parents[1] / "tests" / "referee" / "table" / "records"
RECORD = RECORDS / "italian-clock-in-time.json"
BOOKINGS = 500


def _book(data_dir: str, prefix: str, count: int, barrier: Any) -> tuple[float, float]:
    with Ledger.in_directory(data_dir) as ledger:
        barrier.wait()
        start = time.monotonic()  # CLOCK_MONOTONIC: comparable between the processes
        for i in range(count):
            entries = (LedgerEntry(f"{prefix}{i % 8}", "s", "player", Fraction(1)),
                       LedgerEntry("shared", "s", "player", Fraction(-1)))
            ledger.apply(MatchSettlement(record_hash({"m": f"{prefix}{i}"}), "turkish", 0.0, entries),
                         applied_at=0.0)
        return start, time.monotonic()


def bookings_per_second(processes: int) -> float:
    """Bookings per second while `processes` processes book at once (process start not counted)."""
    with tempfile.TemporaryDirectory() as folder:
        Ledger.in_directory(folder).close()
        ctx = multiprocessing.get_context("spawn")
        with ctx.Manager() as manager, ctx.Pool(processes) as pool:
            barrier = manager.Barrier(processes)
            spans = pool.starmap(_book, [(folder, f"p{n}-", BOOKINGS, barrier) for n in range(processes)])
    elapsed = max(end for _, end in spans) - min(start for start, _ in spans)
    return processes * BOOKINGS / elapsed


def main() -> None:
    document = load_record(RECORD)
    moves = sum(1 for hand in document["hands"] for e in hand["events"] if "play" in e or "pass" in e)
    plain = min(timeit.repeat(lambda: replay(document), number=5, repeat=5)) / 5
    table = min(timeit.repeat(lambda: replay_with_table(document), number=5, repeat=5)) / 5
    # Commits wait for the disk, and this machine is shared: the best of 3 runs is reported.
    one = max(bookings_per_second(1) for _ in range(3))
    two = max(bookings_per_second(2) for _ in range(3))
    print(json.dumps({
        "replay_moves": moves,
        "replay_plain_ms": round(plain * 1000, 2),
        "replay_with_table_side_ms": round(table * 1000, 2),
        "table_side_cost_ratio": round(table / plain, 3),
        "ledger_bookings_per_s_one_process": round(one, 1),
        "ledger_bookings_per_s_two_processes": round(two, 1),
        "two_to_one_process_ratio": round(two / one, 3),
    }, indent=1))


if __name__ == "__main__":
    main()
