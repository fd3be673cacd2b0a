"""Properties: ``ksql.streams.<name>`` and ``<name>`` are one property in every layer (defaults < configuration
< session < request; within one layer the prefixed spelling wins), an explicit value beats every built-in
default, and SET/UNSET/SHOW PROPERTIES speak of the property, not of a spelling."""

from __future__ import annotations

from typing import Any

import pytest

from ksqlpy.engine import Engine
from ksqlpy.engine.config import DEFAULT_PROPERTIES, Properties, canonical, merge_layers, resolve
from ksqlpy.errors import KsqlError
from ksqlpy.runtime.record_cache import cache_entries
from ksqlpy.runtime.workers import commit_interval_ms, guarantee

BOTH = ("auto.offset.reset", "ksql.streams.auto.offset.reset")


# ---------------------------------------------------------------------------------------------- resolver
@pytest.mark.parametrize("name,expected", [
    ("auto.offset.reset", "ksql.streams.auto.offset.reset"),
    ("ksql.streams.auto.offset.reset", "ksql.streams.auto.offset.reset"),
    ("consumer.max.poll.records", "ksql.streams.consumer.max.poll.records"),
    ("ksql.service.id", "ksql.service.id"),
    ("ksqlpy.workers", "ksqlpy.workers"),
    ("  commit.interval.ms ", "ksql.streams.commit.interval.ms"),
])
def test_canonical_names(name: str, expected: str) -> None:
    assert canonical(name) == expected


@pytest.mark.parametrize("order", [BOTH, tuple(reversed(BOTH))])
def test_prefixed_spelling_wins_within_one_layer_whatever_the_order(order: tuple[str, str]) -> None:
    layer = {order[0]: "bare-or-prefixed-1", order[1]: "bare-or-prefixed-2"}
    expected = layer["ksql.streams.auto.offset.reset"]
    assert resolve("auto.offset.reset", layer) == expected
    assert resolve("ksql.streams.auto.offset.reset", layer) == expected
    assert Properties(layer)["auto.offset.reset"] == expected


@pytest.mark.parametrize("low", BOTH)
@pytest.mark.parametrize("high", BOTH)
def test_a_higher_layer_wins_under_either_spelling(low: str, high: str) -> None:
    assert resolve("auto.offset.reset", {low: "latest"}, {high: "earliest"}) == "earliest"
    assert Properties({low: "latest"}, {high: "earliest"}).get(low) == "earliest"
    merged = merge_layers({low: "latest"}, {high: "earliest"})
    assert list(merged.values()) == ["earliest"] and high in merged


@pytest.mark.parametrize("name", BOTH)
def test_an_explicit_value_beats_the_built_in_default(name: str) -> None:
    assert DEFAULT_PROPERTIES["ksql.streams.auto.offset.reset"] == "latest"
    assert resolve("auto.offset.reset", {name: "earliest"}) == "earliest"
    assert Properties(DEFAULT_PROPERTIES, {name: "earliest"}).get("auto.offset.reset") == "earliest"
    assert resolve("auto.offset.reset") == "latest"
    assert resolve("no.such.thing", default=7) == 7


@pytest.mark.parametrize("name", ["cache.max.bytes.buffering", "ksql.streams.cache.max.bytes.buffering"])
def test_readers_of_streams_settings_take_either_spelling(name: str) -> None:
    assert cache_entries({name: 0}) == 0
    assert cache_entries({"cache.max.bytes.buffering": 1280}, {name: 0}) == 0
    short = name.replace("cache.max.bytes.buffering", "commit.interval.ms")
    assert commit_interval_ms({}, {short: 30}) == 30
    assert commit_interval_ms({short.replace("commit.interval.ms", "processing.guarantee"): "exactly_once_v2"},
                              {}) == 100
    assert guarantee({short.replace("commit.interval.ms", "processing.guarantee"): "EXACTLY_ONCE_V2"}) == \
        "exactly_once_v2"


# ---------------------------------------------------------------------------------------------- engine
@pytest.fixture
def engine(tmp_path: Any) -> Any:
    e = Engine(str(tmp_path), {"ksql.streams.auto.offset.reset": "earliest", "commit.interval.ms": "500"})
    yield e
    e.close()


