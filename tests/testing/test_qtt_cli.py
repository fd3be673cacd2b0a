"""``ksqlpy test`` end to end on files written here: counts, the last line, the JSON report, -k, single mode."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from qtt_fake_engine import factory

from ksqlpy.testing.cli import main
from ksqlpy.testing.report import CaseResult, normalize, top_reasons

SOURCE = "CREATE STREAM SRC (K STRING KEY, V INT) WITH (kafka_topic='src', value_format='{FORMAT}');"
SINK = "CREATE STREAM OUT AS SELECT * FROM SRC;"


def write_suite(folder: Path) -> None:
    good = {"name": "copies", "format": ["JSON", "AVRO"], "statements": [SOURCE, SINK],
            "inputs": [{"topic": "src", "key": "a", "value": {"v": 1}}],
            "outputs": [{"topic": "OUT", "key": "a", "value": {"V": 1}}]}
    bad = {"name": "wrong value", "statements": [SOURCE.replace("{FORMAT}", "JSON"), SINK],
           "inputs": [{"topic": "src", "key": "a", "value": {"v": 1}}],
           "outputs": [{"topic": "OUT", "key": "a", "value": {"V": 2}}]}
    folder.mkdir()
    (folder / "one.json").write_text("// my cases\n" + json.dumps({"tests": [good, bad]}))
    (folder / "two.json").write_text(json.dumps({"tests": [{"name": "errs", "statements": ["FAIL 'x';"]}]}))


def test_directory_run_prints_summary_and_writes_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_suite(tmp_path / "suite")
    report = tmp_path / "r.json"
    code = main([str(tmp_path / "suite"), "--report", str(report)], factory=factory)
    out = capsys.readouterr().out
    assert code == 1
    assert out.rstrip().splitlines()[-1] == "1 passed, 2 failed, 1 skipped"
    assert "Top failure reasons" in out and "Top skip reasons" in out and "Unsupported format: AVRO" in out
    data = json.loads(report.read_text())
    assert data["summary"] == {"passed": 1, "failed": 2, "skipped": 1}
    assert data["files"]["one.json"] == {"passed": 1, "failed": 1, "skipped": 1}
    names = {(c["file"], c["name"]): c["status"] for c in data["cases"]}
    assert names == {("one.json", "copies [JSON]"): "passed", ("one.json", "copies [AVRO]"): "skipped",
                     ("one.json", "wrong value"): "failed", ("two.json", "errs"): "failed"}
    assert all({"file", "name", "status", "reason"} <= set(c) for c in data["cases"])


def test_k_filters_cases_and_jobs_run_in_parallel(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_suite(tmp_path / "suite")
    assert main([str(tmp_path / "suite"), "-k", "COPIES [json"], factory=factory) == 0
    assert capsys.readouterr().out.rstrip().endswith("1 passed, 0 failed, 0 skipped")
    assert main([str(tmp_path / "suite"), "--jobs", "2"], factory=factory) == 1
    assert capsys.readouterr().out.rstrip().endswith("1 passed, 2 failed, 1 skipped")


def test_single_case_mode(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "s.sql").write_text(SOURCE.replace("{FORMAT}", "JSON") + "\n" + SINK + "\n")
    (tmp_path / "in.json").write_text(json.dumps({"inputs": [{"topic": "src", "key": "k", "value": {"v": 3}}]}))
    (tmp_path / "out.json").write_text(json.dumps({"outputs": [{"topic": "OUT", "key": "k", "value": {"V": 3}}]}))
    args = ["--statements", str(tmp_path / "s.sql"), "--input", str(tmp_path / "in.json")]
    assert main([*args, "--output", str(tmp_path / "out.json")], factory=factory) == 0
    assert capsys.readouterr().out.rstrip().endswith("1 passed, 0 failed, 0 skipped")
    (tmp_path / "out.json").write_text(json.dumps({"outputs": [{"topic": "OUT", "key": "k", "value": {"V": 4}}]}))
    assert main([*args, "--output", str(tmp_path / "out.json")], factory=factory) == 1
    assert "value.V: expected 4, got 3" in capsys.readouterr().out


def test_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main([], factory=factory)
    assert main([str(tmp_path / "missing")], factory=factory) == 2
    with pytest.raises(SystemExit):  # a backfill property only means something to the differential
        main([str(tmp_path), "--backfill-property", "ksqlpy.backfill.task.records=2"], factory=factory)
    with pytest.raises(SystemExit):
        main([str(tmp_path), "--backfill-differential", "--backfill-property", "no-equals"], factory=factory)


def test_reasons_are_grouped_by_normalized_text() -> None:
    assert normalize("Function 'FOO' does not exist at line 3") == "Function '<s>' does not exist at line <n>"
    results = [CaseResult("f", str(i), "failed", f"Function 'F{i}' does not exist") for i in range(3)]
    results.append(CaseResult("f", "x", "failed", "other", group="output mismatch: value"))
    [(reason, count, examples), second] = top_reasons(results, "failed")
    assert (reason, count) == ("Function '<s>' does not exist", 3) and examples[0] == "f :: 0"
    assert second[:2] == ("output mismatch: value", 1)


def test_sql_files_split_at_semicolons_outside_quotes_and_comments() -> None:
    from ksqlpy.testing.single import split_statements

    text = "CREATE STREAM A (X STRING) WITH (k='a;b'); -- c;d\nSELECT `x;` FROM A /* ; */;\n-- end\n"
    assert split_statements(text) == ["CREATE STREAM A (X STRING) WITH (k='a;b');", "SELECT `x;` FROM A /* ; */;"]


def test_mutate_flag_reports_the_self_check(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_suite(tmp_path / "suite")
    assert main([str(tmp_path / "suite"), "-k", "copies", "--mutate"], factory=factory) == 0
    assert "Mutation self-check: 2 mutants of passed cases, 0 still passed" in capsys.readouterr().out


def test_unreachable_cluster_is_one_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def no_kafka(data_dir: str, props: dict[str, object]) -> object:
        raise ConnectionError(f"cannot reach {props['bootstrap.servers']}")

    write_suite(tmp_path / "suite")
    assert main([str(tmp_path / "suite"), "--bootstrap-servers", "nowhere:9092"], factory=no_kafka) == 2
    assert "cannot reach nowhere:9092" in capsys.readouterr().err
