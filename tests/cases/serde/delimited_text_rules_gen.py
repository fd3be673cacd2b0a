"""DELIMITED records as ksqlDB's KsqlDelimitedDeserializer/Serializer read and write them (commons-csv with the
source's delimiter; reference 4.3): a field may be quoted (a doubled quote inside is one quote), so it can hold the
delimiter; blanks around a field are kept (a quoted field only after its closing quote is blank-tolerant); an empty
field is NULL for every type, STRING included; BOOLEAN is Boolean.parseBoolean (``true`` in any case, anything else
false); INT/BIGINT Integer.parseInt/Long.parseLong (no blanks), DOUBLE Double.parseDouble (blanks trimmed); a record
of the wrong field count, or a field its parser refuses, is dropped (processing log). Writing: NULL is an empty
unquoted field; a field is quoted when it holds the delimiter, a quote or a line break, starts with a character up
to ``#`` or ends with one up to a blank, and the first field also when it is empty or starts with anything but an
ASCII letter or digit (commons-csv's MINIMAL quoting); DOUBLE as Double.toString. Our own cases.

Writes tests/cases/serde/delimited-text-rules.json: ``python tests/cases/serde/delimited_text_rules_gen.py``.
"""
import json
import pathlib


def rec(topic: str, key: str, value: object) -> dict[str, object]:
    return {"topic": topic, "key": key, "value": value}


def round_trip(name: str, delim_prop: str, pairs: list[tuple[str, str | None]]) -> dict[str, object]:
    """A DELIMITED stream copied to a DELIMITED sink of the same delimiter: each input's written text (None: dropped)."""
    with_delim = f", value_delimiter='{delim_prop}'" if delim_prop else ""
    return {
        "name": name,
        "statements": [
            f"CREATE STREAM S (K STRING KEY, A STRING, B INT, C DOUBLE, D BOOLEAN) WITH (kafka_topic='s', "
            f"value_format='DELIMITED'{with_delim});",
            f"CREATE STREAM O WITH (kafka_topic='o', value_format='DELIMITED'{with_delim}) AS SELECT * FROM S;",
        ],
        "inputs": [rec("s", str(i), text) for i, (text, _) in enumerate(pairs)],
        "outputs": [rec("o", str(i), out) for i, (_, out) in enumerate(pairs) if out is not None],
    }


COMMA = [
    ('"x,y",1,1.5,true', '"x,y",1,1.5,true'),
    ('"say ""hi""",2,2,TRUE', '"say ""hi""",2,2.0,true'),
    (",,,", ",,,"),
    ('"",3,-0.0,yes', ",3,-0.0,false"),
    ("a,  4,1,true", None),             # Integer.parseInt refuses blanks
    ("a,5, 2.5 ,True", "a,5,2.5,true"),  # Double.parseDouble trims them
    ("a,6,1", None),                     # too few fields
    ("a,7,1,true,extra", None),          # too many
    (" lead,8,1e10,false", '" lead",8,1.0E10,false'),
    ("#x,9,0.001,tRuE", '"#x",9,0.001,true'),
    ("tail ,10,1,1", '"tail ",10,1.0,false'),
    ('"q" ,11,1,true', "q,11,1.0,true"),  # blanks after a closing quote
    ('a"b,12,1,true', '"a""b",12,1.0,true'),  # a quote inside an unquoted field is text, quoted on write
    ("1st,13,1e-5,true", "1st,13,1.0E-5,true"),
    ("-1,14,1,true", '"-1",14,1.0,true'),
]

TAB = [
    ("a,b\tc d", None),  # two fields for four columns
    ("a,b\t1\t2.5\ttrue", "a,b\t1\t2.5\ttrue"),
    ('"x\ty"\t2\t1\tfalse', '"x\ty"\t2\t1.0\tfalse'),
    ("x y\t3\t\t", "x y\t3\t\t"),
]
SPACE = [
    ('"a b" 1 1 true', '"a b" 1 1.0 true'),
    ("a,b 2 1e7 false", "a,b 2 1.0E7 false"),
    ('x 3  ', "x 3  "),
]
PIPE = [
    ('"a|b"|1|0.5|true', '"a|b"|1|0.5|true'),
    ("a,b|2||", "a,b|2||"),
]

ALL_TYPES = {
    "name": "an empty field is NULL for every type; each type's text read by its Java parser",
    "statements": [
        "CREATE STREAM S (K STRING KEY, I INT, L BIGINT, D DOUBLE, M DECIMAL(4, 2), B BOOLEAN, S STRING, Y BYTES, "
        "DT DATE, T TIME, TS TIMESTAMP) WITH (kafka_topic='s', value_format='DELIMITED');",
        "CREATE STREAM O WITH (kafka_topic='o', value_format='JSON') AS SELECT * FROM S;",
    ],
    "inputs": [
        rec("s", "empty", ",,,,,,,,,"),
        rec("s", "full", "+1,-2,3.5e0,1.1,TRUE,s,AQI=,5,1000,123"),
        rec("s", "quoted", '"7","8","9","0.25","false","","AQID","6","2000","456"'),
    ],
    "outputs": [
        rec("o", "empty", {"I": None, "L": None, "D": None, "M": None, "B": None, "S": None, "Y": None, "DT": None,
                           "T": None, "TS": None}),
        # (a DECIMAL's expected value as text: compared with its scale)
        rec("o", "full", {"I": 1, "L": -2, "D": 3.5, "M": "1.10", "B": True, "S": "s", "Y": "AQI=", "DT": 5, "T": 1000,
                          "TS": 123}),
        rec("o", "quoted", {"I": 7, "L": 8, "D": 9.0, "M": "0.25", "B": False, "S": None, "Y": "AQID", "DT": 6,
                            "T": 2000, "TS": 456}),
    ],
}

TESTS = [
    round_trip("comma: quoting, blanks, BOOLEAN text, field counts, DOUBLE text", "", COMMA),
    round_trip("TAB delimiter: a comma is text, a tab inside a quoted field", "TAB", TAB),
    round_trip("SPACE delimiter: a field holding a blank is quoted", "SPACE", SPACE),
    round_trip("'|' delimiter", "|", PIPE),
    ALL_TYPES,
]

if __name__ == "__main__":
    out = pathlib.Path(__file__).with_name("delimited-text-rules.json")
    doc = (__doc__ or "").split("\n\n")[0].replace("\n", " ")
    out.write_text(json.dumps({"comments": [doc], "tests": TESTS}, indent=1) + "\n")
