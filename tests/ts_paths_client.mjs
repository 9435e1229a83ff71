// A TypeScript SDK client for tests/peers/test_paths.py: it starts `mcp-notebook serve NOTEBOOK --stdio` as its
// child process, the way a desktop client does, and prints what it saw as one JSON line on stdout:
// progress, log lines and the question the server asked, next to the results of the calls.
//
//   node ts_paths_client.mjs v1|v2 COMMAND ARG...
//
// v1 is @modelcontextprotocol/sdk 1.x (2025-11-25: logging/setLevel, elicitation/create requests);
// v2 is @modelcontextprotocol/client pinned to 2026-07-28 (the log level travels in each request's
// _meta, questions come as input_required rounds the client answers and retries itself).
// The child inherits this process's environment; it needs no token (the stdio pipe is the credential).

const [sdk, command, ...args] = process.argv.slice(2);
const LOG_LEVEL_META_KEY = "io.modelcontextprotocol/logLevel";

const seen = { progress: [], logs: [], asked: [] };

function record(name, request) {
  seen.asked.push({ method: name, params: request.params });
  return { action: "accept", content: { name: "Ann" } };
}

let client;
let transport;
if (sdk === "v1") {
  const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
  const { StdioClientTransport } = await import("@modelcontextprotocol/sdk/client/stdio.js");
  const types = await import("@modelcontextprotocol/sdk/types.js");
  client = new Client({ name: "ts-paths", version: "1.0.0" }, { capabilities: { elicitation: {} } });
  client.setRequestHandler(types.ElicitRequestSchema, (request) => record("elicitation/create", request));
  client.setNotificationHandler(types.LoggingMessageNotificationSchema, (n) => seen.logs.push(n.params));
  transport = new StdioClientTransport({ command, args, env: process.env, stderr: "inherit" });
} else {
  const { Client } = await import("@modelcontextprotocol/client");
  const { StdioClientTransport } = await import("@modelcontextprotocol/client/stdio");
  client = new Client(
    { name: "ts-paths", version: "2.0.0" },
    { capabilities: { elicitation: {} }, versionNegotiation: { mode: { pin: "2026-07-28" } } },
  );
  client.setRequestHandler("elicitation/create", (request) => record("elicitation/create", request));
  client.setNotificationHandler("notifications/message", (n) => seen.logs.push(n.params));
  transport = new StdioClientTransport({ command, args, env: process.env, stderr: "inherit" });
}

await client.connect(transport);
// Progress is recorded as it arrives on the pipe: the SDK hands it to `onprogress` in a microtask, and
// a response read in the same chunk retires the progress token first (v1 then drops the last step).
const receive = transport.onmessage;
transport.onmessage = (message, ...rest) => {
  if (message.method === "notifications/progress") {
    const { progressToken, ...progress } = message.params;
    seen.progress.push(progress);
  }
  return receive.call(transport, message, ...rest);
};
const onprogress = () => {}; // asks for progress (a progressToken on the request)
let work;
if (sdk === "v1") {
  await client.setLoggingLevel("info");
  work = await client.callTool({ name: "work", arguments: { steps: 2 } }, undefined, { onprogress });
} else {
  work = await client.callTool(
    { name: "work", arguments: { steps: 2 }, _meta: { [LOG_LEVEL_META_KEY]: "info" } },
    { onprogress },
  );
}
const named = await client.callTool({ name: "ask_name", arguments: {} });
const protocolVersion = client.getNegotiatedProtocolVersion?.() ?? transport.protocolVersion ?? null;
await client.close();
process.stdout.write(JSON.stringify({ sdk, protocolVersion, work, named, ...seen }) + "\n");
