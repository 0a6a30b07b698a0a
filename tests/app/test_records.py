"""Game records: reading, writing line by line, bundled records."""

from __future__ import annotations

import json

import pytest

from tabletop.errors import RecordError
from tabletop.records import (
    GameRecord,
    RecordEntry,
    RecordHeader,
    RecordWriter,
    bundled_record,
    bundled_record_names,
    parse_record,
    read_record,
)

TEXT = (
    '{"game": "oneworld", "options": {"god_lives": 2}, "comment": "a test"}\n'
    "\n"
    '{"action": {"type": "end-movement", "side": "borg"}, '
    '"rolls": [4, 1], "comment": "two rolls"}\n'
    '{"action": {"type": "move", "piece": "B1", "to": "0703"}}\n'
)


def test_parse_reads_header_and_entries_with_file_line_numbers():
    record = parse_record(TEXT, "t.jsonl")
    assert record.header == RecordHeader("oneworld", {"god_lives": 2}, None, "a test")
    assert record.entries == (
        RecordEntry(3, {"type": "end-movement", "side": "borg"}, (4, 1), "two rolls"),
        RecordEntry(4, {"type": "move", "piece": "B1", "to": "0703"}),
    )
    assert record.source == "t.jsonl"


def test_lines_round_trip():
    record = parse_record(TEXT)
    again = parse_record("\n".join(record.lines()))
    assert again.header == record.header
    assert [(e.action, e.rolls, e.comment) for e in again.entries] == [
        (e.action, e.rolls, e.comment) for e in record.entries
    ]


def test_header_without_options_gets_empty_options():
    assert parse_record('{"game": "oneworld"}').header.options == {}
    assert parse_record('{"game": "oneworld", "options": null}').header.options == {}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "<record>: line 1: the record is empty"),
        ("\n\n", "<record>: line 1: the record is empty"),
        ('\n{"game": 1}', "<record>: line 2: game: expected a game name"),
        ('{"game": "x", "comment": 3}', "<record>: line 1: comment: expected a string"),
        (
            '{"game": "x"}\n{"action": 1, "comment": []}',
            "<record>: line 2: comment: expected a string",
        ),
        ('{"game": "x"}\n"move"', "<record>: line 2: an entry must be a JSON object"),
        (
            '{"game": "x"}\n{"action": 1, "rolls": [true]}',
            "<record>: line 2: rolls[0]: a roll must be a whole number, got True",
        ),
        (
            '{"game": "x"}\n{"action": 1, "rolls": [2.5]}',
            "<record>: line 2: rolls[0]: a roll must be a whole number, got 2.5",
        ),
    ],
)
def test_parse_errors_name_the_line(text, message):
    with pytest.raises(RecordError) as caught:
        parse_record(text)
    assert str(caught.value).startswith(message)


def test_writer_flushes_every_line_before_it_is_closed(tmp_path):
    path = tmp_path / "live.jsonl"
    writer = RecordWriter(path, RecordHeader("oneworld", {"god_lives": 3}))
    assert writer.append({"type": "end-movement", "side": "chez"}, [5]) == 2
    # Another reader (or the next run, after a crash) already sees both lines.
    record = read_record(path)
    assert record.header.game == "oneworld"
    assert [(e.line, e.rolls) for e in record.entries] == [(2, (5,))]
    assert writer.append({"type": "end-movement", "side": "borg"}, comment="no rolls") == 3
    writer.close()
    lines = path.read_text(encoding="utf-8").splitlines()
    assert json.loads(lines[-1]) == {
        "action": {"type": "end-movement", "side": "borg"},
        "comment": "no rolls",
    }


def test_writer_refuses_to_overwrite_unless_told(tmp_path):
    path = tmp_path / "game.jsonl"
    path.write_text("precious\n", encoding="utf-8")
    with pytest.raises(FileExistsError):
        RecordWriter(path, RecordHeader("oneworld"))
    assert path.read_text(encoding="utf-8") == "precious\n"
    with RecordWriter(path, RecordHeader("oneworld"), overwrite=True, sync=False) as writer:
        writer.append({"type": "end-movement", "side": "borg"})
    assert read_record(path).header.game == "oneworld"


def test_a_closed_writer_refuses_more_lines(tmp_path):
    writer = RecordWriter(tmp_path / "g.jsonl", RecordHeader("oneworld"))
    writer.close()
    writer.close()  # closing twice is harmless
    with pytest.raises(ValueError, match="closed"):
        writer.append({"type": "end-movement", "side": "borg"})


def test_header_with_position_is_written_and_read_back(tmp_path):
    header = RecordHeader("oneworld", {}, {"phase": "movement"}, "from a photo")
    with RecordWriter(tmp_path / "p.jsonl", header) as _:
        pass
    assert read_record(tmp_path / "p.jsonl").header == header


def test_bundled_records_are_found_as_package_data():
    assert "oneworld" in bundled_record_names()
    record = bundled_record("oneworld")
    assert isinstance(record, GameRecord)
    assert record.header.game == "oneworld"
    assert record.source == "oneworld.jsonl (bundled)"


def test_unknown_bundled_record():
    with pytest.raises(RecordError, match="no bundled record for 'nope'"):
        bundled_record("nope")


def test_an_undo_line_takes_back_the_last_action_standing():
    text = "\n".join([  # noqa: FLY002 (one record line a row)
        '{"game": "wormholes"}',
        '{"action": {"type": "a"}}',
        '{"action": {"type": "b"}, "rolls": [4]}',
        '{"undo": {"type": "b"}, "comment": "undone: b"}',
        '{"action": {"type": "c"}}',
    ])
    record = parse_record(text)
    assert [(e.line, e.action) for e in record.entries] == [(2, {"type": "a"}), (5, {"type": "c"})]


@pytest.mark.parametrize("text, message", [
    ('{"game": "x"}\n{"undo": {"type": "a"}}', "line 2: undo: there is no action to take back"),
    ('{"game": "x"}\n{"action": {"type": "a"}}\n{"undo": {"type": "b"}}',
     'line 3: undo: takes back {"type": "b"}, but the last action standing (line 2) is {"type": "a"}'),
    ('{"game": "x"}\n{"action": 1}\n{"undo": 1, "rolls": [2]}', "line 3: rolls"),
])
def test_a_wrong_undo_line_is_named(text: str, message: str) -> None:
    with pytest.raises(RecordError) as err:
        parse_record(text)
    assert message in str(err.value)
