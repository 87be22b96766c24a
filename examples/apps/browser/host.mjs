// The host page of the browser test (bundled by esbuild into host.js): an
// MCP host of mcpwire's own. It speaks 2026-07-28 to the Go server at
// /mcp with fetch (each request carries its _meta, as that revision's
// stateless requests do, declaring io.modelcontextprotocol/ui), lists the
// tools, reads the UI resource of the tool that names one, renders it in a
// sandboxed iframe under the Content Security Policy built from the
// resource's _meta.ui.csp, and connects the ext-apps package's AppBridge to
// it: the bridge answers the view's ui/initialize, and its tools/call
// requests are sent on to the server. window.__host reports progress to
// the test driver (run.mjs).
import { AppBridge, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge";

const MIME = "text/html;profile=mcp-app";
const state = (window.__host = { steps: [], viewCalls: 0, errors: [] });
const statusEl = document.getElementById("status");
function step(s) {
  state.steps.push(s);
  statusEl.textContent = state.steps.join("\n");
}

let lastID = 0;
async function mcp(method, params, name) {
  const body = {
    jsonrpc: "2.0",
    id: ++lastID,
    method,
    params: {
      ...params,
      _meta: {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": { extensions: { "io.modelcontextprotocol/ui": { mimeTypes: [MIME] } } },
      },
    },
  };
  const headers = { "Content-Type": "application/json", Accept: "application/json, text/event-stream", "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": method };
  if (name) headers["Mcp-Name"] = name;
  const resp = await fetch("/mcp", { method: "POST", headers, body: JSON.stringify(body) });
  const text = await resp.text();
  let msg;
  if (text.trimStart().startsWith("{")) msg = JSON.parse(text);
  else msg = text.split("\n").filter((l) => l.startsWith("data:")).map((l) => JSON.parse(l.slice(5))).find((m) => m.id === body.id);
  if (!msg) throw new Error(`${method}: no response (${resp.status})`);
  if (msg.error) throw new Error(`${method}: ${msg.error.code} ${msg.error.message}`);
  return msg.result;
}

// cspFor builds the policy a host applies to a view from _meta.ui.csp:
// nothing from the network unless the resource names its origins.
function cspFor(csp = {}) {
  const list = (v, none) => (v && v.length ? v.join(" ") : none);
  const res = list(csp.resourceDomains, "");
  return [
    "default-src 'none'",
    `script-src 'unsafe-inline' ${res}`.trim(),
    `style-src 'unsafe-inline' ${res}`.trim(),
    `img-src data: ${res}`.trim(),
    `font-src data: ${res}`.trim(),
    `media-src data: ${res}`.trim(),
    `connect-src ${list(csp.connectDomains, "'none'")}`,
    `frame-src ${list(csp.frameDomains, "'none'")}`,
    `base-uri ${list(csp.baseUriDomains, "'none'")}`,
  ].join("; ");
}

async function main() {
  const { tools } = await mcp("tools/list", {});
  state.tools = tools.map((t) => t.name);
  const tool = tools.find((t) => t._meta?.ui?.resourceUri || t._meta?.["ui/resourceUri"]);
  if (!tool) throw new Error("no tool names a UI resource");
  const uri = tool._meta.ui?.resourceUri ?? tool._meta["ui/resourceUri"];
  state.tool = tool.name;
  state.resourceUri = uri;
  step(`tools/list: ${state.tools.join(", ")}; ${tool.name} shows ${uri}`);

  const read = await mcp("resources/read", { uri }, uri);
  const content = read.contents.find((c) => c.uri === uri);
  if (!content || content.mimeType !== MIME) throw new Error(`resources/read ${uri}: want one ${MIME} content`);
  const ui = content._meta?.ui ?? {};
  state.csp = cspFor(ui.csp);
  step(`resources/read: ${content.text.length} bytes of ${content.mimeType}; CSP: ${state.csp}`);

  const html = content.text.replace(/<head([^>]*)>/i, `<head$1><meta http-equiv="Content-Security-Policy" content="${state.csp}">`);
  const iframe = document.createElement("iframe");
  iframe.id = "view";
  iframe.setAttribute("sandbox", "allow-scripts");
  iframe.title = uri;

  const bridge = new AppBridge(null, { name: "mcpwire test host", version: "1.0.0" }, { serverTools: {}, logging: {}, openLinks: {}, message: {} }, {
    hostContext: { theme: "light", displayMode: "inline", platform: "web", locale: "en-US" },
  });
  bridge.oncalltool = async (params) => {
    state.viewCalls++;
    step(`view → host → server: tools/call ${params.name}`);
    return mcp("tools/call", { name: params.name, arguments: params.arguments ?? {} }, params.name);
  };
  bridge.onopenlink = async () => ({});
  bridge.onmessage = async () => ({});
  bridge.addEventListener("loggingmessage", (p) => step(`view log: ${JSON.stringify(p.data)}`));
  bridge.oninitialized = async () => {
    state.initialized = true;
    step("view initialized (ui/initialize answered by the AppBridge, ui/notifications/initialized received)");
    try {
      const args = {};
      await bridge.sendToolInput({ arguments: args });
      const result = await mcp("tools/call", { name: tool.name, arguments: args }, tool.name);
      state.firstResult = result.structuredContent;
      await bridge.sendToolResult(result);
      step(`tools/call ${tool.name} by the host: ${JSON.stringify(result.structuredContent)}, sent to the view`);
    } catch (e) {
      state.errors.push(String(e));
      step("error: " + e);
    }
  };

  // The bridge listens before the view loads: the view's first message is
  // its ui/initialize.
  document.getElementById("frame").appendChild(iframe);
  const transport = new PostMessageTransport(iframe.contentWindow, iframe.contentWindow);
  await bridge.connect(transport);
  state.connected = true;
  step("AppBridge connected to the iframe");
  iframe.srcdoc = html;
}

main().catch((e) => {
  state.errors.push(String(e && e.stack ? e.stack : e));
  step("error: " + e);
});
