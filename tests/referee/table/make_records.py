"""Writes the table-side regression records in tests/referee/table/records/ (run once; the files are data).

Each record is a simulated match (records/base/, from `domino-referee simulate` with fixed seeds)
cut to what the case needs, with timestamps `t` and table-side events added by the hand-written
schedules below. Run `python -m tests.referee.table.make_records` from the project root to regenerate.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent / "records"
START = {"start": True, "t": 0}


def simulated(name: str) -> dict[str, Any]:
    """A base record: a simulated match kept as data, so the cases do not move with the engine's
    simulation (`base/italian-seed-3.json` and `base/turkish-seed-5.json` came from
    `domino-referee simulate --seed 3 --rules italian` and `--seed 5 --rules turkish --option hands=2`)."""
    record: dict[str, Any] = json.loads((HERE / "base" / name).read_text(encoding="utf-8"))
    return record


def timed(events: list[dict[str, Any]], start: float, move_seconds: list[float]) -> list[dict[str, Any]]:
    """Stamp events: every move (draws included) takes the next of `move_seconds`, spread evenly
    over its draws and the play or pass that ends it."""
    out: list[dict[str, Any]] = []
    t = start
    durations = iter(move_seconds)
    move: list[dict[str, Any]] = []
    for event in events:
        move.append(dict(event))
        if "play" in event or "pass" in event:
            seconds = next(durations)
            for i, part in enumerate(move, start=1):
                part["t"] = round(t + seconds * i / len(move), 3)
            t += seconds
            out.extend(move)
            move = []
    out.extend(move)
    return out


def write(name: str, record: dict[str, Any]) -> None:
    """What each record must show is asserted in test_records.py."""
    (HERE / name).write_text(json.dumps(record, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


def one_hand(record: dict[str, Any], events: list[dict[str, Any]]) -> dict[str, Any]:
    first = dict(record["hands"][0])
    first["events"] = events
    return {**record, "hands": [first]}


def italian_records() -> None:
    base = simulated("italian-seed-3.json")
    events = base["hands"][0]["events"]
    moves = sum(1 for e in events if "play" in e or "pass" in e)
    # Every hand starts with a `start` event; moves alternate fast (4 s) and slow (16 s), in time.
    hands = []
    t = 0.0
    for hand in base["hands"]:
        n = sum(1 for e in hand["events"] if "play" in e or "pass" in e)
        stamped = timed(hand["events"], t, [4.0 if i % 4 < 2 else 16.0 for i in range(n)])
        hands.append({**hand, "events": [{"start": True, "t": t}, *stamped]})
        t = stamped[-1]["t"] + 60.0
    write("italian-clock-in-time.json", {**base, "started_at": "2026-11-01T18:00:00+00:00", "hands": hands})

    # The sixth move (Ayşe's third) takes 31 s: more than the 30 s any move can have; no timeout event.
    durations = [3.0] * moves
    durations[5] = 31.0
    stamped = timed(events, 0.0, durations)
    write("italian-derived-timeout.json", one_hand(base, [{"start": True, "t": 0}, *stamped]))

    # The table called time: an explicit timeout event after the allowance ran out.
    stamped = timed(events, 0.0, [3.0] * moves)
    cut = index_of_move(stamped, 4)
    head = [START, *stamped[:cut + 1]]
    mover = stamped[cut + 1]["player"]
    timeout = {"player": mover, "timeout": True, "t": stamped[cut]["t"] + 30.5}
    write("italian-timeout-event.json", one_hand(base, [*head, timeout]))

    # Away 100 s during a move, back in time: the clock stood still; 12 s of move time in all.
    stamped = timed(events, 0.0, [3.0] * moves)
    cut = index_of_move(stamped, 2)
    head = [START, *stamped[:cut + 1]]
    mover = stamped[cut + 1]["player"]
    t0 = stamped[cut]["t"]
    rest = [{**e, "t": e["t"] + 109.0} for e in stamped[cut + 1:]]
    away = [{"player": mover, "away": True, "t": t0 + 5}, {"player": mover, "back": True, "t": t0 + 105}]
    write("italian-away-back.json", one_hand(base, [*head, *away, *rest]))

    # Back 181 s after stepping away: a late return loses the match.
    away = [{"player": mover, "away": True, "t": t0 + 1}, {"player": mover, "back": True, "t": t0 + 182}]
    rest = [{**e, "t": e["t"] + 190.0} for e in stamped[cut + 1:]]
    write("italian-late-return.json", one_hand(base, [*head, *away, *rest]))

    # Never back: the next event after the 3 minutes proves it.
    other = "Ayşe" if mover == "Burak" else "Burak"
    away = [{"player": mover, "away": True, "t": t0 + 1}, {"player": other, "away": True, "t": t0 + 200}]
    write("italian-absence-ran-out.json", one_hand(base, [*head, *away]))

    # The player who stepped away tries to move before coming back: refused, then made after `back`.
    rest = [{**e, "t": e["t"] + 20.0} for e in stamped[cut + 1:]]
    early = {**stamped[cut + 1], "t": t0 + 2}
    away = [{"player": mover, "away": True, "t": t0 + 1}, early,
            {"player": mover, "back": True, "t": t0 + 10}]
    write("italian-away-player-cannot-move.json", one_hand(base, [*head, *away, *rest]))

    # A third absence loses the match.
    trips = []
    for k in range(3):
        trips.append({"player": mover, "away": True, "t": t0 + 10 * k + 1})
        if k < 2:
            trips.append({"player": mover, "back": True, "t": t0 + 10 * k + 5})
    write("italian-third-absence.json", one_hand(base, [*head, *trips]))

    # A Fischer clock set by the record: 10 s + 2 s a move, 5 s moves: 10 → 7 → 4, and the third
    # move of the player who led does not fit.
    durations = [5.0] * moves
    stamped = timed(events, 0.0, durations)
    write("italian-fischer-timeout.json", {**one_hand(base, [{"start": True, "t": 0}, *stamped]),
                                   "clock": {"mode": "fischer", "initial_seconds": 10,
                                             "increment_seconds": 2}})


def stamped_mover(stamped: list[dict[str, Any]], move: int) -> str:
    return str(stamped[index_of_move(stamped, move)]["player"])


def index_of_move(events: list[dict[str, Any]], move: int) -> int:
    """Index of the event that ends move number `move` (0-based)."""
    seen = -1
    for i, event in enumerate(events):
        if "play" in event or "pass" in event:
            seen += 1
            if seen == move:
                return i
    raise IndexError(move)


def rename_after(events: list[dict[str, Any]], start: int, old: str, new: str) -> list[dict[str, Any]]:
    return [{**e, "player": new} if i >= start and e.get("player") == old else e
            for i, e in enumerate(events)]


def turkish_records() -> None:
    base = simulated("turkish-seed-5.json")
    first, second = base["hands"]
    t_first = timed(first["events"], 1.0, [2.0] * 100)
    t_second = timed(second["events"], 100.0, [2.0] * 100)
    cut = 6
    t0 = t_second[cut - 1]["t"]

    def with_table(table: list[dict[str, Any]], renamed: str | None, new: str = "Efe") -> dict[str, Any]:
        rest = [{**e, "t": e["t"] + 30} for e in t_second[cut:]]
        if renamed:
            rest = rename_after(rest, 0, renamed, new)
        hands = [{**first, "events": [{"start": True, "t": 0}, *t_first]},
                 {**second, "events": [*t_second[:cut], *table, *rest]}]
        return {**base, "started_at": "2026-11-02T19:00:00+00:00", "hands": hands}

    leave = [{"player": "Cem", "leave": True, "t": t0 + 1},
             {"player": "Cem", "substitute": "Efe", "t": t0 + 5},
             {"continue": True, "t": t0 + 6}]
    write("turkish-leave-substitute-gains.json", with_table(leave, "Cem"))
    leave = [{"player": "Deniz", "leave": True, "t": t0 + 1},
             {"player": "Deniz", "substitute": "Efe", "t": t0 + 5},
             {"continue": True, "t": t0 + 6}]
    write("turkish-leave-substitute-loses-nothing.json", with_table(leave, "Deniz"))
    drop = [{"player": "Burak", "away": True, "t": t0 + 1},
             {"player": "Burak", "substitute": "Efe", "t": t0 + 5},
            {"continue": True, "t": t0 + 6}]
    write("turkish-dropped-charged.json", with_table(drop, "Burak"))
    back = [{"player": "Deniz", "away": True, "t": t0 + 1},
             {"player": "Deniz", "substitute": "Efe", "t": t0 + 5},
            {"continue": True, "t": t0 + 6}, {"player": "Deniz", "back": True, "t": t0 + 20},
            {"continue": True, "t": t0 + 21}]
    write("turkish-dropped-comes-back.json", with_table(back, None))
    waiting = [{"player": "Ayşe", "leave": True, "t": t0 + 1}, {"continue": True, "t": t0 + 2},
               {"player": "Ayşe", "substitute": "Efe", "t": t0 + 5}, {"continue": True, "t": t0 + 6}]
    write("turkish-continue-needs-a-substitute.json", with_table(waiting, "Ayşe"))
    mover = t_second[cut]["player"]
    leaver = next(p for p in base["players"] if p != mover)
    early = {**t_second[cut], "t": t0 + 2}
    waits = [{"player": leaver, "leave": True, "t": t0 + 1}, early,
             {"player": leaver, "substitute": "Efe", "t": t0 + 5}, {"continue": True, "t": t0 + 6}]
    write("turkish-play-waits-for-continue.json", with_table(waits, leaver))
    unfinished = {**base, "started_at": "2026-11-03T19:00:00+00:00",
                  "hands": [{**first, "events": [*t_first[:5], {"player": "Cem", "leave": True, "t": 20}]}]}
    write("turkish-leave-unfinished.json", unfinished)
    # Cem's third abandonment in a week (after the two above): booked in any order, it bars him.
    write("turkish-leave-third-in-a-week.json", {**unfinished, "started_at": "2026-11-04T19:00:00+00:00"})


if __name__ == "__main__":
    HERE.mkdir(exist_ok=True)
    italian_records()
    turkish_records()
