// One tools/call from the official TypeScript client, as Inspector and TypeScript-based IDEs make it.
// Usage: node ts_call_tool.mjs CLIENT_ENTRY TOOL ARGS_JSON; env URL, MCP_NOTEBOOK_TOKEN (never on argv),
// ERA ("legacy" | "auto"), TIMEOUT_MS (the request timeout), RESET ("1": resetTimeoutOnProgress).
// Prints one JSON line per event: connected, progress, result or error.
const [entry, tool, args] = process.argv.slice(2);
const { Client, StreamableHTTPClientTransport } = await import(entry);

const say = (event) => process.stdout.write(JSON.stringify(event) + "\n");
const client = new Client(
  { name: "ts-client", version: "1.0.0" },
  { versionNegotiation: { mode: process.env.ERA } },
);
const transport = new StreamableHTTPClientTransport(new URL(process.env.URL), {
  requestInit: { headers: { Authorization: `Bearer ${process.env.MCP_NOTEBOOK_TOKEN}` } },
});
await client.connect(transport);
say({ event: "connected" });
try {
  const result = await client.callTool(
    { name: tool, arguments: JSON.parse(args) },
    {
      timeout: Number(process.env.TIMEOUT_MS),
      resetTimeoutOnProgress: process.env.RESET === "1",
      onprogress: (progress) => say({ event: "progress", ...progress }),
    },
  );
  say({ event: "result", result });
} catch (error) {
  say({ event: "error", code: error.code ?? null, message: String(error.message ?? error) });
}
await client.close();
