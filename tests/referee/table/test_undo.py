"""Undo gives back the clock time a misread move cost: the mover's standing is put back to what it
was before that move, and the move runs again from the undo's time."""

from __future__ import annotations

import copy
import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.app.assembly import engine_referee
from referee.app.core import MatchSettings, TableCore
from referee.app.script import table_script
from referee.players import find_strategy
from referee.rules import find_rules
from referee.simulate import simulate_match
from referee.table.tableside import TableSide

CLOCKS: dict[str, dict[str, Any]] = {
    "italian": {"mode": "italian"},
    "fischer": {"mode": "fischer", "initial_seconds": 60.0, "increment_seconds": 3.0},
    "bronstein": {"mode": "bronstein", "initial_seconds": 60.0, "delay_seconds": 3.0},
    "byoyomi": {"mode": "byoyomi", "initial_seconds": 20.0, "period_seconds": 10.0, "periods": 3},
    "per-move": {"mode": "per-move", "period_seconds": 30.0},
}


def table(clock: dict[str, Any], rules: str = "italian") -> TableCore:
    settings = MatchSettings("t", rules, ("Ayşe", "Burak"), options={"target": 20}, clock=clock)
    return TableCore(settings, *engine_referee(settings))


def accepted(core: TableCore, kind: str, data: dict[str, Any], t: float) -> list[dict[str, Any]]:
    events = core.act(kind, data, t).events
    assert not any(e["event"] in ("refused", "error") for e in events), events
    return events


def opened() -> tuple[TableCore, TableSide]:
    """An italian match whose lead, Ayşe's 6-6, was laid at 4 s: Burak is on move."""
    core = table(CLOCKS["italian"])
    side = core.side
    assert side is not None
    accepted(core, "start", {}, 0.0)
    accepted(core, "lead", {"player": "Ayşe"}, 0.0)
    accepted(core, "placed", {"tile": "6-6"}, 4.0)
    return core, side


def test_an_undone_play_gives_the_mover_back_the_time_it_cost() -> None:
    core, side = opened()                                   # 4 s of 20: Ayşe's next move has 25 s
    accepted(core, "placed", {"tile": "6-2"}, 16.0)         # Burak took 12 s of his 20
    assert side.clock.standing["Burak"].main == 25.0 and core.turn() == "Ayşe"
    events = accepted(core, "undo", {}, 30.0)               # misread: 14 s later the manager undoes it
    assert events[0]["undone"]["play"] == "6-2"
    assert core.turn() == "Burak" and side.clock.on_move == "Burak"
    assert side.clock.standing["Burak"].main == 20.0 and side.clock.standing["Ayşe"].main == 25.0
    assert core.remaining(30.0) == 20.0 and core.remaining(33.5) == 16.5   # running again from 30 s
    assert core.view(30.0).clock_since == 30.0
    assert [timing.player for timing in side.timings] == ["Ayşe"]    # the undone move's timing is gone
    accepted(core, "placed", {"tile": "6-5"}, 32.0)         # read right: the move took 2 s
    assert side.timings[-1].used == 2.0 and side.clock.standing["Burak"].main == 25.0


def test_undoing_a_draw_keeps_the_turn_running_from_its_start() -> None:
    core, _ = opened()
    before = core.engine_boneyard()
    assert before is not None
    accepted(core, "boneyard", {"count": before - 1}, 9.0)  # Burak draws at 9 s
    accepted(core, "undo", {}, 11.0)                          # it was a hand passing over the boneyard
    assert core.engine_boneyard() == before
    assert core.remaining(11.0) == 13.0                     # his move still runs from 4 s


def moves_and_undo(draw: st.DrawFn) -> tuple[str, list[dict[str, Any]], int, float, float]:
    seed = draw(st.integers(0, 10_000))
    rules = find_rules("italian")({"target": 20})
    strategies = [find_strategy("greedy"), find_strategy("random")]
    _, record = simulate_match(rules, ["Ayşe", "Burak"], strategies, random.Random(seed))
    assert record is not None
    lines = table_script(record)
    quarters = st.integers(0, 28).map(lambda n: n / 4)   # exact binary fractions: times compare exactly
    t = 0.0
    for line in lines:                        # a move takes 0-14 s: no flag falls on the italian clock
        t += draw(quarters) / 2
        line["t"] = t
    moves = [n for n, line in enumerate(lines) if line["kind"] in ("placed", "pass") and n > 0]
    cut = draw(st.sampled_from(moves))
    later, again = draw(quarters), draw(quarters)
    return draw(st.sampled_from(sorted(CLOCKS))), lines, cut, later, again


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.composite(moves_and_undo)())
def test_play_then_undo_leaves_the_clocks_as_before(case: tuple[str, list[dict[str, Any]], int, float,
                                                                 float]) -> None:
    clock, lines, cut, later, again = case
    core = table(CLOCKS[clock])
    side = core.side
    assert side is not None
    for line in lines[:cut]:
        core.act(line["kind"], {k: v for k, v in line.items() if k not in ("kind", "t")}, line["t"])
    move = lines[cut]
    data = {k: v for k, v in move.items() if k not in ("kind", "t")}
    turn, on_move, running = core.turn(), side.clock.on_move, side.clock.turn_running
    standing, timings = copy.deepcopy(side.clock.standing), list(side.timings)
    engine = core.referee.snapshot()
    events = core.act(move["kind"], data, move["t"]).events
    if any(e["event"] in ("refused", "error") for e in events):   # e.g. a hand the table ended first
        return
    timed = side.timings[len(timings):]
    undo_t = move["t"] + later
    core.act("undo", {}, undo_t)
    # As before the move: the engine, every standing, the moves timed, who is on move ...
    assert core.referee.snapshot() == engine
    assert side.clock.standing == standing and side.timings == timings
    assert core.turn() == turn and side.clock.on_move == on_move and side.clock.turn_running == running
    if running:
        # ... and the move runs again from the undo: made `again` seconds later, it took that long.
        assert side.clock.elapsed(undo_t + again) == again
        core.act(move["kind"], data, undo_t + again)
        assert [(m.player, m.used) for m in side.timings[len(timings):]] == \
            [(m.player, again) for m in timed]


def test_undoing_an_away_gives_the_absence_back() -> None:
    core, side = opened()
    accepted(core, "away", {"player": "Burak"}, 6.0)
    assert side.absences.used["Burak"] == 1 and side.clock.paused
    accepted(core, "undo", {}, 7.0)                          # the wrong player's button
    assert side.absences.used["Burak"] == 0 and not side.absences.anyone_away and not side.clock.paused
    assert core.remaining(7.0) == 17.0                       # Burak's move still runs from 4 s
