// The floating badge for calls that wait for a person (mcp_notebook/widgets/_badge.py).
//
// It runs when the model reaches the page (anywidget's `initialize`), not when a view is shown:
// the kernel never displays it, so it works with no panel on screen and whatever cell is in view.
// One badge per model, on document.body, outside every output area. Every text comes from a
// client, a server or the message catalogue and is set with textContent, never as HTML.

// Several models (several kernels in one page) share one corner and one title prefix; each
// module instance finds the others through this one global.
const KEY = "__mcpNotebookWaiting1";

function shared() {
  if (!globalThis[KEY]) {
    globalThis[KEY] = { badges: new Map(), prefix: "", observer: null, corner: null };
  }
  return globalThis[KEY];
}

function corner(state) {
  if (!state.corner || !state.corner.isConnected) {
    const box = document.createElement("div");
    box.className = "mcp-badges";
    box.style.cssText =
      "position:fixed;right:16px;bottom:16px;z-index:10000;display:flex;flex-direction:column;" +
      "gap:8px;align-items:flex-end;max-width:min(420px,calc(100vw - 32px))";
    document.body.appendChild(box);
    state.corner = box;
  }
  return state.corner;
}

// The tab's title: "(N) " before whatever JupyterLab puts there, which it rewrites when the
// current document changes; an observer puts the count back in front.
function retitle(state) {
  let total = 0;
  for (const count of state.badges.values()) total += count;
  const prefix = total > 0 ? `(${total}) ` : "";
  const title = document.title;
  const base = state.prefix && title.startsWith(state.prefix) ? title.slice(state.prefix.length) : title;
  state.prefix = prefix;
  if (document.title !== prefix + base) document.title = prefix + base;
  if (total > 0 && !state.observer) {
    state.observer = new MutationObserver(() => {
      if (state.prefix && !document.title.startsWith(state.prefix)) {
        document.title = state.prefix + document.title;
      }
    });
    state.observer.observe(document.head, { childList: true, characterData: true, subtree: true });
  } else if (total === 0 && state.observer) {
    state.observer.disconnect();
    state.observer = null;
  }
}

// The first waiting prompt that is on the page and drawn (not in a hidden tab, not detached by
// JupyterLab's windowing); the class is random per kernel, so no output's HTML can pose as one.
function firstPrompt(marker) {
  if (!marker) return null;
  for (const element of document.getElementsByClassName(marker)) {
    if (element.isConnected && element.getClientRects().length > 0) return element;
  }
  return null;
}

function button(text, onClick) {
  const element = document.createElement("button");
  element.type = "button";
  element.textContent = text;
  element.className = "jp-Button";
  element.style.cssText =
    "cursor:pointer;padding:2px 10px;border-radius:3px;white-space:nowrap;" +
    "border:1px solid var(--jp-border-color1,#bbb);background:var(--jp-layout-color2,#eee);" +
    "color:var(--jp-ui-font-color1,#000)";
  element.addEventListener("click", onClick);
  return element;
}

function entryView(model, entry, texts) {
  const row = document.createElement("div");
  row.className = "mcp-badge-entry";
  row.style.cssText = "border-top:1px solid var(--jp-border-color2,#ddd);padding-top:6px";
  const text = document.createElement("div");
  text.textContent = entry.text;
  text.style.cssText = "overflow-wrap:anywhere";
  row.appendChild(text);
  if (entry.kind !== "approval") return row;
  const args = document.createElement("pre");
  args.textContent = entry.arguments;
  args.style.cssText =
    "white-space:pre-wrap;overflow-wrap:anywhere;max-height:12em;overflow:auto;margin:4px 0;" +
    "font-family:var(--jp-code-font-family,monospace);font-size:var(--jp-code-font-size,12px)";
  row.appendChild(args);
  const actions = document.createElement("div");
  actions.style.cssText = "display:flex;gap:6px";
  const answer = (action) => () => {
    for (const each of actions.children) each.disabled = true;
    model.send({ action, id: entry.id });
  };
  actions.appendChild(button(texts.approve, answer("approve")));
  actions.appendChild(button(texts.deny, answer("deny")));
  row.appendChild(actions);
  return row;
}

function mount(model) {
  const state = shared();
  const badge = document.createElement("div");
  badge.className = "mcp-badge";
  badge.setAttribute("role", "status");
  badge.setAttribute("aria-live", "polite");
  badge.style.cssText =
    "display:none;flex-direction:column;gap:6px;padding:8px 12px;border-radius:6px;" +
    "box-shadow:0 2px 8px rgba(0,0,0,.3);border:2px solid var(--jp-warn-color0,#e0a800);" +
    "background:var(--jp-layout-color1,#fff);color:var(--jp-ui-font-color1,#000);" +
    "font-family:var(--jp-ui-font-family,sans-serif);font-size:var(--jp-ui-font-size1,13px)";
  const line = document.createElement("div");
  line.style.cssText = "display:flex;gap:8px;align-items:center";
  const count = document.createElement("span");
  count.className = "mcp-badge-count";
  count.style.cssText =
    "min-width:1.6em;text-align:center;border-radius:1em;font-weight:bold;padding:0 6px;" +
    "background:var(--jp-warn-color0,#e0a800);color:var(--jp-ui-inverse-font-color1,#fff)";
  const label = document.createElement("span");
  label.className = "mcp-badge-label";
  const card = document.createElement("div");
  card.className = "mcp-badge-card";
  card.style.cssText = "display:none;flex-direction:column;gap:6px;max-height:50vh;overflow:auto";
  let open = false;
  const show = button("", () => {
    const prompt = firstPrompt(model.get("marker"));
    if (prompt && !open) {
      prompt.scrollIntoView({ block: "center" });
      const focus = prompt.querySelector("button:not([disabled])");
      if (focus) focus.focus({ preventScroll: true });
      prompt.animate(
        [{ outline: "3px solid var(--jp-warn-color0,#e0a800)" }, { outline: "3px solid transparent" }],
        { duration: 1600 },
      );
      return;
    }
    open = !open;
    render();
  });
  show.className += " mcp-badge-show";
  line.append(count, label, show);
  badge.append(line, card);
  corner(state).appendChild(badge);

  function render() {
    const texts = model.get("texts") || {};
    const waiting = model.get("waiting") || [];
    const n = model.get("count") || 0;
    count.textContent = String(n);
    label.textContent = texts.label || "";
    if (n === 0) open = false;
    show.textContent = open ? texts.hide : texts.show;
    card.replaceChildren();
    if (open) {
      const note = document.createElement("div");
      note.textContent = texts.no_prompt;
      note.style.cssText = "color:var(--jp-ui-font-color2,#555)";
      card.appendChild(note);
      for (const entry of waiting) card.appendChild(entryView(model, entry, texts));
    }
    card.style.display = open ? "flex" : "none";
    badge.style.display = n > 0 ? "flex" : "none";
    state.badges.set(model, n);
    retitle(state);
  }

  model.on("change:count", render);
  model.on("change:waiting", render);
  model.on("change:texts", render);
  render();
  return () => {
    model.off("change:count", render);
    model.off("change:waiting", render);
    model.off("change:texts", render);
    badge.remove();
    state.badges.delete(model);
    retitle(state);
  };
}

export default {
  initialize({ model }) {
    return mount(model);
  },
};