def test_engine_configuration_in_the_prefixed_form_beats_the_default(engine: Any) -> None:
    assert engine.prop("auto.offset.reset") == "earliest"
    assert engine.prop("ksql.streams.commit.interval.ms") == "500"
    assert engine.effective_properties()["auto.offset.reset"] == "earliest"


def test_session_and_request_layers(engine: Any) -> None:
    engine.execute("SET 'auto.offset.reset'='latest';")
    assert engine.prop("ksql.streams.auto.offset.reset") == "latest"
    engine.request_properties = {"ksql.streams.auto.offset.reset": "earliest"}
    assert engine.prop("auto.offset.reset") == "earliest"
    engine.request_properties = {}
    engine.execute("UNSET 'ksql.streams.auto.offset.reset';")  # the other spelling unsets it
    assert engine.session_properties == {}
    assert engine.prop("auto.offset.reset") == "earliest"  # the configuration again


def test_a_push_query_reads_from_the_start_with_either_spelling(engine: Any) -> None:
    engine.execute("CREATE STREAM S (ID INT KEY, V STRING) WITH (kafka_topic='s', partitions=1, value_format='JSON');"
                   "INSERT INTO S (ID, V) VALUES (1, 'a');")
    for props in ({"ksql.streams.auto.offset.reset": "earliest"}, {"auto.offset.reset": "earliest"},
                  {"auto.offset.reset": "latest", "ksql.streams.auto.offset.reset": "earliest"}):
        engine.execute("SET 'auto.offset.reset'='latest';")  # the session says latest; the request wins
        tq = engine.push_query("SELECT * FROM S EMIT CHANGES LIMIT 1;", props)
        engine.drain(5)
        assert list(tq) == [(1, "a")], props
    engine.execute("UNSET 'auto.offset.reset';")


def test_show_properties_lists_canonical_names_and_what_changed(engine: Any) -> None:
    (result,) = engine.execute("SHOW PROPERTIES;", {"cache.max.bytes.buffering": "0"})
    listing = {p["name"]: p for p in result.data["properties"]}
    assert "auto.offset.reset" not in listing
    assert listing["ksql.streams.auto.offset.reset"]["value"] == "earliest"
    assert listing["ksql.streams.auto.offset.reset"]["level"] == "QUERY"
    assert listing["ksql.streams.cache.max.bytes.buffering"]["value"] == "0"
    assert result.data["overwrittenProperties"] == ["ksql.streams.cache.max.bytes.buffering"]
    defaults = result.data["defaultProperties"]
    assert "ksql.service.id" in defaults and "ksql.streams.auto.offset.reset" not in defaults
    assert "ksql.streams.cache.max.bytes.buffering" not in defaults


def test_show_properties_lists_every_ksqldb_property_with_its_default(engine: Any) -> None:
    """ksqlDB's SHOW PROPERTIES lists every KsqlConfig definition with its value (SSL settings left out) and the
    Streams settings it hands Kafka Streams - not only what ksqlpy reads: each at ksqlDB's default unless set
    (ksqlpy's own default where it has one), a set one not among the defaults, the SET and request overrides
    in overwrittenProperties."""
    (result,) = engine.execute("SHOW PROPERTIES;")
    listing = {p["name"]: p for p in result.data["properties"]}
    expected = {"ksql.extension.dir": "ext", "ksql.query.persistent.active.limit": "2147483647",
                "ksql.query.pull.max.allowed.offset.lag": "9223372036854775807", "ksql.suppress.enabled": "true",
                "ksql.query.retry.backoff.initial.ms": "15000", "ksql.query.retry.backoff.max.ms": "900000",
                "ksql.query.error.max.queue.size": "10", "ksql.fail.on.deserialization.error": "false",
                "ksql.hidden.topics": "_confluent.*,__confluent.*,_schemas,__consumer_offsets,__transaction_state,"
                                      "connect-configs,connect-offsets,connect-status,connect-statuses",
                "ksql.streams.num.standby.replicas": "0", "ksql.streams.task.timeout.ms": "300000",
                "ksql.streams.default.deserialization.exception.handler":
                    "io.confluent.ksql.errors.LogMetricAndContinueExceptionHandler",
                "ksql.service.id": "default_", "ksql.persistent.prefix": "query_"}
    assert {k: listing[k]["value"] for k in expected} == expected
    assert all(p["scope"] == "KSQL" and p["level"] in ("QUERY", "SERVER") for p in listing.values())
    assert listing["ksql.streams.num.standby.replicas"]["level"] == "QUERY"
    assert listing["ksql.extension.dir"]["editable"] is False
    assert not [n for n in listing if ".ssl." in n or n.startswith("ssl.")]
    assert set(expected) <= set(result.data["defaultProperties"])
    assert len(listing) > 90
    # set: not a default any more; the session's and the request's overrides are overwritten properties
    engine.execute("SET 'ksql.query.error.max.queue.size'='20';")
    (result,) = engine.execute("SHOW PROPERTIES;", {"ksql.fail.on.deserialization.error": "true"})
    listing = {p["name"]: p["value"] for p in result.data["properties"]}
    assert listing["ksql.query.error.max.queue.size"] == "20"
    assert listing["ksql.streams.default.deserialization.exception.handler"] == (
        "org.apache.kafka.streams.errors.LogAndFailExceptionHandler")  # no lenient handler when failing
    assert {"ksql.query.error.max.queue.size", "ksql.fail.on.deserialization.error"} <= set(
        result.data["overwrittenProperties"])
    assert "ksql.query.error.max.queue.size" not in result.data["defaultProperties"]


