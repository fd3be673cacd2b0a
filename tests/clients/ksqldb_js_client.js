// The Node client ksqldb-js (npm "ksqldb-js"), every method its README shows but terminateCluster (it would end the
// server the other tests share: ksqldb_js_terminate.js runs it on a server of its own), against a ksqlpy server.
// Prints one JSON line per step: {"step": ..., "result": ...}; tests/server/test_real_clients.py checks them.
const Ksqldb = require("ksqldb-js");

const [port, name] = [parseInt(process.argv[2], 10), process.argv[3]];
const client = new Ksqldb({ ksqldbURL: `http://127.0.0.1:${port}` });
const out = (step, result) => console.log(JSON.stringify({ step, result }));
// axios responses carry sockets: keep what a caller reads
const plain = (r) => (r && r.status !== undefined && r.data !== undefined ? { status: r.status, data: r.data } : r);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const failed = async (step, call) => {
  try { out(step, { unexpected: plain(await call()) }); } catch (e) { out(step, { name: e.name, message: e.message }); }
};

const main = async () => {
  const [s, sAs, t] = [name, `${name}_AS`, `${name}_T`];
  out("createStream", plain(await client.createStream(s, ["name VARCHAR", "email varchar", "age INTEGER"],
    `${s.toLowerCase()}`, "json", 1)));
  out("createStreamAs", await client.createStreamAs(sAs, ["name", "age"], s,
    { kafka_topic: `${sAs.toLowerCase()}`, value_format: "json", partitions: 1 }, "age > 50"));
  out("createTableAs", plain(await client.createTableAs(t, s, ["name", "LATEST_BY_OFFSET(age) AS recentAge"],
    { topic: `${t.toLowerCase()}` }, { WHERE: "age >= 21", GROUP_BY: "name" })));
  const pushed = [];
  const queryId = await client.push(`SELECT * FROM ${s} EMIT CHANGES;`, (chunk) => pushed.push(chunk));
  out("push_id", queryId);
  await sleep(300); // the push query starts at the latest offset: let it subscribe before the inserts
  out("insertStream", await client.insertStream(s, [
    { NAME: "jack", EMAIL: "123@mail.com", AGE: 25 },
    { NAME: "john", EMAIL: "456@mail.com", AGE: 60 },
  ]));
  for (let i = 0; i < 100 && pushed.length < 3; i += 1) await sleep(100);
  out("pushed", pushed.map((c) => JSON.parse(c)));
  out("terminate", await client.terminate(queryId));
  for (let i = 0; i < 100; i += 1) { // until the table has caught up
    const rows = await client.pull(`SELECT * FROM ${t} WHERE name = 'john';`);
    if (rows.length > 1) break;
    await sleep(100);
  }
  out("pull_table", await client.pull(`SELECT * FROM ${t};`));
  out("pull_key", await client.pull(`SELECT * FROM ${t} WHERE name = 'jack';`));
  out("pull_stream", await client.pull(`SELECT * FROM ${s};`));
  out("pullFromTo", await client.pullFromTo(s, "America/Los_Angeles", ["2000-01-01", "00", "00", "00"]));
  out("list", await client.ksql("LIST STREAMS;"));
  out("status", plain(await client.inspectQueryStatus(`stream/${s}/create`)));
  out("info", plain(await client.inspectServerInfo()));
  out("health", plain(await client.inspectServerHealth()));
  out("cluster", plain(await client.inspectClusterStatus()));
  out("valid_property", plain(await client.isValidProperty("ksql.streams.auto.offset.reset")));
  await failed("bad_ksql", () => client.ksql(`DROP STREAM ${s}_NOPE;`));
  await failed("bad_pull", () => client.pull(`SELECT * FROM ${s}_NOPE;`));
  out("drop", await client.ksql(`DROP STREAM IF EXISTS ${sAs} DELETE TOPIC;`));
};

main().then(() => process.exit(0), (e) => { console.error(e && (e.stack || e)); process.exit(1); });
