"""Scenarios in the shape of ksqlDB's documentation pages, in our own words and data: each page's kinds of
statement typed as a reader types them - keyword case as the docs mix it, ``WITH`` property spellings,
comments, statements over several lines, several statements in one request, the request bodies the REST
pages show - with the answers ksqlDB gives.

One module per page family; every scenario is a function of a name prefix (so scenarios share one server)
returning its steps.
"""

from __future__ import annotations

from collections.abc import Callable

from docs_runner import Step

from .concepts import (
    ha_and_exactly_once,
    operators,
    partitioning,
    processing_log,
    pull_queries,
    type_coercion,
)
from .data_and_formats import data_types, header_columns, nested_data, serialization_formats, structured_data
from .developer_guide import SCENARIOS as DEVELOPER_GUIDE
from .functions import function_pages, lambda_functions, table_and_aggregate_functions
from .getting_started import identifiers_and_variables, quickstart, statements_text, with_spellings
from .queries_and_joins import (
    asymmetric_join_windows,
    changelog_to_table,
    joins,
    syntax_reference,
    update_running_query,
)
from .recent_functions import recent_functions
from .rest_and_cli import cli_only, info_status_endpoints, rest_pages
from .time_and_windows import custom_timestamp, time_and_windows, windowed_table_reference
from .tutorials import event_driven_tutorial, materialized_cache, migrations_tool, streaming_etl

SCENARIOS: dict[str, Callable[[str], list[Step]]] = {
    "quickstart": quickstart, "windowed_table_reference": windowed_table_reference,
    "asymmetric_join_windows": asymmetric_join_windows,
    "with_spellings": with_spellings, "statements_text": statements_text,
    "nested_data": nested_data, "time_and_windows": time_and_windows, "joins": joins, "rest_pages": rest_pages,
    "cli_only": cli_only, "migrations_tool": migrations_tool, "function_pages": function_pages,
    "event_driven_tutorial": event_driven_tutorial, "update_running_query": update_running_query,
    "identifiers_and_variables": identifiers_and_variables, "custom_timestamp": custom_timestamp,
    "info_status_endpoints": info_status_endpoints, "syntax_reference": syntax_reference,
    "changelog_to_table": changelog_to_table, "data_types": data_types,
    "lambda_functions": lambda_functions, "table_and_aggregate_functions": table_and_aggregate_functions,
    "serialization_formats": serialization_formats, "header_columns": header_columns,
    "processing_log": processing_log, "type_coercion": type_coercion, "operators": operators,
    "partitioning": partitioning, "pull_queries": pull_queries, "high_availability": ha_and_exactly_once,
    "materialized_cache": materialized_cache, "streaming_etl": streaming_etl, "structured_data": structured_data,
    "recent_functions": recent_functions,
    **DEVELOPER_GUIDE,
}
