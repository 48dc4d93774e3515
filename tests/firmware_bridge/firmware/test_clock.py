"""The board counts the clock down by itself, in step with the host's wall clock; it blinks a
warning, and shows `no HoSt` when the host falls silent."""

from __future__ import annotations

import itertools

from firmware_bridge.display import DisplayState, layout
from firmware_bridge.protocol.codec import Ack, Heartbeat, SetClock, SetScores, Status, StatusReply
from firmware_bridge.scoreboard import Scoreboard
from firmware_bridge.simavr import DisplayShown, SimulatedBoard
from tests.firmware_bridge.firmware.driver import Driver

NO_HOST = [cell.segments for cell in layout(DisplayState(), message="no HoSt")][:16]


def clock_digits(shown: DisplayShown) -> str:
    return "".join(str(cell) for cell in shown.cells[16:20])


def shows_no_host(shown: DisplayShown) -> bool:
    return list(shown.segments[:16]) == NO_HOST


def test_the_countdown_stays_within_100_ms_of_the_host_over_30_s(board: SimulatedBoard) -> None:
    with Scoreboard(board.port) as scoreboard:
        assert scoreboard.connected
        scoreboard.show_scores([120, 95])
        scoreboard.run_clock(0, 300.0).wait(1.0)  # 5:00, counted down on the board
        _, origin, _ = scoreboard._snapshot  # the host's moment of the clock start
        # 4.29 appears when 2700 tenths are gone and the 2699th starts: 30.1 s after the start
        shown = board.wait_display(lambda s: clock_digits(s) == " 4.29", 35.0)
        lag = shown.wall - (origin + 30.1)
        status = scoreboard.status()
        host_tenths = scoreboard.state.tenths
        assert abs(lag) < 0.1, f"board display {lag * 1000:+.1f} ms off the host's clock after 30 s"
        assert abs(status.tenths - host_tenths) <= 1, (status.tenths, host_tenths)
        assert status.flags & 1, "the clock stopped running"
        assert scoreboard.link.session.stats.heartbeats >= 20
    assert not any(shows_no_host(shown) for shown in board.displays), "heartbeats did not keep the host"


def blink_edges(board: SimulatedBoard) -> tuple[list[int], list[int]]:
    """Simulated times at which the clock digits went blank, and came back, after first showing."""
    edges: list[tuple[int, bool]] = []
    for shown in board.displays:
        blank = clock_digits(shown) == "    "
        if (edges or not blank) and (not edges or edges[-1][1] != blank):
            edges.append((shown.sim_us, blank))
    return [sim for sim, blank in edges if blank], [sim for sim, blank in edges[1:] if not blank]


def test_the_warning_blinks_250_ms_on_250_ms_off(host: Driver, board: SimulatedBoard) -> None:
    host.handshake()
    assert host.request(SetClock(1, 95, running=True, warning=True)).message == Ack()
    assert board.wait_for(lambda b: len(blink_edges(b)[0]) >= 4, 3.0)
    blanks, shows = blink_edges(board)
    periods = [(later - earlier) / 1000 for earlier, later in itertools.pairwise(blanks)]
    assert all(abs(period - 500) <= 11 for period in periods), periods  # a display update takes <= 10 ms
    off_times = [(show - blank) / 1000 for blank, show in zip(blanks, shows, strict=False)]
    assert all(abs(off - 250) <= 11 for off in off_times), off_times


def test_no_host_after_3_s_of_silence_and_back_on_the_next_frame(host: Driver, board: SimulatedBoard) -> None:
    host.handshake()
    assert host.request(SetScores((21, 7))).message == Ack()
    # the scores reach the digits within a millisecond of the frame: the board's last valid frame
    last = board.wait_display([cell.segments for cell in layout(DisplayState(scores=(21, 7)))], 1.0)
    shown = board.wait_display(shows_no_host, 4.0)
    assert 2.99 <= (shown.sim_us - last.sim_us) / 1e6 <= 3.01
    assert board.display_text().startswith("no H|o5t |")  # on seven segments an S is a 5
    assert host.request(Heartbeat()).message == Ack()
    board.wait_display([cell.segments for cell in layout(DisplayState(scores=(21, 7)))], 1.0)
    reply = host.request(Status()).message
    assert isinstance(reply, StatusReply) and reply.uptime_s >= 3


def test_drift_is_how_far_the_simulation_fell_behind_the_wall_clock_and_caught_up() -> None:
    board = SimulatedBoard()                     # not started: fed the harness's lines directly
    assert board.drift() == 0.0
    board._parse("TIME 1000000 101.000000")
    board._parse("TIME 2000000 102.000000")      # keeping pace
    assert board.drift() == 0.0
    board._parse("TIME 3000000 103.400000")      # starved: 0.4 s behind
    board._parse(f"DISPLAY 3500000 103.900000 {'00' * 24} |{' ' * 24}|")
    board._parse("TIME 4000000 104.100000")      # caught up to 0.1 s
    assert abs(board.drift() - 0.4) < 1e-6