def test_show_properties_defaults_are_values_equal_to_the_default(engine: Any) -> None:
    """ksqlDB's ListPropertiesExecutor: ``defaultProperties`` names each property whose value is its definition's
    default - set to that value (SET, a request) it stays one; set to another it is not."""
    engine.execute("SET 'ksql.query.error.max.queue.size'='10';")  # the default value
    (result,) = engine.execute("SHOW PROPERTIES;", {"ksql.streams.commit.interval.ms": "2000",
                                                    "ksql.streams.num.standby.replicas": "1"})
    defaults = set(result.data["defaultProperties"])
    assert {"ksql.query.error.max.queue.size", "ksql.streams.commit.interval.ms"} <= defaults
    assert "ksql.streams.num.standby.replicas" not in defaults
    # overwritten: an override whose value differs from the server's (a SET to the default is not)
    # (the fixture's server has commit.interval.ms 500: the request's 2000 is the default and overwrites it)
    assert result.data["overwrittenProperties"] == ["ksql.streams.commit.interval.ms",
                                                    "ksql.streams.num.standby.replicas"]


def test_set_of_a_property_the_server_fixes_is_refused(engine: Any) -> None:
    for name, shown in (("ksql.extension.dir", "ksql.extension.dir"),
                        ("ksql.streams.consumer.ssl.truststore.location", "ssl.truststore.location")):
        with pytest.raises(KsqlError, match=f"^Cannot override property '{shown}'$"):
            engine.execute(f"SET '{name}'='x';")


@pytest.mark.parametrize("sql,message", [
    ("SET 'no.such.property'='1';", "Unknown property: no.such.property"),
    # a ksql.* name resolves against KsqlConfig's definitions: one it does not define is unknown too
    ("SET 'ksql.foo.bar'='1';", "Unknown property: ksql.foo.bar"),
    ("SET 'ksql.query.nothing'='1';", "Unknown property: ksql.query.nothing"),
    ("SET 'ksql.any.key.name'='1';", "Unknown property: ksql.any.key.name"),
    # only a name in Kafka Streams' internal form: underscores at both ends
    ("SET 'ksql.streams.__emit.interval.ms'='1';", "Unknown property: ksql.streams.__emit.interval.ms"),
    ("SET 'ksql.streams.no.such.streams.setting'='1';", "Unknown property: ksql.streams.no.such.streams.setting"),
    ("SET 'auto.offset.reset'='sometimes';",
     "Invalid value sometimes for configuration auto.offset.reset: String must be one of: latest, earliest, none"),
    ("SET 'ksql.streams.commit.interval.ms'='soon';",
     "Invalid value soon for configuration commit.interval.ms: Not a number of type LONG"),
])
def test_set_refuses_unknown_properties_and_invalid_values(engine: Any, sql: str, message: str) -> None:
    with pytest.raises(KsqlError) as e:
        engine.execute(sql)
    assert e.value.message == message
    assert engine.session_properties == {}


