// Confluent's ksqlDB GraphQL bindings (npm "@confluentinc/ksqldb-graphql" 0.2.4 over "@confluentinc/ksqldb-client"
// 0.2.4) against a ksqlpy server, used as their README and rideshare example do: generateGraphQL({ options }) reads
// SHOW STREAMS EXTENDED; SHOW TABLES EXTENDED over /ksql (HTTP/1.1), then GraphQL queries run pull queries,
// subscriptions push queries (both /query-stream over HTTP/2, the delimited format), mutations INSERT INTO over
// /ksql on HTTP/2; runCommand posts any statement to /ksql.
// The packages ship TypeScript only ("main": "index.ts"): a require hook transpiles them with the TypeScript
// compiler, as a TypeScript project that depends on them would; their code is not changed.
// Prints one line per step, "@@" + JSON {"step": ..., "result": ...}; the driver prints its schema with console.log.
const fs = require("fs");
const http2 = require("http2");
const ts = require("typescript");

require.extensions[".ts"] = (module, filename) => {
  const out = ts.transpileModule(fs.readFileSync(filename, "utf8"), {
    fileName: filename,
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2019 },
  });
  module._compile(out.outputText, filename);
};

const { generateGraphQL, runCommand } = require("@confluentinc/ksqldb-graphql");
const { graphql, subscribe, parse, printSchema } = require("graphql");

const [port, name] = [parseInt(process.argv[2], 10), process.argv[3]];
const options = { hostname: "127.0.0.1", port };
const out = (step, result) => process.stdout.write(`@@${JSON.stringify({ step, result })}\n`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// the resolvers attached to the generated schema, as a GraphQL server given { typeDefs, resolvers } does
const executable = (schema, { queryResolvers, subscriptionResolvers, mutationResolvers }) => {
  for (const [type, resolvers] of [[schema.getQueryType(), queryResolvers],
    [schema.getMutationType(), mutationResolvers], [schema.getSubscriptionType(), subscriptionResolvers]]) {
    const fields = type.getFields();
    for (const [field, resolver] of Object.entries(resolvers)) {
      if (typeof resolver === "function") fields[field].resolve = resolver;
      else fields[field].subscribe = resolver.subscribe;
    }
  }
  return schema;
};

const main = async () => {
  const [s, t] = [name, `${name}_TOTALS`];
  out("create", await runCommand(`CREATE STREAM ${s} (ID STRING KEY, V INT, NAME STRING, SCORE DOUBLE, `
    + `TAGS ARRAY<STRING>, LOC STRUCT<LAT DOUBLE, LON DOUBLE>) WITH (KAFKA_TOPIC='${s.toLowerCase()}', `
    + "VALUE_FORMAT='JSON', PARTITIONS=1);", options));
  out("ctas", await runCommand(`CREATE TABLE ${t} AS SELECT ID, SUM(V) AS TOTAL, COUNT(*) AS N FROM ${s} `
    + "GROUP BY ID;", options));
  const built = await generateGraphQL({ options });
  const schema = executable(built.schemas, built);
  out("schema", printSchema(schema));
  const session = http2.connect(`http://127.0.0.1:${port}`);
  const contextValue = { ksqlDB: { options, session } };
  const run = async (source) => JSON.parse(JSON.stringify(await graphql({ schema, source, contextValue })));

  // a subscription: a push query from the latest offset, so it is running before the mutations write
  const pushed = await subscribe({ schema, document: parse(`subscription { ${s}(ID: "b") { ID V TAGS } }`),
    contextValue });
  const firstThree = (async () => {
    const got = [];
    for await (const item of pushed) {
      got.push(JSON.parse(JSON.stringify(item)));
      if (got.length === 3) break; // return(): the client closes its HTTP/2 stream
    }
    return got;
  })();
  for (let i = 0; i < 100; i += 1) { // until the server lists the push query
    const queries = (await runCommand("SHOW QUERIES;", options)).data[0].queries;
    if (queries.some((q) => q.queryType === "PUSH")) break;
    await sleep(100);
  }
  // mutations: INSERT INTO over /ksql on HTTP/2. The client's ddl() resolves on its request stream's 'connect'
  // event, which Node's HTTP/2 streams never emit (whatever the server answers), so a mutation's promise never
  // settles: the inserts are sent, and seen below through the subscription and the table
  const mutations = [];
  for (const [id, v, score] of [["a", 1, 1.5], ["b", 2, 2.5], ["b", 3, 0.5]]) {
    const call = graphql({ schema, contextValue, source: `mutation { ${s}(ID: "${id}", V: ${v}, NAME: "n-${id}", `
      + `SCORE: ${score}) { command statusCode } }` });
    mutations.push(await Promise.race([call.then((r) => ({ settled: r })), sleep(300).then(() => "pending")]));
  }
  out("mutations", mutations);
  out("insert", await runCommand(`INSERT INTO ${s} (ID, V, TAGS, LOC) VALUES ('b', 4, ARRAY['x', 'y'], `
    + "STRUCT(LAT := 51.5, LON := -0.1));", options));
  out("pushed", await firstThree);
  let after = [];
  for (let i = 0; i < 100; i += 1) { // the closed push query is gone
    after = (await runCommand("SHOW QUERIES;", options)).data[0].queries.filter((q) => q.queryType === "PUSH");
    if (after.length === 0) break;
    await sleep(100);
  }
  out("push_queries_after_close", after);
  let total = null;
  for (let i = 0; i < 100; i += 1) { // until the table has both b rows
    total = await run(`{ ${t}(ID: "b") { ID TOTAL N } }`);
    if (total.data && total.data[t] && total.data[t].N === 3) break;
    await sleep(100);
  }
  out("query_b", total);
  out("query_a", await run(`{ ${t}(ID: "a") { TOTAL } }`));
  out("show_streams", await runCommand("SHOW STREAMS;", options));
  out("bad_command", await runCommand(`DROP STREAM ${s}_NOPE;`, options));
  out("drop", await runCommand(`DROP TABLE ${t} DELETE TOPIC;`, options));
  session.close();
};

main().then(() => process.exit(0), (e) => { console.error(e && (e.stack || e)); process.exit(1); });
