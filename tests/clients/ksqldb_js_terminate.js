// ksqldb-js (npm "ksqldb-js") terminateCluster, as its README shows, against a ksqlpy server of its own (it ends
// the server's work): sinks made by the client, TERMINATE CLUSTER with a topic pattern, then what the client
// gets from the terminated server. One JSON line per step: {"step": ..., "result": ...}.
const Ksqldb = require("ksqldb-js");

const [port, name] = [parseInt(process.argv[2], 10), process.argv[3]];
const client = new Ksqldb({ ksqldbURL: `http://127.0.0.1:${port}` });
const out = (step, result) => console.log(JSON.stringify({ step, result }));
const plain = (r) => (r && r.status !== undefined && r.data !== undefined ? { status: r.status, data: r.data } : r);
const caught = async (step, call) => {
  try { out(step, { unexpected: plain(await call()) }); } catch (e) { out(step, { name: e.name, message: e.message }); }
};

const main = async () => {
  await client.createStream(name, ["id INTEGER", "v VARCHAR"], name.toLowerCase(), "json", 1);
  out("createStreamAs", await client.createStreamAs(`${name}_GONE`, ["id", "v"], name,
    { kafka_topic: `${name.toLowerCase()}_gone`, value_format: "json", partitions: 1 }, "id > 0"));
  out("createStreamAsKept", await client.createStreamAs(`${name}_KEPT`, ["id", "v"], name,
    { kafka_topic: `${name.toLowerCase()}_kept`, value_format: "json", partitions: 1 }, "id > 0"));
  out("topicsBefore", (await client.ksql("SHOW TOPICS;")).topics.map((t) => t.name).sort());
  out("terminateCluster", plain(await client.terminateCluster([`${name.toLowerCase()}_g.*`])));
  await caught("ksqlAfter", () => client.ksql("SHOW TOPICS;"));
  await caught("healthAfter", () => client.inspectServerHealth());
};

main().then(() => process.exit(0), (e) => { console.error(e && (e.stack || e)); process.exit(1); });