@pytest.mark.parametrize("name,value,reason", [
    # each kind of config a name resolves to: KsqlConfig, Kafka Streams, consumer, producer, common clients -
    # parsed by the definition's type, then checked by its validator
    ("ksql.sink.window.change.log.additional.retention", "soon", "Not a number of type LONG"),
    ("ksql.persistence.wrap.single.values", "maybe", "Expected value to be either true or false"),
    ("ksql.query.persistent.active.limit", "1.5", "Not a number of type INT"),
    ("ksql.streams.num.standby.replicas", "one", "Not a number of type INT"),
    ("commit.interval.ms", "-1", "Value must be at least 0"),
    ("ksql.streams.cache.max.bytes.buffering", "-10", "Value must be at least 0"),
    ("max.poll.records", "0", "Value must be at least 1"),
    ("ksql.streams.enable.auto.commit", "yes", "Expected value to be either true or false"),
    ("retries", "-1", "Value must be at least 0"),
    ("linger.ms", "later", "Not a number of type LONG"),
    ("request.timeout.ms", "99999999999", "Not a number of type INT"),
    ("receive.buffer.bytes", "-2", "Value must be at least -1"),
])
def test_a_value_is_parsed_by_its_definition_s_type_then_validated(engine: Any, name: str, value: str,
                                                                   reason: str) -> None:
    with pytest.raises(KsqlError) as e:
        engine.execute(f"SET '{name}'='{value}';")
    # Kafka's ConfigDef names the definition's key: without ksql.streams. (KsqlConfigResolver strips it)
    key = name.removeprefix("ksql.streams.")
    assert e.value.message == f"Invalid value {value} for configuration {key}: {reason}"
    assert engine.session_properties == {}


@pytest.mark.parametrize("name,value", [
    ("commit.interval.ms", "0"), ("max.poll.records", "1"), ("receive.buffer.bytes", "-1"),
    ("ksql.persistence.wrap.single.values", "False"), ("ksql.streams.num.standby.replicas", "2"),
])
def test_a_value_at_its_definition_s_bound_is_set(engine: Any, name: str, value: str) -> None:
    engine.execute(f"SET '{name}'='{value}';")
    assert engine.session_properties == {name: value}


def test_explain_shows_the_overrides_a_query_was_created_with(engine: Any) -> None:
    engine.execute("CREATE STREAM S (ID INT KEY, V STRING) WITH (kafka_topic='s', partitions=1, value_format='JSON');"
                   "SET 'cache.max.bytes.buffering'='0';")
    (created,) = engine.execute("CREATE STREAM S2 AS SELECT * FROM S;", {"auto.offset.reset": "latest"})
    engine.execute("UNSET 'cache.max.bytes.buffering';")
    (explained,) = engine.execute(f"EXPLAIN {created.query_id};")
    assert explained.data["overriddenProperties"] == {"ksql.streams.cache.max.bytes.buffering": "0",
                                                      "ksql.streams.auto.offset.reset": "latest"}


@pytest.mark.parametrize("name,value", [
    ("ksql.cast.strings.preserve.nulls", "false"), ("ksql.nested.error.set.null", "false"),
    ("ksql.functions.collect_list.limit", "5"), ("ksql.functions.any_udf.any.setting", "x"),
    ("ksql.query.pull.table.scan.enabled", "false"), ("ksql.schema.registry.basic.auth.user.info", "u:p"),
    ("ksqlpy.emit.final.idle.advance.ms", "10"), ("ksql.streams.auto.offset.reset", "earliest"),
    # flags KsqlConfig defines for older queries' behaviour, and Kafka Streams' internal (``__x__``) settings
    ("ksql.any.key.name.enabled", "true"), ("ksql.shared.runtime.enabled", "false"),
    ("ksql.string.case.config.toggle", "true"), ("ksql.deadletterqueue.insert.error", "x"),
    ("ksql.multicol.key.format.enabled", "true"), ("ksql.runtime.feature.shared.enabled", "true"),
    ("ksql.streams.__emit.interval.ms.kstreams.windowed.aggregation__", "0"),
    ("__emit.interval.ms.kstreams.windowed.aggregation__", "0"),
    ("ksql.streams.default.dsl.store", "in_memory"), ("ksql.streams.producer.partitioner.class", "x"),
    ("key.deserializer", "x"), ("ksql.streams.metrics.recording.level", "DEBUG")])
