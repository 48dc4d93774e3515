"""How much the table side costs: replay with and without it, and ledger bookings per second.

Run: `python -m benchmarks.clocks_table_side` from the project root. Reports
(1) replay time of a timed 8-hand italian record with the table-side observer against the
engine's plain replay (the peer), and (2) ledger bookings per second from one process and from
two processes writing at once (the second as a ratio of the first).
"""

from __future__ import annotations

import json
import multiprocessing
import tempfile
import time
import timeit
from fractions import Fraction
from pathlib import Path

from referee.leaving import LedgerEntry
from referee.ledger import Ledger, MatchSettlement, record_hash
from referee.record import load_record, replay
from referee.table_observer import replay_with_table

RECORD = Path(__file__).resolve().parents[1] / "tests" / "clocks" / "records" / "italian-clock-in-time.json"
BOOKINGS = 200


def _book(data_dir: str, prefix: str, count: int) -> None:
    with Ledger.in_directory(data_dir) as ledger:
        for i in range(count):
            entries = (LedgerEntry(f"{prefix}{i % 8}", "s", "player", Fraction(1)),
                       LedgerEntry("shared", "s", "player", Fraction(-1)))
            ledger.apply(MatchSettlement(record_hash({"m": f"{prefix}{i}"}), "turkish", 0.0, entries),
                         applied_at=0.0)


def bookings_per_second(processes: int) -> float:
    with tempfile.TemporaryDirectory() as folder:
        Ledger.in_directory(folder).close()
        ctx = multiprocessing.get_context("spawn")
        workers = [ctx.Process(target=_book, args=(folder, f"p{n}-", BOOKINGS)) for n in range(processes)]
        start = time.perf_counter()
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
        elapsed = time.perf_counter() - start
    return processes * BOOKINGS / elapsed


def main() -> None:
    document = load_record(RECORD)
    moves = sum(1 for hand in document["hands"] for e in hand["events"] if "play" in e or "pass" in e)
    plain = min(timeit.repeat(lambda: replay(document), number=5, repeat=5)) / 5
    table = min(timeit.repeat(lambda: replay_with_table(document), number=5, repeat=5)) / 5
    one = bookings_per_second(1)
    two = bookings_per_second(2)
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
