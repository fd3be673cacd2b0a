"""Query upgrades: which CREATE OR REPLACE changes keep a running query, as ksqlDB decides them.

An upgrade replaces a persistent query in place: the query keeps its id, and so its consumer group,
state stores, changelogs and internal topics; the old query is stopped (not cleaned up) and the new one
resumes from the committed input positions, so its new logic applies to new records only.

That is sound only when the new query can read the old one's state and writes the same sink. Two checks
decide it, in ksqlDB's order:

1. ``check_source_upgrade`` (ksqlDB's ``StructuredDataSource.canUpgradeTo``, run when the sink is put in
   the metastore, and for a plain CREATE OR REPLACE STREAM/TABLE too): name, type, topic with its
   formats and window, and timestamp column equal; key columns identical; every old column still in its
   place (value columns may only be appended).
2. ``check_plan_upgrade`` (``ExecutionStep.validateUpgrade``): the query's execution steps are compared,
   sink first. Passive steps (filters and projections) may be added, removed or changed; every other
   step must match property by property; a plan with a step that has no upgrade support (joins,
   windowed or table aggregations, table functions, suppression, windowed sources) cannot be replaced.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ksqlpy.analysis.aggregates import DEFAULT_ARGUMENT
from ksqlpy.catalog import Column, Source, WindowInfo
from ksqlpy.errors import KsqlStatementError
from ksqlpy.expr.bound import Expr
from ksqlpy.plan.internal_values import internal_names, internal_text
from ksqlpy.plan.logical import (
    Aggregate,
    AggregateCall,
    EmitMode,
    Filter,
    FlatMap,
    Join,
    Rekey,
    ResultKind,
    Scan,
    Sink,
)

_JOIN_STEPS = {"STREAM_STREAM": "StreamStreamJoin", "STREAM_TABLE": "StreamTableJoin",
               "TABLE_TABLE": "TableTableJoin", "FOREIGN_KEY": "ForeignKeyTableTableJoin"}
# steps whose ``validateUpgrade`` compares properties (the rest of the non-passive steps refuse any upgrade)
_UPGRADABLE = {"StreamSource", "TableSource", "StreamSink", "TableSink", "StreamSelectKey", "StreamGroupByKey",
               "StreamGroupByV2", "StreamAggregate"}
_PASSIVE = {"StreamFilter", "TableFilter", "StreamSelect", "TableSelect"}


class UpgradeError(KsqlStatementError):
    """A CREATE OR REPLACE the running query cannot be upgraded to."""


# --------------------------------------------------------------------------- the data source


def _q(name: str) -> str:
    """A column or source name as ksqlDB's ``toString()`` prints it: always back-quoted."""
    return "`" + name.replace("`", "``") + "`"


def _duration(ms: int) -> str:
    """``java.time.Duration.toString()``: PT1M, PT30S, PT0.5S, PT1H30M."""
    if ms == 0:
        return "PT0S"
    hours, rest = divmod(ms, 3_600_000)
    minutes, rest = divmod(rest, 60_000)
    seconds, millis = divmod(rest, 1000)
    out = "PT"
    if hours:
        out += f"{hours}H"
    if minutes:
        out += f"{minutes}M"
    if seconds or millis:
        out += f"{seconds}.{millis:03d}".rstrip("0").rstrip(".") + "S"
    return out


def _features(features: set[str]) -> str:
    return "SerdeFeatures{features=[" + ", ".join(sorted(features)) + "]}"


