"""Functions, properties and custom types belong to one engine (ksqlpy.session_state), never to the process."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from ksqlpy.engine import Engine
from ksqlpy.errors import KsqlError
from ksqlpy.functions import builtin_registry
from ksqlpy.functions.signatures import udf
from ksqlpy.types import STRING

SHOUT = udf("SHOUT", description="Upper case with an exclamation mark.",
            overloads=[("STRING", "STRING", lambda s: s.upper() + "!")])


def _engine(tmp_path: Path, name: str) -> Engine:
    return Engine(str(tmp_path / name), {"auto.offset.reset": "earliest"})


def test_a_function_registered_in_one_engine_is_unknown_to_another(tmp_path: Path) -> None:
    with _engine(tmp_path, "a") as a, _engine(tmp_path, "b") as b:
        a.functions.register(SHOUT)
        for e in (a, b):
            e.execute("CREATE STREAM S (K STRING KEY, V STRING) WITH (KAFKA_TOPIC='s', VALUE_FORMAT='JSON', "
                      "PARTITIONS=1);")
        a.execute("CREATE STREAM OUT AS SELECT K, SHOUT(V) AS V FROM S;")
        with pytest.raises(KsqlError, match="SHOUT"):
            b.execute("CREATE STREAM OUT AS SELECT K, SHOUT(V) AS V FROM S;")
        assert "SHOUT" not in builtin_registry().scalars
        names = {f["name"] for f in b.execute("SHOW FUNCTIONS;")[0].data}
        assert "SHOUT" not in names and "SHOUT" in {f["name"] for f in a.execute("SHOW FUNCTIONS;")[0].data}


def test_the_session_state_carries_statement_properties_and_custom_types(tmp_path: Path) -> None:
    with _engine(tmp_path, "a") as e:
        e.execute("CREATE TYPE ADDRESS AS STRUCT<STREET STRING>;")
        e.execute("SET 'ksql.functions.collect_list.limit'='3';")
        state = e.session_state()
        assert state.functions is e.functions
        assert state.types["ADDRESS"].fields[0][1] == STRING
        assert state.properties["ksql.functions.collect_list.limit"] == "3"


def test_the_collect_list_limit_of_a_statement_reaches_the_aggregate(tmp_path: Path) -> None:
    """Properties reach analysis through the session state (they used to ride on the catalog)."""
    with _engine(tmp_path, "a") as e:
        e.execute("CREATE STREAM S (K STRING KEY, V INT) WITH (KAFKA_TOPIC='s', VALUE_FORMAT='JSON', PARTITIONS=1);")
        e.execute("CREATE TABLE T AS SELECT K, COLLECT_LIST(V) AS L FROM S GROUP BY K;",
                  {"ksql.functions.collect_list.limit": 2})
        e.execute("INSERT INTO S (K, V) VALUES ('a', 1); INSERT INTO S (K, V) VALUES ('a', 2); "
                  "INSERT INTO S (K, V) VALUES ('a', 3);")
        e.drain(10)
        rows = e.execute("SELECT L FROM T WHERE K = 'a';")[0].data["rows"]
        assert rows == [([1, 2],)]


def test_a_registry_pickles_as_its_origin() -> None:
    registry = builtin_registry()
    again = pickle.loads(pickle.dumps(registry))
    assert again is not registry
    assert set(again.scalars) == set(registry.scalars) and set(again.aggregates) == set(registry.aggregates)


def test_a_registry_with_functions_registered_by_hand_refuses_to_leave_its_process() -> None:
    registry = builtin_registry()
    registry.register(SHOUT)
    with pytest.raises(pickle.PicklingError, match="ksql.extension.dir"):
        pickle.dumps(registry)
