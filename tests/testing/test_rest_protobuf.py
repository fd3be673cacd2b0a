"""The REST harness's reading of protobuf query rows: Java TextFormat text, map entries in any order."""

from __future__ import annotations

from ksqlpy.serde.protobuf_schema import parse_proto
from ksqlpy.testing.rest_protobuf import text_diff, to_text

PROTO = ('syntax = "proto3";\nmessage ConnectDefault1 {\n  int64 ID = 1;\n  string S = 2;\n  bytes B = 3;\n'
         '  double D = 4;\n  repeated ConnectDefault2Entry M = 5;\n  repeated ConnectDefault3 A = 6;\n'
         '  message ConnectDefault2Entry {\n    string key = 1;\n    int32 value = 2;\n  }\n'
         '  message ConnectDefault3 {\n    string K = 1;\n  }\n}\n')


def test_text_format_like_javas() -> None:
    file = parse_proto(PROTO)
    msg = file.messages[0]
    values = {"ID": 0, "S": 'a"b\n\u00e9', "B": b"!\x00", "D": 1e10,
              "M": [{"key": "q", "value": 0}, {"key": "d", "value": 4}], "A": [{"K": "x"}, {"K": ""}]}
    assert to_text(file, msg, values) == (
        'S: "a\\"b\\n\\303\\251"\nB: "!\\000"\nD: 1.0E10\n'  # proto3 defaults (ID 0) are left out
        'M {\n  key: "q"\n}\nM {\n  key: "d"\n  value: 4\n}\nA {\n  K: "x"\n}\nA {\n}\n')


def test_map_entries_compare_in_any_order_arrays_do_not() -> None:
    file = parse_proto(PROTO)
    schemas = {"file": file, "message": file.messages[0]}
    a = 'ID: 1\nM {\n  key: "q"\n}\nM {\n  key: "d"\n  value: 4\n}\n'
    b = 'ID: 1\nM {\n  key: "d"\n  value: 4\n}\nM {\n  key: "q"\n}\n'
    assert text_diff(a, b, schemas) is None
    assert text_diff(a, b.replace("value: 4", "value: 5"), schemas) is not None
    assert text_diff('A {\n  K: "x"\n}\nA {\n  K: "y"\n}\n', 'A {\n  K: "y"\n}\nA {\n  K: "x"\n}\n', schemas)