def _format_info(s: Source, is_key: bool) -> str:
    """``FormatInfo.toString()``: the format and the properties its statement gave it, in the order ksqlDB's
    ``CreateSourceAsProperties`` builds them (full schema name - an AVRO key's default ``<Sink>Key`` too -,
    delimiter, schema id); a change of any of them is a change of the topic."""
    from ksqlpy.schema_registry.sources import serde_options

    name = s.key_format if is_key else s.value_format
    delimiter = s.key_delimiter if is_key else s.value_delimiter
    options = serde_options(s, is_key) if not is_key or s.key_columns else {}
    props: list[str] = []
    if options.get("full_name") is not None:
        props.append(f"fullSchemaName={options['full_name']}")
    if delimiter is not None and name == "DELIMITED":
        props.append(f"delimiter={delimiter}")
    if options.get("schema_id") is not None:
        props.append(f"schemaId={options['schema_id']}")
    return f"FormatInfo{{format={name}, properties={{{', '.join(props)}}}}}"


def _window(w: WindowInfo | None) -> str:
    if w is None:
        return "Optional.empty"
    size = f"Optional[{_duration(w.size_ms)}]" if w.size_ms is not None else "Optional.empty"
    return f"Optional[WindowInfo{{type={w.type}, size={size}, emitStrategy=Optional.empty}}]"


def topic_text(s: Source) -> str:
    """A source's topic as ksqlDB's ``KsqlTopic.toString()`` prints it (name, key and value formats)."""
    key = (f"KeyFormat{{format={_format_info(s, True)}, "
           f"features={_features(s.key_features)}, window={_window(s.windowed)}}}")
    value = (f"ValueFormat{{format={_format_info(s, False)}, "
             f"features={_features(s.value_features)}}}")
    return f"KsqlTopic{{kafkaTopicName='{s.topic}', keyFormat={key}, valueFormat={value}}}"


def _timestamp_text(s: Source) -> str:
    if not s.timestamp_column:
        return "Optional.empty"
    fmt = f"Optional[{s.timestamp_format}]" if s.timestamp_format else "Optional.empty"
    return f"Optional[TimestampColumn{{column={_q(s.timestamp_column)}, format={fmt}}}]"


def _column_text(c: Column) -> str:
    """A column as ksqlDB's ``Column.toString()``: `` `NAME` TYPE`` and its namespace when not a value - a
    header column names its key (`` HEADER('k')``) unless it holds them all (`` HEADERS``), as a query's
    header schema does."""
    suffix = (" KEY" if c.key else " HEADERS" if c.headers
              else f" HEADER('{c.header_key}')" if c.header_key is not None else "")
    return f"{_q(c.name)} {c.type}{suffix}"


def schema_text(s: Source) -> str:
    """``LogicalSchema.toString()``: key columns first, then the rest in order."""
    return ", ".join(_column_text(c) for c in _ordered(s))


def _ordered(s: Source) -> list[Column]:
    return [c for c in s.columns if c.key] + [c for c in s.columns if not c.key]


def _same(a: Column, b: Column) -> bool:
    return (a.name, a.type, a.key, a.headers, a.header_key) == (b.name, b.type, b.key, b.headers, b.header_key)


def _schema_issue(old: Source, new: Source) -> str | None:
    """Why ``new``'s columns cannot replace ``old``'s, or None: keys identical, old columns kept in place."""
    old_keys, new_keys = old.key_columns, new.key_columns
    changed = [c for i, c in enumerate(old_keys) if i >= len(new_keys) or not _same(c, new_keys[i])]
    changed += new_keys[len(old_keys):]
    if changed:
        return ("Key columns must be identical. The following key columns are changed, missing or reordered: ["
                + ", ".join(_column_text(c) for c in changed) + "]")
    old_cols, new_cols = _ordered(old), _ordered(new)
    changed = [c for i, c in enumerate(old_cols) if i >= len(new_cols) or not _same(c, new_cols[i])]
    if changed:
        return ("The following columns are changed, missing or reordered: ["
                + ", ".join(_column_text(c) for c in changed) + "]")
    return None


