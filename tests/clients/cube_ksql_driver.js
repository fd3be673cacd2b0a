// Cube's ksqlDB driver (npm "@cubejs-backend/ksql-driver"), called as Cube calls it, against a ksqlpy server.
// Cube names a pre-aggregation `schema.table` and keeps it in ksqlDB as `schema-table` (backquoted), builds it
// with CREATE TABLE ... WITH (KEY_FORMAT='JSON') AS SELECT in the SQL its KsqlQuery dialect writes, reads sources'
// columns from DESCRIBE and lists them with SHOW TABLES / SHOW STREAMS. Every statement goes to /ksql with a ';'
// appended. Prints one JSON line per step: {"step": ..., "result": ...}; tests/server/test_real_clients.py checks.
const { KsqlDriver } = require("@cubejs-backend/ksql-driver");
const axios = require("axios"); // the driver's own HTTP client

const [port, prefix] = [process.argv[2], process.argv[3]];
const schema = `${prefix.toLowerCase()}_pre_aggregations`;
const source = `${prefix.toLowerCase()}-events`;
const out = (step, result) => console.log(JSON.stringify({ step, result }));
const attempt = async (step, fn) => {
  try {
    out(step, { ok: await fn() });
  } catch (e) {
    out(step, { error: e.message });
  }
};

// KsqlQuery.timeGroupedColumn('day', ...) over CONVERT_TZ, as Cube writes a day dimension
const day = "PARSE_TIMESTAMP(FORMAT_TIMESTAMP(CONVERT_TZ(`events`.TS, 'UTC', 'UTC'), "
  + "'yyyy-MM-dd''T''00:00:00.000'), 'yyyy-MM-dd''T''HH:mm:ss.SSS', 'UTC')";

const main = async () => {
  const driver = new KsqlDriver({ url: `http://127.0.0.1:${port}` });
  await attempt("testConnection", () => driver.testConnection().then(() => true));
  await attempt("createSource", () => driver.query(
    `CREATE STREAM \`${source}\` (ID INT KEY, NAME STRING, TS TIMESTAMP, AMOUNT DOUBLE) `
    + `WITH (KAFKA_TOPIC='${source}', VALUE_FORMAT='JSON', PARTITIONS=1)`));
  await attempt("createRaw", () => driver.query(
    `CREATE STREAM ${prefix}_RAW (ID INT KEY, NAME STRING) WITH (KAFKA_TOPIC='${source}', VALUE_FORMAT='JSON')`));
  for (const [id, name, ts, amount] of [[1, "a", "2026-07-28T12:03:24", 2.5], [2, "a", "2026-07-28T18:00:00", 1.5],
    [3, "b", "2026-07-29T01:00:00", 4]]) {
    await attempt("insert", () => driver.query(
      `INSERT INTO \`${source}\` (ID, NAME, TS, AMOUNT) VALUES (?, ?, ?, ?)`, [id, name, ts, amount]));
  }
  const table = `${schema}.events_main`;
  // KsqlQuery.preAggregationLoadSql: the table name escaped, the rollup's SELECT with aliases after each column
  const loadSql = `CREATE TABLE \`${table}\` WITH (KEY_FORMAT='JSON') AS SELECT \`events\`.NAME \`events__name\`, `
    + `${day} \`events__ts_day\`, sum(\`events\`.AMOUNT) \`events__amount\`, count(*) \`events__count\` `
    + `FROM \`${source}\` AS \`events\` GROUP BY \`events\`.NAME, ${day}`;
  await attempt("load", () => driver.loadPreAggregationIntoTable(table, loadSql, [], { streamOffset: "earliest" }));
  await attempt("fetchTables", () => driver.fetchTables(schema));
  await attempt("getTablesQuery", () => driver.getTablesQuery(schema));
  await attempt("tablesSchema", () => driver.tablesSchema().then((s) => s[schema]));
  await attempt("tableColumnTypes", () => driver.tableColumnTypes(table));
  await attempt("downloadTable", () => driver.downloadTable(table, { streamOffset: "earliest" }));
  // the pre-aggregation's rows, as a pull query reads them once the table has caught up (Cube Store reads them
  // itself; the driver has no read call)
  await attempt("rows", async () => {
    for (let i = 0; i < 100; i += 1) {
      const { data } = await axios.post(`http://127.0.0.1:${port}/query-stream`,
        { sql: `SELECT * FROM \`${schema}-events_main\`;` }, { headers: { Accept: "application/json" } });
      if (data.length === 3) return data;
      await new Promise((r) => setTimeout(r, 100));
    }
    return null;
  });
  await attempt("downloadQueryResults", () => driver.downloadQueryResults(
    `SELECT * FROM ${prefix}_RAW WHERE NAME = ?`, ["a"], {}));
  // a backquoted source: the driver quotes the name again (DESCRIBE ``x``), which ksqlDB's lexer cannot read either
  await attempt("downloadQueryResultsQuoted", () => driver.downloadQueryResults(
    `SELECT * FROM \`${source}\` WHERE NAME = ?`, ["a"], {}));
  // a windowed table: Cube adds WINDOWSTART/WINDOWEND after the key columns when DESCRIBE names a window type
  const windowed = `${schema}.events_hourly`;
  await attempt("loadWindowed", () => driver.loadPreAggregationIntoTable(windowed,
    `CREATE TABLE \`${windowed}\` WITH (KEY_FORMAT='JSON') AS SELECT \`events\`.NAME \`events__name\`, `
    + `count(*) \`events__count\` FROM \`${source}\` AS \`events\` WINDOW TUMBLING (SIZE 1 HOUR) `
    + "GROUP BY `events`.NAME", [], { streamOffset: "earliest" }));
  await attempt("windowedColumnTypes", () => driver.tableColumnTypes(windowed));
  await attempt("selectRefused", () => driver.query(`select * from \`${source}\``));
  await attempt("describeMissing", () => driver.query(`DESCRIBE \`${schema}-nope\``));
  await attempt("dropTable", () => driver.dropTable(table));
  await attempt("dropWindowed", () => driver.dropTable(windowed));
  await attempt("fetchTablesAfterDrop", () => driver.fetchTables(schema));
  await attempt("dropSources", async () => [await driver.query(`DROP STREAM ${prefix}_RAW`),
    await driver.query(`DROP STREAM \`${source}\` DELETE TOPIC`)].map((r) => r.commandStatus.status));
};

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
