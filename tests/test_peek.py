"""Peek.objects: the head's objects, parsed only as far as a sniffer asks."""

from __future__ import annotations

from sts.peek import MAX_RECORDS, Peek

HEAD = b'{"a":1}\n[1]\nnot json\n{"b":2}\n\n{"c":3}\n{"cut":'


def test_objects_leave_out_non_objects_bad_lines_and_the_cut_last_line():
    objects = Peek(HEAD, "x.jsonl", complete=False).objects
    assert list(objects) == [{"a": 1}, {"b": 2}, {"c": 3}]
    assert len(objects) == 3 and objects[-1] == {"c": 3} and objects[1:] == [{"b": 2}, {"c": 3}]


def test_a_complete_input_keeps_its_last_line():
    assert list(Peek(b'{"a":1}\n{"b":2}', None, complete=True).objects) == [{"a": 1}, {"b": 2}]


def test_parsing_stops_where_the_sniffer_stops():
    objects = Peek(HEAD, None, complete=False).objects
    assert objects[0] == {"a": 1}
    assert objects._parsed == [{"a": 1}]
    assert next(iter(objects)) == {"a": 1} and len(objects._parsed) == 1
    assert objects[:2] == [{"a": 1}, {"b": 2}] and len(objects._parsed) == 2


def test_at_most_max_records_are_parsed():
    data = b"".join(b'{"n":%d}\n' % i for i in range(MAX_RECORDS + 10))
    objects = Peek(data, None, complete=True).objects
    assert len(objects) == MAX_RECORDS


def test_an_empty_head_has_no_objects():
    objects = Peek(b"", None, complete=True).objects
    assert not objects and list(objects) == []
