// One tools/call as a 2025-11-25 task from the official TypeScript SDK 1.x (experimental tasks):
// callToolStream creates the task, polls tasks/get, answers the task's questions on tasks/result's
// stream, and reads the result there. Usage: node ts_tasks_client.mjs SDK_ROOT_URL TOOL ARGS_JSON;
// env URL, MCP_NOTEBOOK_TOKEN (never on argv). Prints one JSON line per message, then "exit".
const [root, tool, args] = process.argv.slice(2);
const { Client } = await import(`${root}/dist/esm/client/index.js`);
const { StreamableHTTPClientTransport } = await import(`${root}/dist/esm/client/streamableHttp.js`);
const { ElicitRequestSchema, CallToolResultSchema } = await import(`${root}/dist/esm/types.js`);

const say = (event) => process.stdout.write(JSON.stringify(event) + "\n");
const client = new Client({ name: "ts-tasks-client", version: "1.0.0" }, { capabilities: { elicitation: {} } });
client.setRequestHandler(ElicitRequestSchema, async (request) => {
  say({ event: "asked", message: request.params.message, meta: request.params._meta ?? null });
  return { action: "accept", content: { name: "Ada" } };
});
const transport = new StreamableHTTPClientTransport(new URL(process.env.URL), {
  requestInit: { headers: { Authorization: `Bearer ${process.env.MCP_NOTEBOOK_TOKEN}` } },
});
await client.connect(transport);
await client.listTools(); // the client augments only calls of tools it knows support tasks
const stream = client.experimental.tasks.callToolStream(
  { name: tool, arguments: JSON.parse(args) },
  CallToolResultSchema,
  { task: { ttl: 60000 } },
);
for await (const message of stream) {
  if (message.type === "error") say({ event: "error", message: String(message.error?.message ?? message.error) });
  else if (message.type === "result") say({ event: "result", result: message.result });
  else say({ event: message.type, task: message.task });
}
await client.close();
say({ event: "exit" });