def source_upgrade_issue(old: Source, new: Source) -> str | None:
    """ksqlDB's ``canUpgradeTo``: every property that differs, joined as its message joins them."""
    issues: list[str] = []

    def compare(prop: str, a: str, b: str) -> None:
        if a != b:
            issues.append(f"DataSource '{_q(old.name)}' has {prop} = {a} which is not "
                          f"upgradeable to {b}")

    compare("name", _q(old.name), _q(new.name))
    compare("type", f"K{old.kind}", f"K{new.kind}")
    compare("topic", topic_text(old), topic_text(new))
    compare("timestampColumn", _timestamp_text(old), _timestamp_text(new))
    schema = _schema_issue(old, new)
    if schema is not None:
        issues.append(f"DataSource '{_q(old.name)}' has schema = {schema_text(old)} which is "
                      f"not upgradeable to {schema_text(new)}. ({schema})")
    return "\n\tAND ".join(issues) or None


def check_source_upgrade(old: Source, new: Source) -> None:
    issue = source_upgrade_issue(old, new)
    if issue is not None:
        raise UpgradeError(f"Cannot upgrade data source: {issue}")


# --------------------------------------------------------------------------- the plan


@dataclass
class PlanStep:
    """One execution step as ksqlDB names it, with the properties its ``validateUpgrade`` compares."""

    name: str
    properties: dict[str, str] = field(default_factory=dict)

    @property
    def passive(self) -> bool:
        return self.name in _PASSIVE

    @property
    def upgradable(self) -> bool:
        return self.name in _UPGRADABLE


def _list(items: list[str]) -> str:
    return "[" + ", ".join(items) + "]"


def _formats(s: Source) -> str:
    return (f"Formats{{keyFormat={_format_info(s, True)}, "
            f"valueFormat={_format_info(s, False)}, "
            f"keyFeatures={_features(s.key_features)}, valueFeatures={_features(s.value_features)}}}")


def _source_step(s: Source) -> PlanStep:
    name = ("Windowed" if s.windowed is not None else "") + ("StreamSource" if s.kind == "STREAM" else "TableSource")
    return PlanStep(name, {"queryContext": "KsqlTopic/Source", "topicName": s.topic, "formats": _formats(s),
                           "timestampColumn": _timestamp_text(s)})


def _join_root(node: Join) -> PlanStep:
    return PlanStep(_JOIN_STEPS.get(node.flavor, "StreamStreamJoin"), {"queryContext": "Join"})


def _call_text(call: AggregateCall, names: tuple[dict[str, str], dict[Expr, str]]) -> str:
    """An aggregate call over the internal columns: ``COUNT(*)`` reads its default argument ROWTIME
    (``COUNT(KSQL_INTERNAL_COL_1)``), literal arguments as written (``TOPK(KSQL_INTERNAL_COL_1, 2)``)."""
    args = [internal_text(a, names) for a in call.args] or [names[0][DEFAULT_ARGUMENT]]
    return f"{call.function}({', '.join(args + call.literal_texts)})"


