"""The link and the Scoreboard API over real ptys, against the emulator in its own thread."""

from __future__ import annotations

import queue
import time
from dataclasses import replace

import pytest

from firmware_bridge.emulator import Emulator
from firmware_bridge.link import Link, PortBusy, open_port
from firmware_bridge.protocol.codec import Beep, BeepPattern, ButtonPress, Frame, Heartbeat, SetScores
from firmware_bridge.protocol.session import LinkError, LinkState
from firmware_bridge.scoreboard import Scoreboard

from .conftest import FastClock, wait_until


def await_event(events: queue.Queue[str], kind: str, timeout: float = 2) -> bool:
    """True when `kind` comes within `timeout` (earlier events, like the first connect, are skipped)."""
    deadline = time.monotonic() + timeout
    while (left := deadline - time.monotonic()) > 0:
        try:
            if events.get(timeout=left) == kind:
                return True
        except queue.Empty:
            break
    return False


def test_scores_clock_message_and_leds_are_shown(scoreboard: Scoreboard) -> None:
    assert scoreboard.board_version == (1, 0)
    scoreboard.show_scores([12, -5, 101, 10000])
    scoreboard.run_clock(1, 75.3, running=False)
    scoreboard.leds(green=True, turn=1).wait(1)
    emulator = scoreboard.emulator
    assert emulator is not None
    assert emulator.text() == "  12|  -5| 101|----| 1.15|P2--"
    assert emulator.board.state.green and emulator.board.state.turn == frozenset({1})
    scoreboard.message("PASS", seconds=0).wait(1)
    assert emulator.text() == "PASS|    |    |    | 1.15|P2--"
    scoreboard.message("").wait(1)
    scoreboard.run_clock(0, 9.5, away=True).wait(1)
    assert emulator.text().startswith("  12|  -5| 101|----|")
    assert emulator.text().endswith("|P1 A")
    assert emulator.board.state == replace(scoreboard.state, tenths=95)


def test_board_counts_down_with_the_host_over_30_seconds() -> None:
    """30 s of match time on a clock running 5× faster: the board's countdown, which it keeps by
    itself from one SET_CLOCK, still agrees with the host's to within one tenth (100 ms)."""
    fast = FastClock(5)
    with Scoreboard("emulator://", clock=fast, emulator_options={"clock": fast}, connect_timeout=5) as board:
        start = fast()
        board.run_clock(2, 45.0).wait(1)
        fast.wait_until(start + 30)
        host_before = board.state.tenths
        reply = board.status()  # the board's count, taken between these two readings of the host's
        host_after = board.state.tenths
        assert host_after - 1 <= reply.tenths <= host_before + 1, (host_before, reply.tenths, host_after)
        assert 140 <= host_after <= 150  # 45 s - 30 s
        assert board.emulator is not None
        assert board.emulator.text().endswith("|P3  ")


def test_unplug_mid_match_is_resynced_within_2_s_and_nothing_is_lost(scoreboard: Scoreboard) -> None:
    emulator = scoreboard.emulator
    assert emulator is not None
    events: queue.Queue[str] = queue.Queue()
    scoreboard.on_link_event(lambda event: events.put(event.kind))
    scoreboard.show_scores([30, 45])
    scoreboard.run_clock(0, 50.0)
    scoreboard.leds(green=True, turn=0).wait(1)

    emulator.unplug()
    assert await_event(events, "disconnected")
    # The referee goes on while the board is away: these must reach it after the resync.
    scoreboard.show_scores([35, 45])
    scoreboard.message("P2 AWAY", seconds=0)
    beep = scoreboard.beep("warning")
    assert wait_until(lambda: scoreboard.state.tenths <= 497, 2)  # the clock runs on while unplugged
    emulator.replug()
    replugged = time.monotonic()
    assert await_event(events, "connected")
    assert beep.wait(2)
    resynced = time.monotonic() - replugged
    assert resynced < 2
    board_state, host_state = emulator.board.state, scoreboard.state
    assert board_state.scores == (35, 45) and board_state.message == "P2 AWAY"
    assert board_state.green and board_state.turn == frozenset({0}) and board_state.seat == 0
    assert abs(emulator.tenths_left() - scoreboard.state.tenths) <= 1
    assert host_state.tenths < 500
    assert [record.beep for record in emulator.beeps] == [Beep(BeepPattern.WARNING)]
    assert scoreboard.link.session.stats.reconnects == 1


def test_board_reset_with_the_port_open_is_noticed_and_resynced(scoreboard: Scoreboard) -> None:
    emulator = scoreboard.emulator
    assert emulator is not None
    scoreboard.show_scores([1, 2, 3]).wait(1)
    emulator.reset()
    assert emulator.board.state.scores == ()
    scoreboard.beep("ok").wait(2)  # answered NACK 6: handshake, SYNC, then the beep
    assert emulator.board.state.scores == (1, 2, 3)
    assert [record.beep for record in emulator.beeps] == [Beep()]
    assert scoreboard.link.session.stats.board_resets == 1


