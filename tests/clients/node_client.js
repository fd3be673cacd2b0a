// The Node ksqldb-client (npm "ksqldb-client"), used as its README shows, against a ksqlpy server.
// Prints one JSON line per step: {"step": ..., "result": ...}; tests/server/test_real_clients.py checks them.
const KsqldbClient = require("ksqldb-client");

const [port, stream] = [parseInt(process.argv[2], 10), process.argv[3]];
const table = `${stream}_T`;
const out = (step, result) => console.log(JSON.stringify({ step, result }));

const main = async () => {
  const client = new KsqldbClient({ host: "http://127.0.0.1", port });
  await client.connect();
  out("create", await client.executeStatement(
    `CREATE STREAM ${stream} (id VARCHAR KEY, v INT) WITH (KAFKA_TOPIC='${stream.toLowerCase()}', VALUE_FORMAT='JSON', PARTITIONS=1);`));
  out("insert", await client.insertInto(stream, { ID: "a", V: 1 }));
  out("insert", await client.insertInto(stream, { ID: "b", V: 2 }));
  out("pull_stream", await client.query(`SELECT * FROM ${stream};`));
  out("ctas", await client.executeStatement(
    `CREATE TABLE ${table} AS SELECT id, SUM(v) AS s FROM ${stream} GROUP BY id;`,
    { streamsProperties: { "ksql.streams.auto.offset.reset": "earliest" } }));
  for (let i = 0; i < 100; i += 1) { // until the table has caught up
    const { data } = await client.query(`SELECT * FROM ${table} WHERE id = 'b';`);
    if (data && data.rows.length) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  out("pull_a", await client.query(`SELECT * FROM ${table} WHERE id = 'a';`));
  out("pull_b", await client.query(`SELECT * FROM ${table} WHERE id = 'b';`));
  // a key lookup through the delimited stream handler: one JSON document per DATA frame
  for (const key of ["a", "b", "a"]) {
    const rows = [];
    await client.streamQuery(`SELECT * FROM ${table} WHERE id = '${key}';`, (d) => rows.push(d.rows || null));
    out(`lookup_${key}`, rows);
  }
  const pushed = [];
  const ended = await client.streamQuery(`SELECT * FROM ${stream} EMIT CHANGES;`, async (data) => {
    pushed.push(data.rows || null);
    if (pushed.length === 3) await client.terminatePushQuery(data.metadata.queryId);
  }, { properties: { "auto.offset.reset": "earliest" } });
  out("push", { pushed, status: ended.status });
  out("streams", await client.listStreams());
  out("tables", await client.listTables());
  out("queries", await client.listQueries());
  out("topics", await client.listTopics());
  out("bad", await client.executeStatement(`DROP STREAM ${stream}_NOPE;`));
  out("bad_query", await client.query(`SELECT * FROM ${stream}_NOPE;`));
  out("describe", await client.describeSource(stream));
  // session variables, as the README passes them: ${NAME} in a statement, a pull query and a push query
  const words = `${stream}_W`;
  out("vars_create", await client.executeStatement(
    "CREATE TABLE ${TABLE_NAME} AS SELECT id AS WORD, COUNT(*) AS N FROM ${SOURCE} GROUP BY id;", {
      sessionVariables: { TABLE_NAME: words, SOURCE: stream },
      streamsProperties: { "auto.offset.reset": "earliest" },
    }));
  const query = "SELECT * FROM ${TABLE_NAME} WHERE WORD in ('${FIRST_WORD}', '${SECOND_WORD}');";
  let pulled = null;
  for (let i = 0; i < 100; i += 1) { // until the table has caught up
    pulled = await client.query(query, { sessionVariables: { TABLE_NAME: words, FIRST_WORD: "a", SECOND_WORD: "b" } });
    if (pulled.data && pulled.data.rows.length === 2) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  out("vars_pull", pulled);
  const varsPushed = [];
  const varsEnded = await client.streamQuery("SELECT * FROM ${TABLE_NAME} EMIT CHANGES LIMIT 2;",
    (data) => varsPushed.push(data.rows || data.metadata.columnNames), {
      sessionVariables: { TABLE_NAME: words }, properties: { "auto.offset.reset": "earliest" } });
  out("vars_push", { pushed: varsPushed, status: varsEnded.status });
  out("vars_unset", await client.query("SELECT * FROM ${NOT_SET};"));
  out("vars_drop", await client.executeStatement("DROP TABLE ${TABLE_NAME};", { sessionVariables: { TABLE_NAME: words } }));
  out("drop", await client.executeStatement(`DROP TABLE ${table};`));
  await client.disconnect();
};

main().catch((e) => { console.error(`FAILED: ${e && e.stack ? e.stack : e}`); process.exit(1); });
