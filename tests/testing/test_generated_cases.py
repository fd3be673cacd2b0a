"""Our generated case files are what their generators write: a change to a generator's model is not a test
until its file is regenerated (``python tests/cases/<dir>/gen_*.py``)."""

from __future__ import annotations

import json
import runpy
import sys
from pathlib import Path

import pytest

CASES = Path(__file__).resolve().parents[1] / "cases"


@pytest.mark.parametrize(("generator", "files"), [
    ("aggregations/gen_cross.py", {
        "cross-stream-aggregates.json": lambda g: g["stream_aggregates"]() + g["structured_aggregates"](),
        "cross-table-aggregates.json": lambda g: g["table_aggregates"](),
        "cross-windowed-aggregates.json": lambda g: g["windowed_aggregates"]() + g["windowed_value_formats"](),
    }),
    ("aggregations/gen_udaf_scope.py", {"udaf-scope.json": lambda g: g["cases"]()}),
    ("aggregations/gen_windowed_keys.py", {"windowed-structured-keys.json": lambda g: g["cases"]()}),
    ("aggregations/gen_window_clause.py", {"window-clause-scope.json": lambda g: g["cases"]()}),
    ("aggregations/gen_udaf_windows.py", {"udaf-windows.json": lambda g: g["cases"]()}),
    ("syntax-errors/gen_syntax_errors.py", {"syntax-error-positions.json": lambda g: g["cases"]()}),
    ("aggregations/gen_aggregate_call_shapes.py", {"aggregate-call-shapes.json": lambda g: g["cases"]()}),
    ("aggregations/gen_java_double_values.py", {"java-double-values.json": lambda g: g["cases"]()}),
    ("syntax-errors/gen_keyword_names.py", {"keyword-names.json": lambda g: g["cases"]()}),
    ("aggregations/gen_windowed_readback.py", {"windowed-sink-readback.json": lambda g: g["cases"]()}),
    ("aggregations/gen_windowed_source_props.py", {"windowed-source-props.json": lambda g: g["cases"]()}),
    ("aggregations/gen_insert_windowing.py", {"insert-windowing.json": lambda g: g["cases"]()}),
    ("aggregations/gen_group_by_repartition.py", {"group-by-repartition.json": lambda g: g["cases"]()}),
    ("aggregations/gen_emit_final_scope.py", {"emit-final-scope.json": lambda g: g["cases"]()}),
    ("aggregations/gen_group_key_format.py", {"group-key-format.json": lambda g: g["cases"]()}),
    ("aggregations/gen_collect_limits.py", {"collect-limits.json": lambda g: g["cases"]()}),
    ("aggregations/gen_hopping_assignment.py", {"hopping-assignment.json": lambda g: g["cases"]()}),
    ("aggregations/gen_pseudo_grouping.py", {"pseudo-grouping.json": lambda g: g["cases"]()}),
    ("aggregations/gen_udaf_init_args.py", {"udaf-init-args.json": lambda g: g["cases"]()}),
    ("aggregations/gen_duplicate_names.py", {"duplicate-names.json": lambda g: g["cases"]()}),
    ("aggregations/gen_topk_k_range.py", {"topk-k-range.json": lambda g: g["cases"]()}),
    ("aggregations/gen_aggregation_check_order.py", {"aggregation-check-order.json": lambda g: g["cases"]()}),
    ("aggregations/gen_default_argument.py", {"default-argument.json": lambda g: g["cases"]()}),
    ("aggregations/gen_window_bounds_scope.py", {"window-bounds-scope.json": lambda g: g["cases"]()}),
    ("aggregations/gen_stream_time_scope.py", {"stream-time-scope.json": lambda g: g["cases"]()}),
    ("rest/gen_pull_windows.py", {"pull-window-bounds.json": lambda g: g["cases"]()}),
    ("rest/gen_pull_rules.py", {"pull-query-rules.json": lambda g: g["cases"]() + g["key_value_cases"]()}),
    ("rest/gen_pull_where_shapes.py", {"pull-where-shapes.json": lambda g: g["cases"]()}),
    ("rest/gen_schema_ids.py", {"insert-values-schema-ids.json": lambda g: g["cases"]()}),
    ("rest/gen_source_serde_options.py", {"source-serde-options.json": lambda g: g["cases"]()}),
    ("rest/gen_consistency.py", {"consistency-tokens.json": lambda g: g["cases"]()}),
    ("rest/gen_ctas_table_store.py", {"ctas-table-store.json": lambda g: g["cases"]()}),
    ("rest/gen_source_statements.py", {"source-statements.json": lambda g: g["cases"]()}),
    ("rest/gen_push_rules.py", {"push-query-rules.json": lambda g: g["cases"]()}),
    ("rest/gen_push_emit_final.py", {"push-emit-final.json": lambda g: g["cases"]()}),
    ("rest/gen_time_literals.py", {"time-literal-errors.json": lambda g: g["cases"]()}),
    ("rest/gen_query_types.py", {"query-types.json": lambda g: json.loads(g["_text"](g["cases"]()))["tests"]}),
    ("rest/gen_rest_scope.py", {
        "push-queries-by-format.json": lambda g: g["push_cases"](),
        "pull-queries-by-table-kind.json": lambda g: g["pull_cases"](),
        "insert-values-by-format.json": lambda g: g["insert_cases"](),
        "multi-statement-requests.json": lambda g: g["multi_statement_cases"](),
    }),
    ("joins/key_formats_gen.py", {"key-formats.json": lambda g: g["tests"]}),
    ("joins/foreign_key_formats_gen.py", {"foreign-key-formats.json": lambda g: g["tests"]}),
    ("joins/n_way_formats_gen.py", {"n-way-formats.json": lambda g: g["tests"]}),
    ("joins/stream_stream_windows_gen.py", {"stream-stream-windows.json": lambda g: g["tests"]}),
    ("joins/n_way_windows_gen.py", {"n-way-windows.json": lambda g: g["tests"]}),
    ("joins/foreign_key_multi_column_gen.py", {"foreign-key-multi-column.json": lambda g: g["tests"]}),
    ("joins/table_table_changes_gen.py", {"table-table-changes.json": lambda g: g["tests"]}),
    ("joins/stream_table_changes_gen.py", {"stream-table-changes.json": lambda g: g["tests"]}),
    ("joins/result_keys_gen.py", {"result-keys.json": lambda g: g["tests"]}),
    ("joins/null_keys_gen.py", {"null-keys.json": lambda g: g["tests"]}),
    ("joins/criteria_rejections_gen.py", {"criteria-rejections.json": lambda g: g["tests"]}),
    ("joins/criteria_shapes_gen.py", {"criteria-shapes.json": lambda g: g["tests"]}),
    ("joins/join_statements_gen.py", {"join-statements.json": lambda g: g["tests"]}),
    ("joins/copartitioning_gen.py", {"copartitioning.json": lambda g: g["tests"]}),
    ("joins/validation_order_gen.py", {"validation-order.json": lambda g: g["tests"]}),
    ("joins/same_topic_gen.py", {"same-topic.json": lambda g: g["tests"]}),
    ("joins/window_extremes_gen.py", {"window-extremes.json": lambda g: g["tests"]}),
    ("joins/aggregate_after_join_gen.py", {"aggregate-after-join.json": lambda g: g["stream_cases"](),
                                           "table-aggregate-after-join.json": lambda g: g["table_cases"](),
                                           "fk-aggregate-after-join.json": lambda g: g["fk_cases"]()}),
    ("serde/types_gen.py", {"types-by-format.json": lambda g: g["tests"]}),
    ("serde/sink_schema_ids_gen.py", {"sink-schema-ids.json": lambda g: g["tests"]}),
    ("serde/protobuf_nullable_gen.py", {"protobuf-nullable-formats.json": lambda g: g["tests"]}),
    ("serde/registry_schema_checks_gen.py", {"registry-schema-checks.json": lambda g: g["tests"]}),
    ("serde/sink_format_inheritance_gen.py", {"sink-format-inheritance.json": lambda g: g["tests"]}),
    ("serde/wide_decimals_gen.py", {"wide-decimals.json": lambda g: g["tests"]}),
    ("serde/unwrapped_nulls_gen.py", {"unwrapped-nulls.json": lambda g: g["tests"]}),
    ("serde/json_sr_connect_maps_gen.py", {"json-sr-connect-maps.json": lambda g: g["tests"]}),
    ("serde/json_sr_converter_gen.py", {"json-sr-converter.json": lambda g: g["tests"]}),
    ("serde/struct_keys_gen.py", {"struct-keys.json": lambda g: g["tests"]}),
    ("serde/schema_versions_gen.py", {"schema-versions.json": lambda g: g["tests"]}),
    ("serde/protobuf_keys_gen.py", {"protobuf-keys.json": lambda g: g["tests"]}),
    ("serde/required_fields_gen.py", {"required-fields.json": lambda g: g["tests"]}),
    ("serde/inferred_key_types_gen.py", {"inferred-key-types.json": lambda g: g["tests"]}),
    ("serde/recursive_schemas_gen.py", {"recursive-schemas.json": lambda g: g["tests"]}),
    ("serde/protobuf_multiple_messages_gen.py", {"protobuf-multiple-messages.json": lambda g: g["tests"]}),
    ("serde/schema_id_names_gen.py", {"schema-id-names.json": lambda g: g["tests"]}),
    ("serde/json_sr_type_lists_gen.py", {"json-sr-type-lists.json": lambda g: g["tests"]}),
    ("serde/protobuf_schema_corners_gen.py", {"protobuf-schema-corners.json": lambda g: g["tests"]}),
    ("functions/gen_scalar_sweep.py", {"scalar-sweep.json": lambda g: g["tests"]}),
    ("functions/gen_utf16_units.py", {"utf16-units.json": lambda g: g["tests"]}),
    ("functions/gen_parameter_names.py", {"parameter-names.json": lambda g: g["tests"]}),
    ("functions/gen_java_regex.py", {"java-regex.json": lambda g: g["tests"]}),
    ("functions/gen_operator_scope.py", {"operator-scope.json": lambda g: g["cases"]()}),
    ("functions/gen_timestamp_parsing.py", {"timestamp-parsing.json": lambda g: g["tests"]}),
    ("functions/gen_far_years.py", {"far-years.json": lambda g: g["tests"]}),
    ("functions/gen_implicit_casts.py", {"implicit-casts.json": lambda g: g["tests"]}),
    ("functions/gen_table_function_scope.py", {"table-function-scope.json": lambda g: g["cases"]()}),
    ("functions/gen_access_chains.py", {"access-chains.json": lambda g: g["cases"]()}),
    ("functions/gen_cast_refusals.py", {"cast-refusals.json": lambda g: g["cases"]()}),
    ("serde/null_bytes_gen.py", {"null-bytes.json": lambda g: g["tests"]}),
    ("serde/delimited_text_rules_gen.py", {"delimited-text-rules.json": lambda g: g["TESTS"]}),
    ("analysis/gen_window_bounds.py", {"window-bounds-scope.json": lambda g: g["cases"]()}),
    ("analysis/gen_clause_stages.py", {"clause-stages.json": lambda g: g["cases"]()}),
    ("analysis/gen_insert_select_types.py", {"insert-select-types.json": lambda g: g["cases"]()}),
    ("analysis/gen_null_typing.py", {"null-typing.json": lambda g: g["cases"]()}),
    ("analysis/gen_reserved_select.py", {"reserved-select.json": lambda g: g["cases"]()}),
    ("analysis/gen_variable_positions.py", {"variable-positions.json": lambda g: g["cases"]()}),
    ("analysis/gen_lambda_sanitizer.py", {"lambda-sanitizer.json": lambda g: g["cases"]()}),
    ("analysis/gen_unknown_types.py", {"unknown-types.json": lambda g: g["cases"]()}),
    ("analysis/gen_rowkey_scope.py", {"rowkey-scope.json": lambda g: g["cases"]()}),
    ("analysis/gen_create_fault_order.py", {"create-fault-order.json": lambda g: g["cases"]()}),
    ("serde/create_schema_ids_gen.py", {"create-schema-ids.json": lambda g: g["tests"]}),
    ("serde/protobuf_wire_types_gen.py", {"protobuf-wire-types.json": lambda g: g["tests"]}),
    ("serde/mistyped_values_gen.py", {"mistyped-values.json": lambda g: g["tests"]}),
    ("serde/avro_widening_gen.py", {"avro-widening.json": lambda g: g["tests"]}),
    ("upgrades/gen_upgrade_scope.py", {"upgrade-scope.json": lambda g: g["cases"]()}),
    ("stateless/gen_numeric_sweep.py", {"numeric-sweep.json": lambda g: g["cases"]()}),
    ("functions/gen_cast_to_string.py", {"cast-to-string.json": lambda g: g["cases"](),
                                          "array-join-elements.json": lambda g: g["array_join_cases"]()}),
    ("serde/internal_value_schemas_gen.py", {"internal-value-schemas.json": lambda g: g["tests"]}),
    ("serde/avro_type_names_gen.py", {"avro-type-names.json": lambda g: g["cases"]()}),
    ("serde/protobuf_wrappers_gen.py", {"protobuf-wrappers.json": lambda g: g["tests"]}),
    ("serde/json_sr_schema_kinds_gen.py", {"json-sr-schema-kinds.json": lambda g: g["tests"]}),
    ("serde/json_sr_field_order_gen.py", {"json-sr-field-order.json": lambda g: g["tests"]}),
])
def test_generated_files_match_their_generator(generator: str, files: dict) -> None:  # type: ignore[type-arg]
    path = CASES / generator
    sys.path.insert(0, str(path.parent))  # as ``python <generator>`` runs it: its neighbours (case_keys) import
    try:
        g = runpy.run_path(str(path))
    finally:
        sys.path.remove(str(path.parent))
    for name, build in files.items():
        written = json.loads((path.parent / name).read_text())["tests"]
        assert json.loads(json.dumps(build(g))) == written, f"{name} is stale: run python {path}"
