// The official MCP Apps packages against this package's server: ext-apps' own helpers read the tools'
// links and the views' metadata (and its schemas check them), then its host bridge (AppBridge, given a
// TypeScript client connected to the server) and its view SDK (App) talk over an in-memory pipe: the
// view's ui/initialize, and tools/call of the table's view-only tool, which the bridge sends upstream.
// Usage: node ts_ext_apps.mjs CLIENT_ENTRY EXT_APPS_ROOT; env URL, MCP_NOTEBOOK_TOKEN (never on
// argv), ERA ("legacy" | "auto"). Prints one JSON object.
import path from "node:path";
import { pathToFileURL } from "node:url";

const [clientEntry, extApps] = process.argv.slice(2);
const { Client, StreamableHTTPClientTransport, InMemoryTransport } = await import(clientEntry);
const bridgeModule = await import(pathToFileURL(path.join(extApps, "dist/src/app-bridge.js")).href);
const { App } = await import(pathToFileURL(path.join(extApps, "dist/src/app.js")).href);
const {
  AppBridge,
  RESOURCE_MIME_TYPE,
  McpUiResourceMetaSchema,
  McpUiToolMetaSchema,
  getToolUiResourceUri,
  isToolVisibilityAppOnly,
} = bridgeModule;

const client = new Client({ name: "ext-apps-host", version: "1.0.0" }, { versionNegotiation: { mode: process.env.ERA } });
await client.connect(
  new StreamableHTTPClientTransport(new URL(process.env.URL), {
    requestInit: { headers: { Authorization: `Bearer ${process.env.MCP_NOTEBOOK_TOKEN}` } },
  }),
);

const tools = {};
for (const tool of (await client.listTools()).tools) {
  tools[tool.name] = {
    resourceUri: getToolUiResourceUri(tool) ?? null,
    appOnly: isToolVisibilityAppOnly(tool),
    metaValid: McpUiToolMetaSchema.safeParse(tool._meta?.ui ?? {}).success,
  };
}
const views = {};
for (const uri of ["ui://weather/view", "ui://menu/table"]) {
  const [content] = (await client.readResource({ uri })).contents;
  views[uri] = {
    mimeType: content.mimeType,
    isAppMime: content.mimeType === RESOURCE_MIME_TYPE,
    ui: content._meta?.ui ?? null,
    metaValid: McpUiResourceMetaSchema.safeParse(content._meta?.ui ?? {}).success,
    startsAsHtml: content.text.startsWith("<!doctype html>"),
  };
}

const bridge = new AppBridge(client, { name: "ext-apps-host", version: "1.0.0" }, { serverTools: {}, serverResources: {} });
// No DOM in Node: the view does not watch its size (autoResize needs requestAnimationFrame).
const app = new App({ name: "probe-view", version: "1.0.0" }, {}, { autoResize: false });
const [hostSide, viewSide] = InMemoryTransport.createLinkedPair();
const initialized = new Promise((resolve) => {
  bridge.oninitialized = resolve;
});
await bridge.connect(hostSide);
await app.connect(viewSide);
await initialized;
const called = await app.callServerTool({ name: "menu_rows", arguments: { query: "ice" } });
const read = await app.readServerResource({ uri: "ui://weather/view" }).catch((error) => ({ error: String(error) }));

process.stdout.write(
  JSON.stringify({
    tools,
    views,
    host: app.getHostVersion?.() ?? null,
    called: { isError: called.isError ?? false, structuredContent: called.structuredContent ?? null },
    viewRead: read.contents ? read.contents[0].mimeType : read,
  }) + "\n",
);
await app.close();
await client.close();