def plan_steps(plan: Sink, sink: Source) -> list[PlanStep]:
    """The query's execution steps, sink first, the way ksqlDB's physical plan chains them."""
    steps: list[PlanStep] = []
    bottom = plan.bottom
    if isinstance(bottom, Join):
        steps.append(_join_root(bottom))
    else:
        assert isinstance(bottom, Scan)
        steps.append(_source_step(bottom.source))
    kind = "Table" if bottom.result_kind is ResultKind.TABLE else "Stream"
    table = kind == "Table"
    if plan.find(Filter) is not None:
        steps.append(PlanStep(f"{kind}Filter"))
    rekey = plan.find(Rekey)
    if rekey is not None and rekey.repartition:  # PARTITION BY the input's own key is no step (repartitionNeeded)
        steps.append(PlanStep(f"{kind}SelectKey", {"queryContext": "PartitionBy",
                                                    "keyExpression": _list([str(e) for e in rekey.exprs])}))
    if plan.find(FlatMap) is not None:
        steps.append(PlanStep("StreamFlatMap"))
    agg = plan.find(Aggregate)
    if agg is not None:
        # the steps after the Prepare step read its internal columns, and ksqlDB's plan names them so
        # (AggregateNode: internalGroupByColumns, requiredColumnNames, functionsWithInternalIdentifiers, from
        # memory): two aggregations compare by the shape of their state, not by the source columns they read
        names = internal_names(agg)
        group_text = _list([internal_text(e, names) for e in agg.group_by])
        if table:
            steps += [PlanStep("TableGroupBy"), PlanStep("TableAggregate")]
        else:
            # the plan's decision (``partitioning.group_by_repartition``, ksqlDB's repartitionNeeded): a GROUP BY
            # of the input's key - a stream join's result by the column its key is named after included - is
            # groupByKey (StreamGroupByKey); any other re-keys (StreamGroupByV2)
            by_key = not agg.repartition
            steps.append(PlanStep("StreamGroupByKey", {"queryContext": "Aggregate/GroupBy"}) if by_key else
                         PlanStep("StreamGroupByV2", {"queryContext": "Aggregate/GroupBy",
                                                      "groupByExpressions": group_text}))
            calls = _list([_call_text(a, names) for a in agg.aggregates])
            steps.append(PlanStep("StreamWindowedAggregate" if agg.window is not None else "StreamAggregate",
                                  {"queryContext": "Aggregate/Aggregate",
                                   "nonAggregateColumns": _list([_q(n) for n in names[0].values()]),
                                   "aggregationFunctions": calls}))
        if agg.having is not None:
            steps.append(PlanStep("TableFilter"))
        kind = "Table"
    steps.append(PlanStep(f"{kind}Select"))
    if plan.emit is EmitMode.FINAL:
        steps.append(PlanStep("TableSuppress"))
    steps.append(PlanStep(f"{sink.kind.capitalize()}Sink",
                          {"queryContext": sink.name, "topicName": sink.topic, "formats": _formats(sink),
                           "timestampColumn": _timestamp_text(sink)}))
    steps.reverse()
    return steps


def _not_upgradeable(message: str) -> UpgradeError:
    return UpgradeError(f"Query is not upgradeable. {message}")


def check_plan_upgrade(old: list[PlanStep], new: list[PlanStep]) -> None:
    """ksqlDB's ``validateUpgrade`` over two step chains (sink first)."""
    for step in old:
        if not step.passive and not step.upgradable:
            raise UpgradeError(f"Upgrades not yet supported for {step.name}")
    old_root, new_root = old[-1], new[-1]
    if new_root.name in _JOIN_STEPS.values() and old_root.name not in _JOIN_STEPS.values():
        raise _not_upgradeable("Cannot change a non-join source into a join source.")
    if new_root.name != old_root.name:
        raise _not_upgradeable(f"The root source node of the upgrade tree must be {old_root.name}, but was "
                               f"{new_root.name}")
    enforcing_old = [s for s in old if not s.passive]
    enforcing_new = [s for s in new if not s.passive]
    old_names = {s.name for s in enforcing_old}
    for i, step in enumerate(enforcing_new):
        if step.name not in old_names:
            raise _not_upgradeable(f"Cannot add a {step.name} step that is not in the original query plan.")
        before = enforcing_old[i] if i < len(enforcing_old) else None
        if before is None or before.name != step.name:
            got = before.name if before is not None else "none"
            raise _not_upgradeable(f"Plan step of type {step.name} must have matching class. Values differ: "
                                   f"{got} vs. {step.name}")
        for prop, value in before.properties.items():
            other = step.properties.get(prop)
            if other != value:
                raise _not_upgradeable(f"Plan step of type {step.name} must have matching {prop}. Values differ: "
                                       f"{value} vs. {other}")
    if len(enforcing_old) > len(enforcing_new):
        gone = enforcing_old[len(enforcing_new)]
        raise _not_upgradeable(f"Plan step of type {gone.name} must have matching class. Values differ: "
                               f"{gone.name} vs. none")