def test_beeps_are_sounded_when_sent_in_order_and_once(scoreboard: Scoreboard) -> None:
    emulator = scoreboard.emulator
    assert emulator is not None
    sent = []
    for name in ("ok", "warning", "error", "timeout", "match-end", "2x50/50@880"):
        before = time.monotonic()
        scoreboard.beep(name).wait(1)
        sent.append((name, before, time.monotonic()))
    records = emulator.beeps
    assert [str(record.beep) for record in records] == [name for name, _, _ in sent]
    for record, (_, before, acknowledged) in zip(records, sent, strict=True):
        assert before <= record.t <= acknowledged  # sounded between the call and its ACK


def test_a_dropped_ack_is_retried_and_the_beep_not_doubled(scoreboard: Scoreboard) -> None:
    emulator = scoreboard.emulator
    assert emulator is not None
    emulator.drop_answers(2)
    delivery = scoreboard.beep("error")
    assert delivery.wait(2) and delivery.reply is not None
    assert scoreboard.link.session.stats.retries == 2
    assert emulator.board.duplicates == 2
    assert [str(record.beep) for record in emulator.beeps] == ["error"]


def test_a_dropped_frame_is_retried(scoreboard: Scoreboard) -> None:
    emulator = scoreboard.emulator
    assert emulator is not None
    emulator.drop_incoming(1)
    assert scoreboard.show_scores([4, 4]).wait(2)
    assert emulator.board.state.scores == (4, 4)
    assert scoreboard.link.session.stats.retries == 1 and emulator.board.duplicates == 0


def test_garbage_from_the_board_is_skipped_and_counted(scoreboard: Scoreboard) -> None:
    emulator = scoreboard.emulator
    assert emulator is not None
    protocol = scoreboard.link.protocol
    emulator.send_raw(b"\x13\x37 line noise \xff\xfe\x00")
    emulator.send_raw(Frame(9, Heartbeat()).encode()[:-3] + b"\x00")  # a frame cut short
    assert scoreboard.show_scores([7]).wait(1)
    assert wait_until(lambda: protocol.garbage == 2, 1)
    assert scoreboard.connected


def test_garbage_to_the_board_is_nacked_and_the_link_carries_on(scoreboard: Scoreboard) -> None:
    emulator = scoreboard.emulator
    assert emulator is not None
    scoreboard.link.send_raw(b"\x05\x01\x02\x03\x04\x00")  # bad CRC
    scoreboard.link.send_raw(b"\x02\xff" * 40 + b"\x00")  # too long
    assert scoreboard.status().garbage_frames == 2
    assert scoreboard.show_scores([8, 9]).wait(1)
    assert emulator.board.state.scores == (8, 9)


def test_buttons_reach_the_callback_once_even_when_the_ack_is_lost(scoreboard: Scoreboard) -> None:
    emulator = scoreboard.emulator
    assert emulator is not None
    presses: queue.Queue[ButtonPress] = queue.Queue()
    scoreboard.on_button(presses.put)
    emulator.press("start")
    assert presses.get(timeout=1) == ButtonPress("start")
    emulator.drop_incoming(1)  # the host's ACK is lost: the board resends after 100 ms
    emulator.press("done-2", held=True)
    assert presses.get(timeout=1) == ButtonPress("done-2", held=True)
    assert emulator.wait_for(lambda board: board.button_resends == 1, 1)
    assert scoreboard.link.session.stats.duplicates == 1
    with pytest.raises(queue.Empty):
        presses.get(timeout=0.2)


def test_the_port_is_locked_against_a_second_program() -> None:
    with Emulator() as emulator, Link(emulator.url) as link:
        assert link.wait_connected(2)
        with pytest.raises(PortBusy, match="another program is using the scoreboard port"):
            open_port(emulator.url, 115200)


def test_a_missing_port_keeps_the_referee_running_until_it_appears(tmp_path: object) -> None:
    emulator = Emulator()
    url = emulator.url
    with Link(url, reconnect_interval=0.02) as link:
        assert not link.wait_connected(0.1)
        assert isinstance(link.last_error, LinkError) and "No such file" in str(link.last_error)
        delivery = link.send(SetScores((1,)))
        assert delivery.superseded  # the SYNC after connecting carries it
        with emulator:
            assert link.wait_connected(2)
    assert link.state == LinkState.DISCONNECTED


def test_socket_urls_work_too() -> None:
    """Any pyserial URL: here loop:// echoes our own frames, which the session ignores as stale."""
    with Link("loop://", retries=0, reconnect_interval=0.05) as link:
        assert not link.wait_connected(0.3)
        assert link.session.stats.stale_answers >= 1  # it read its own HELLO back


def test_heartbeats_keep_a_quiet_board_from_showing_no_host() -> None:
    """Heartbeats every 50 ms here (1 s in service) reach the board, which would show `no HoSt` after
    200 ms of silence; after the host closes, it does."""
    with Emulator(no_host_after=0.2) as emulator:
        with Link(emulator.url, heartbeat_interval=0.05) as link:
            assert link.wait_connected(2)
            heard = emulator.wait_for(
                lambda board: sum(isinstance(f.message, Heartbeat) for f in board.applied) >= 6, 2)
            assert heard and not emulator.text().startswith("no H")
        assert wait_until(lambda: emulator.text().startswith("no H|oSt "), 2)
