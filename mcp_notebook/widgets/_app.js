// The host side of MCP Apps in a notebook output (mcp_notebook/widgets/_app.py).
//
// The app is a server's HTML, untrusted, shown in a page that holds the person's kernels. Its
// frame has `sandbox="allow-scripts"` and never `allow-same-origin`: its origin is opaque, so it
// can read no cookie, no storage and nothing of this page, and its requests carry none of the
// page's credentials. Its document (`srcdoc`) was made in the kernel with a Content-Security-Policy
// first in its head. It speaks JSON-RPC to us with postMessage; a message counts only when it comes
// from this frame's own window (`event.source`): the origin of every sandboxed frame is "null", so
// an origin string would tell one app from another, or from any other opaque frame, not at all.
//
// Answered here: `ui/initialize` (with the page's theme and the output's size), `ping`,
// `ui/request-display-mode` (inline only), `ui/notifications/size-changed` (the frame's height,
// within bounds). Everything that reaches past the frame (`tools/call`, `ui/open-link`,
// `ui/message`, ...) goes to the kernel, which decides and answers; links and messages come back as
// notes that this view shows as text (a link is an <a> the person clicks; nothing navigates).

const PROTOCOL_VERSION = "2026-01-26";
const SANDBOX = "allow-scripts"; // the kernel sends the same; anything else is refused below
const MIN_HEIGHT = 40;
const KERNEL_METHODS = new Set([
  "tools/call",
  "resources/read",
  "ui/open-link",
  "ui/message",
  "ui/update-model-context",
  "notifications/message",
]);

function theme() {
  const light = document.body.dataset.jpThemeLight;
  if (light === "true") return "light";
  if (light === "false") return "dark";
  return window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
}

function safeSandbox(value) {
  // Defence in depth: a sandbox with more than scripts is never applied, whatever the kernel says.
  return value === SANDBOX ? value : SANDBOX;
}