def test_set_accepts_defined_ksql_names_and_free_form_namespaces(engine: Any, name: str, value: str) -> None:
    engine.execute(f"SET '{name}'='{value}';")
    assert engine.session_properties == {name: value}


@pytest.mark.parametrize("name,value,message", [
    # the message names the definition the name resolved to (ConfigItem.Resolved.parseValue under key.name):
    # ksql.streams. and a client prefix are not part of it; ksql.* names are their definitions' own
    ("ksql.streams.num.stream.threads", "x", "Invalid value x for configuration num.stream.threads: "
                                             "Not a number of type INT"),
    ("ksql.streams.consumer.max.poll.records", "0", "Invalid value 0 for configuration max.poll.records: "
                                                    "Value must be at least 1"),
    ("consumer.fetch.min.bytes", "-1", "Invalid value -1 for configuration fetch.min.bytes: Value must be at least 0"),
    ("ksql.streams.producer.linger.ms", "later", "Invalid value later for configuration linger.ms: "
                                                 "Not a number of type LONG"),
    ("ksql.streams.auto.offset.reset", "up", "Invalid value up for configuration auto.offset.reset: "
                                             "String must be one of: latest, earliest, none"),
    ("ksql.suppress.enabled", "perhaps", "Invalid value perhaps for configuration ksql.suppress.enabled: "
                                         "Expected value to be either true or false"),
    # the producer's lists (ProducerConfig: acks in("all", "-1", "0", "1"), compression.type the CompressionType
    # names), compared as written (ValidString.in): another case is another value
    ("acks", "2", "Invalid value 2 for configuration acks: String must be one of: all, -1, 0, 1"),
    ("ksql.streams.producer.acks", "ALL", "Invalid value ALL for configuration acks: String must be one of: all, "
                                          "-1, 0, 1"),
    ("producer.compression.type", "brotli", "Invalid value brotli for configuration compression.type: String must "
                                            "be one of: none, gzip, snappy, lz4, zstd"),
    ("ksql.streams.compression.type", "LZ4", "Invalid value LZ4 for configuration compression.type: String must "
                                             "be one of: none, gzip, snappy, lz4, zstd"),
])
def test_a_refused_value_names_the_definition(engine: Any, name: str, value: str, message: str) -> None:
    with pytest.raises(KsqlError) as e:
        engine.execute(f"SET '{name}'='{value}';")
    assert e.value.message == message


@pytest.mark.parametrize(("name", "value"), [
    ("acks", "all"), ("acks", "-1"), ("acks", "0"), ("ksql.streams.producer.acks", "1"),
    ("compression.type", "none"), ("producer.compression.type", "gzip"), ("ksql.streams.compression.type", "snappy"),
    ("compression.type", "lz4"), ("compression.type", "zstd"), ("auto.offset.reset", "EARLIEST"),
])
def test_set_takes_every_listed_value(engine: Any, name: str, value: str) -> None:
    engine.execute(f"SET '{name}'='{value}';")
    assert list(engine.session_properties.values()) == [value]


@pytest.mark.parametrize(("name", "value"), [
    ("ksql.persistence.wrap.single.values", "false"), ("ksql.persistence.default.format.value", "JSON"),
])
def test_show_properties_lists_a_property_without_a_default_only_once_set(engine: Any, name: str, value: str) -> None:
    """A KsqlConfig definition whose default is null (``ksql.persistence.wrap.single.values`` too: it has
    none since ksqlDB made it a tri-state) is not listed while nothing sets it; set - by SET or a request's
    properties - it is listed with that value, overwritten, and never a default."""
    (result,) = engine.execute("SHOW PROPERTIES;")
    assert name not in {p["name"] for p in result.data["properties"]}
    assert name not in result.data["defaultProperties"]
    for request in ({name: value}, None):
        if request is None:
            engine.execute(f"SET '{name}'='{value}';")
        (result,) = engine.execute("SHOW PROPERTIES;", request)
        listing = {p["name"]: p for p in result.data["properties"]}
        assert listing[name]["value"] == value and listing[name]["scope"] == "KSQL"
        assert name in result.data["overwrittenProperties"]
        assert name not in result.data["defaultProperties"]
    engine.execute(f"UNSET '{name}';")
    (result,) = engine.execute("SHOW PROPERTIES;")
    assert name not in {p["name"] for p in result.data["properties"]}
