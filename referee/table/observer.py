"""Wiring the table side into the rules engine through the `Referee` observer hook.

`TableObserver` follows every event the `Referee` judges (`before_event`, `after_event`,
`on_undo`, see `referee.referee`): it feeds them to a `TableSide`, turns a move that overran its
allowance into a derived `timeout` event, ends the match when an absence rule is broken
(`Match.forfeit`), and adds the table side's judgements to the engine's verdicts as findings.
`replay_with_table` is `replay` with the observer attached and a `table` section in the report:
timeouts, late returns, forfeits, leavers and their penalties, and the ledger entries.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from referee.events import RECORDED_ONLY, SCREENED_ACTIONS, is_table_event
from referee.referee import Observer, Referee, Verdict
from referee.rules import validate_options
from referee.table.tableside import SavedSide, TableSide, TableVerdict


class TableObserver(Observer):
    """The table side of one match, as a `Referee` observer."""

    def __init__(self, side: TableSide) -> None:
        self.side = side
        self.pending: TableVerdict | None = None
        self.derived: list[Mapping[str, Any]] = []
        # The table side as it was before each event the engine accepted, keyed by the length of
        # `Referee.accepted` with that event in it: an undo puts it back.
        self.before: dict[int, SavedSide] = {}
        self._saved: SavedSide | None = None
        self._accepted = 0
        # Whether the record has anything for the table side: times, table events, a clock.
        self.active = False

    @classmethod
    def for_record(cls, document: Mapping[str, Any]) -> TableObserver:
        rules = str(document.get("rules", ""))
        options = validate_options(rules, document.get("options", {}) or {})
        return cls(TableSide.for_record(document, options))

    # -- the hook --------------------------------------------------------------------------------

    def before_event(self, referee: Referee, event: Mapping[str, Any],
                     t: object) -> Sequence[Mapping[str, Any]]:
        self.pending = None
        if not isinstance(event, Mapping) or any(event is d for d in self.derived):
            return ()
        self._saved = self.side.saved(event)
        self.active = self.active or t is not None or is_table_event(event)
        side = self.side
        if "deal" in event:
            side.new_hand()
            return ()
        if is_table_event(event):
            already_over = side.over
            if "timeout" in event and side.clock.turn_running and side.clock.on_move is None \
                    and referee.turn is not None:
                side.clock.claim(referee.turn)   # judge the timeout against the mover's clock
            self.pending = side.handle(event)
            forfeit = self.pending.forfeit
            if forfeit is not None and not already_over:
                # The table side ends the match; the engine's own handling of `timeout` and
                # `leave` then finds it over.
                self._forfeit(referee, forfeit.player, forfeit.reason, forfeit.detail)
            return ()
        if SCREENED_ACTIONS.isdisjoint(event):
            return ()
        already_over = side.over
        self.pending = side.screen(event, on_move=referee.turn)
        forfeit = self.pending.forfeit if self.pending is not None else None
        if forfeit is None or already_over:
            return ()
        if forfeit.reason == "timeout":
            derived = {"player": forfeit.player, "timeout": True, "t": forfeit.t}
            self.derived.append(derived)
            self._forfeit(referee, forfeit.player, forfeit.reason, forfeit.detail)
            return (derived,)
        self._forfeit(referee, forfeit.player, forfeit.reason, forfeit.detail)
        return ()

    def after_event(self, referee: Referee, event: Mapping[str, Any], verdict: Verdict) -> None:
        accepted = len(referee.accepted)
        if accepted > self._accepted and self._saved is not None:
            self.before[accepted] = self._saved
        self._accepted = accepted
        if not isinstance(event, Mapping):
            return
        if any(event is d for d in self.derived):
            verdict.findings.append(f"{event['player']} ran out of time: the move clock's deadline was "
                                    f"{event['t']:g} s")
            return
        mine, self.pending = self.pending, None
        if mine is not None and mine.forfeit is not None and verdict.match_result is None \
                and referee.match.over:
            verdict.match_result = referee.match.result()  # the match ended at this event
        if mine is not None:
            if not mine.ok and verdict.ok and not RECORDED_ONLY.isdisjoint(event):
                # The engine records these events without effect, so the table side's refusal
                # (or the forfeit they caused) is the verdict.
                verdict.ok = False
                verdict.error = mine.error
                if referee.match.over:
                    verdict.match_result = referee.match.result()
            elif not mine.ok and verdict.ok and mine.forfeit is None and \
                    (not is_table_event(event) or ("timeout" in event and not self.side.over)):
                # A move the table side refuses (play waits for Continue, the player is away,
                # time going back) changes nothing: take it back. So does a `timeout` the move
                # clock contradicts (time was left, or another player was on move): only running
                # out of time loses (RULES.md, italian), and the engine would end an italian match.
                # (A timeout after a forfeit changes nothing in the engine either: left as it is,
                # since taking it back would replay the match without the observer's forfeit.)
                referee.undo()
                verdict.ok, verdict.error, verdict.points = False, f"table: {mine.error}", 0
                verdict.hand_result = verdict.match_result = None
                return
            elif not mine.ok:
                verdict.findings.append(f"table: {mine.error}")
            elif mine.note:
                verdict.findings.append(f"table: {mine.note}")
        if verdict.ok and not is_table_event(event) and not self.side.over:
            timing = self.side.accepted(event, on_move=None)
            if timing is not None and timing.allowance is not None:
                verdict.findings.append(f"clock: {timing.player} moved in {timing.used:g} s of "
                                        f"{timing.allowance:g} s; next move {timing.after.main:g} s")

    def on_undo(self, referee: Referee, event: Mapping[str, Any]) -> None:
        """The last accepted event was taken back: the table side goes back to how it was before
        it (the mover's clock standing, absences, seats). The caller that knows the undo's time
        restarts the turn then (`TableSide.restart_turn`)."""
        kept = len(referee.accepted)
        saved = self.before.get(kept + 1)
        for key in [key for key in self.before if key > kept]:
            del self.before[key]
        self._accepted = kept
        if saved is not None:
            self.side.restore(saved)

    def _forfeit(self, referee: Referee, player: str, reason: str, detail: str) -> None:
        seat = referee.seat_of(player)
        text = {"late-return": "came back late", "third-absence": "stepped away a third time",
                "left": "left the match", "timeout": "ran out of time"}.get(reason, reason)
        referee.match.forfeit(seat, f"{text} ({detail})" if detail else text)

    # -- the report ------------------------------------------------------------------------------

    def summary(self, referee: Referee) -> dict[str, Any]:
        return self.side.summary(seat_points(referee))


def seat_points(referee: Referee) -> dict[str, Fraction] | None:
    """Each seat's exact place points (a `turkish` match that is over), else None."""
    match = referee.match
    rank_points = getattr(match, "rank_points", None)
    if not match.over or rank_points is None:
        return None
    return {name: Fraction(rank_points[side]) for name, side in zip(match.players, match.sides, strict=True)}


def replay_table(document: Mapping[str, Any]) -> tuple[dict[str, Any], TableObserver, Any]:
    """`replay` of a record with the table side attached; the report gains a `table` section when
    the record has anything for it (times `t`, table-side events, a `clock`)."""
    from referee.record import replay_with_referee, validate_record

    validate_record(document)  # before reading its options and clock
    observer = TableObserver.for_record(document)
    observer.active = "clock" in document
    referee, report = replay_with_referee(document, (observer,))
    if observer.active:
        report["table"] = observer.summary(referee)
    return report, observer, referee


def replay_with_table(document: Mapping[str, Any]) -> dict[str, Any]:
    return replay_table(document)[0]


def format_table(table: Mapping[str, Any] | None) -> str:
    """The `table` section of a replay report, for people (nothing when there is none)."""
    if table is None:
        return ""
    lines = [f"clock: {table['clock']}, {len(table['moves'])} timed moves"]
    for timeout in table["timeouts"]:
        lines.append(f"timeout: {timeout['player']} at {timeout['t']:g} s ({timeout['detail']})")
    for late in table["late_returns"]:
        lines.append(f"late return: {late['player']} at {late['t']:g} s ({late['detail']})")
    forfeit = table.get("forfeit")
    if forfeit and forfeit["reason"] not in ("timeout", "late-return"):
        lines.append(f"forfeit: {forfeit['player']} ({forfeit['reason']}: {forfeit['detail']})")
    for name, count in table["absences"].items():
        lines.append(f"absences: {name} {count}")
    for leaver in table.get("leaving", []):
        kind = "left" if leaver["voluntary"] else "dropped out"
        lines.append(f"{leaver['player']} {kind} at {leaver['t']:g} s" +
                     (f": {leaver['penalty']} points" if leaver["penalty"] else ""))
    entries = table.get("ledger", [])
    if entries:
        lines.append("ledger: " + ", ".join(f"{e['player']} {e['role']} {e['points']}" for e in entries))
    return "".join(line + "\n" for line in lines)