function render({ model, el }) {
  const root = document.createElement("div");
  root.className = "mcp-app";
  root.style.cssText = "display:flex;flex-direction:column;gap:4px;width:100%";
  const frameBox = document.createElement("div");
  frameBox.style.cssText = "width:100%";
  const notes = document.createElement("div");
  notes.className = "mcp-app-notes";
  notes.style.cssText = "display:flex;flex-direction:column;gap:2px";
  root.append(frameBox, notes);
  el.appendChild(root);

  let frame = null;
  // Which document of which view a request came from: one model may be shown in several views, and
  // each new frame is a new document; an answer goes only to the document that asked.
  const viewId = Math.random().toString(36).slice(2);
  let drawn = 0;
  let generation = "";
  let initialized = false;
  let height = 0;

  const post = (message) => {
    if (frame && frame.contentWindow) frame.contentWindow.postMessage({ jsonrpc: "2.0", ...message }, "*");
  };
  const answer = (id, result) => post({ id, result });
  const fail = (id, code, message) => post({ id, error: { code, message } });

  function hostContext() {
    const tool = model.get("tool");
    return {
      toolInfo: tool && tool.name ? { tool } : undefined,
      theme: theme(),
      displayMode: "inline",
      availableDisplayModes: ["inline"],
      containerDimensions: { width: Math.round(root.clientWidth) || 600, maxHeight: model.get("max_height") },
      locale: navigator.language,
      timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
      userAgent: "mcp-notebook",
      platform: "web",
    };
  }

  function sendResult() {
    const result = model.get("tool_result");
    if (initialized && result && Object.keys(result).length) {
      post({ method: "ui/notifications/tool-result", params: result });
    }
  }

  function sendToolData() {
    // After the handshake only (the spec: nothing before `initialized`); the input once per document.
    post({ method: "ui/notifications/tool-input", params: { arguments: model.get("tool_input") } });
    sendResult();
  }

  function resize(params) {
    const wanted = Number(params && params.height);
    if (!Number.isFinite(wanted)) return;
    height = Math.max(MIN_HEIGHT, Math.min(Math.ceil(wanted), model.get("max_height")));
    frame.style.height = `${height}px`;
  }

  function fromApp(event) {
    if (!frame || event.source !== frame.contentWindow) return; // only this frame's own window
    const message = event.data;
    if (!message || typeof message !== "object" || message.jsonrpc !== "2.0") return;
    const { id, method, params } = message;
    if (typeof method !== "string") return; // answers to requests we never send
    const isRequest = id !== undefined && id !== null;
    if (method === "ui/initialize" && isRequest) {
      answer(id, {
        protocolVersion: PROTOCOL_VERSION,
        hostInfo: { name: "mcp-notebook", version: model.get("host_version") },
        hostCapabilities: {
          openLinks: {},
          serverTools: {},
          logging: {},
          sandbox: { permissions: model.get("granted"), csp: model.get("csp") },
        },
        hostContext: hostContext(),
      });
    } else if (method === "ui/notifications/initialized") {
      if (!initialized) {
        initialized = true;
        model.send({ kind: "initialized", generation });
        sendToolData();
      }
    } else if (method === "ui/notifications/size-changed") {
      resize(params);
    } else if (method === "ping" && isRequest) {
      answer(id, {});
    } else if (method === "ui/request-display-mode" && isRequest) {
      answer(id, { mode: "inline" });
    } else if (KERNEL_METHODS.has(method)) {
      model.send({ kind: "request", generation, id: isRequest ? id : null, method, params: params ?? {} });
    } else if (isRequest) {
      fail(id, -32601, `Method not found: ${method}`);
    }
  }
  window.addEventListener("message", fromApp);

  function draw() {
    drawn += 1;
    generation = `${viewId}-${drawn}`;
    initialized = false;
    if (frame) frame.remove();
    frame = document.createElement("iframe");
    frame.className = "mcp-app-frame";
    frame.setAttribute("sandbox", safeSandbox(model.get("sandbox")));
    const allow = model.get("allow");
    if (allow) frame.setAttribute("allow", allow);
    frame.setAttribute("referrerpolicy", "no-referrer");
    frame.title = model.get("title");
    const border = model.get("border") ? "1px solid var(--jp-border-color1,#ccc)" : "none";
    frame.style.cssText = `width:100%;border:${border};height:${height || model.get("initial_height")}px;`;
    frame.srcdoc = model.get("srcdoc");
    frameBox.appendChild(frame);
  }

  function showNotes() {
    const texts = model.get("texts");
    notes.replaceChildren();
    for (const note of model.get("notes")) {
      const row = document.createElement("div");
      row.className = `mcp-app-note mcp-app-${note.kind}`;
      row.style.cssText = "overflow-wrap:anywhere;font-size:var(--jp-ui-font-size1,13px)";
      const label = document.createElement("b");
      label.textContent = texts[note.kind] || note.kind;
      row.append(label, " ");
      if (note.kind === "link") {
        // Only http(s), checked in the kernel; shown as its address, opened only by a click.
        const link = document.createElement("a");
        link.href = note.url;
        link.textContent = note.url;
        link.target = "_blank";
        link.rel = "noopener noreferrer";
        row.appendChild(link);
      } else {
        const text = document.createElement("span");
        text.textContent = note.text;
        text.style.whiteSpace = "pre-wrap";
        row.appendChild(text);
      }
      notes.appendChild(row);
    }
  }

  function fromKernel(content) {
    if (!content || content.generation !== generation) return;
    if (content.kind === "answer") {
      if (content.error) fail(content.id, content.error.code, content.error.message);
      else answer(content.id, content.result);
    }
  }

  // JupyterLab's theme is switched on the page's body: tell the app, as the spec's context change.
  let shownTheme = theme();
  const themeWatch = new MutationObserver(() => {
    if (theme() !== shownTheme) {
      shownTheme = theme();
      if (initialized) post({ method: "ui/notifications/host-context-changed", params: { theme: shownTheme } });
    }
  });
  themeWatch.observe(document.body, { attributes: true, attributeFilter: ["data-jp-theme-light"] });

  model.on("msg:custom", fromKernel);
  model.on("change:srcdoc", draw);
  model.on("change:allow", draw); // a permission applies to a document loaded after it
  model.on("change:notes", showNotes);
  model.on("change:tool_result", sendResult);
  draw();
  showNotes();
  return () => {
    // The spec asks the host to say so before the frame goes; the frame goes with the view at once.
    if (initialized) post({ id: `teardown-${generation}`, method: "ui/resource-teardown", params: { reason: "view removed" } });
    themeWatch.disconnect();
    window.removeEventListener("message", fromApp);
    model.off("msg:custom", fromKernel);
    model.off("change:srcdoc", draw);
    model.off("change:allow", draw);
    model.off("change:notes", showNotes);
    model.off("change:tool_result", sendResult);
  };
}

export default { render };
