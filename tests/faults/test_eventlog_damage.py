"""A damaged or shortened event log is refused, never resumed from; no `seq` is handed out twice.

Each log here is the files a `kill -9` leaves mid-match (the WAL not checkpointed), then damaged
the way the issue found: the WAL deleted, the main file cut to 0 bytes, the WAL half-truncated or
overwritten with random bytes, plus a row edited, another log copied over it and the whole log
lost. Before, each of these opened silently (a new match, or an earlier input, with the same seq
numbers handed out again with different payloads).
"""

from __future__ import annotations

import json
import os
import random
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
import tomli_w

from referee.app.eventlog import EventLog, EventLogDamaged

from .kit import RULES, SETTINGS, Table, crash_copy, file_bytes, logged, match_lines

ROOT = Path(__file__).resolve().parents[2]
LINES = match_lines()
PLAYED = 12   # inputs fed before the "crash"


@pytest.fixture(scope="module")
def crashed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A log as a kill -9 leaves it after `PLAYED` inputs (a pristine copy per test)."""
    directory = tmp_path_factory.mktemp("crashed")
    table = Table(directory / "live" / "events.sqlite").start()
    table.feed(LINES[:PLAYED])
    path = crash_copy(table.log_path, directory / "copy")
    (directory / "accepted.json").write_text(json.dumps(logged(table.log)))
    table.stop()
    assert path.with_name(path.name + "-wal").stat().st_size > 0   # the rows are still in the WAL
    return path


def fresh(crashed: Path, tmp_path: Path) -> Path:
    return crash_copy(crashed, tmp_path / "data")


def wal(path: Path) -> Path:
    return path.with_name(path.name + "-wal")


def delete_wal(path: Path) -> None:
    wal(path).unlink()


def cut_main(path: Path) -> None:
    path.write_bytes(b"")


def halve_wal(path: Path) -> None:
    size = wal(path).stat().st_size
    os.truncate(wal(path), size // 2)


def random_wal(path: Path) -> None:
    size = wal(path).stat().st_size
    wal(path).write_bytes(random.Random(1).randbytes(size))


def random_middle_of_wal(path: Path) -> None:
    data = bytearray(wal(path).read_bytes())
    middle = len(data) // 2
    data[middle:middle + 4096] = random.Random(2).randbytes(4096)
    wal(path).write_bytes(bytes(data))


def lose_everything_but_the_mark(path: Path) -> None:
    path.unlink()
    wal(path).unlink()


DAMAGE: dict[str, Callable[[Path], None]] = {
    "WAL deleted": delete_wal, "main file cut to 0 bytes": cut_main, "WAL half-truncated": halve_wal,
    "WAL overwritten with random bytes": random_wal, "random bytes in the WAL's middle": random_middle_of_wal,
    "the log lost, its high-water file kept": lose_everything_but_the_mark,
}


def test_the_crashed_log_itself_resumes_exactly(crashed: Path, tmp_path: Path) -> None:
    """No false alarm: an undamaged kill -9 log resumes where it was."""
    table = Table(fresh(crashed, tmp_path)).start()
    assert table.service.core is not None
    accepted = json.loads((crashed.parents[1] / "accepted.json").read_text())
    assert [[kind, data] for kind, data in logged(table.log)] == accepted
    assert max(data["line"] for _, data in logged(table.log)) == PLAYED
    table.stop()


@pytest.mark.parametrize("damage", DAMAGE, ids=list(DAMAGE))
def test_a_damaged_log_is_refused_naming_the_file_and_kept_as_it_was(crashed: Path, tmp_path: Path,
                                                                       damage: str) -> None:
    path = fresh(crashed, tmp_path)
    DAMAGE[damage](path)
    before = file_bytes(path.parent)
    with pytest.raises(EventLogDamaged) as refused:
        EventLog(path)
    message = str(refused.value)
    assert str(path) in message and "--new-log" in message and "not changed" in message
    assert file_bytes(path.parent) == before          # nothing written, nothing deleted


def test_an_edited_row_breaks_the_hash_chain(crashed: Path, tmp_path: Path) -> None:
    path = fresh(crashed, tmp_path)
    with sqlite3.connect(path) as db:   # someone "fixes" a play by hand
        seq = db.execute("SELECT seq FROM inputs WHERE kind = 'placed' ORDER BY seq LIMIT 1").fetchone()[0]
        db.execute("UPDATE inputs SET data = json_set(data, '$.tile', '0-0') WHERE seq = ?", (seq,))
    with pytest.raises(EventLogDamaged, match=f"hash chain breaks at input {seq}"):
        EventLog(path)


def test_another_log_copied_over_it_is_refused(crashed: Path, tmp_path: Path) -> None:
    path = fresh(crashed, tmp_path)
    other = Table(tmp_path / "other" / "events.sqlite").start()
    other.feed(LINES[:PLAYED + 3])
    other.stop()
    for suffix in ("", "-wal"):
        wal_or_main = path.with_name(path.name + suffix)
        wal_or_main.unlink(missing_ok=True)
    (tmp_path / "other" / "events.sqlite").replace(path)
    with pytest.raises(EventLogDamaged, match="another log was copied over it"):
        EventLog(path)


@pytest.mark.parametrize("damage", ["WAL half-truncated", "the log lost, its high-water file kept"])
def test_a_new_log_keeps_the_damaged_one_and_never_reuses_a_seq(crashed: Path, tmp_path: Path,
                                                                  damage: str) -> None:
    path = fresh(crashed, tmp_path)
    with sqlite3.connect(f"file:{crashed}?mode=ro", uri=True) as db:
        old_inputs = db.execute("SELECT MAX(seq) FROM inputs").fetchone()[0]
        old_events = {row[0]: row[1] for row in db.execute("SELECT seq, payload FROM outbox")}
    DAMAGE[damage](path)
    before = file_bytes(path.parent)
    table = Table(path, new_log=True).start()
    assert table.service.core is None                  # nothing resumed: press Start
    assert table.log.set_aside is not None
    kept = {name: data for name, data in file_bytes(path.parent).items() if ".damaged-" in name}
    damaged = [data for name, data in before.items() if name != "events.sqlite.seq"]
    assert sorted(kept.values()) == sorted(damaged)
    table.feed(LINES[:5])
    new_inputs = [i.seq for i in table.log.inputs(table.service.match_id)]
    assert min(new_inputs) > old_inputs
    new_events = {event["seq"]: event for event in table.log.events()}
    assert min(new_events) > max(old_events)           # an old subscriber never sees a seq twice
    assert table.service.match_id > 1                  # nor a record's match-N.json overwritten
    table.stop()


def test_run_refuses_a_damaged_log_on_one_line_then_starts_anew_with_new_log(crashed: Path,
                                                                             tmp_path: Path) -> None:
    path = fresh(crashed, tmp_path)
    delete_wal(path)
    config = tmp_path / "table.toml"
    config.write_text(tomli_w.dumps({
        "table": {"id": SETTINGS.table_id, "rules": RULES, "players": list(SETTINGS.players),
                  "options": dict(SETTINGS.options)},
        "scoreboard": {"enabled": False}, "gpio": {"enabled": False},
        "mqtt": {"enabled": False}, "web": {"enabled": False},
        "storage": {"data_dir": str(path.parent)}}))
    script = tmp_path / "script.jsonl"
    script.write_text("".join(json.dumps(line) + "\n" for line in LINES[:4]))
    command = [sys.executable, "-m", "referee.app.cli", "run", "--config", str(config), "--inputs",
               str(script), "--progress"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    refused = subprocess.run(command, capture_output=True, text=True, timeout=60, env=env)
    assert refused.returncode == 1
    assert refused.stderr.count("\n") == 1 and "Traceback" not in refused.stderr
    assert f"event log {str(path)!r} is damaged" in refused.stderr and "--new-log" in refused.stderr
    process = subprocess.Popen([*command, "--new-log"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, env=env)
    assert process.stdout is not None
    seen: list[str] = []
    for text in process.stdout:   # the note, ready, then one progress line per script line
        seen.append(text.strip())
        if text.startswith("{") and json.loads(text).get("line") == 4:
            break
    process.terminate()
    assert process.wait(timeout=30) == 0
    assert seen[0].startswith("# the damaged event log was kept as events.sqlite.damaged-")
    assert json.loads(seen[1]) == {"ready": True, "resumed": False, "skip_through": 0}
    assert [json.loads(line)["line"] for line in seen[2:]] == [1, 2, 3, 4]
    assert list(path.parent.glob("events.sqlite.damaged-*"))
