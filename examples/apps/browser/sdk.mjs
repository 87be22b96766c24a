// The TypeScript SDK 2.x client (@modelcontextprotocol/client 2.0.0, which
// opens a 2025-11-25 initialize session) against the example server:
// node sdk.mjs (--url URL | --cmd BINARY). One client declares the MCP Apps
// extension in capabilities.extensions, as the ext-apps hosts do; the
// other declares nothing. Each check prints a PASS or FAIL line; the exit
// code is non-zero when one failed.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { parseArgs } from "node:util";

const { values: opt } = parseArgs({ options: { url: { type: "string" }, cmd: { type: "string" } } });
if (!opt.url === !opt.cmd) {
  console.error("usage: node sdk.mjs (--url URL | --cmd BINARY)");
  process.exit(2);
}
const EXT = "io.modelcontextprotocol/ui";
const MIME = "text/html;profile=mcp-app";
let failed = 0;
function check(name, ok, detail = "") {
  console.log(`${ok ? "PASS" : "FAIL"} ${name}${detail ? ": " + detail : ""}`);
  if (!ok) failed++;
}
const transport = () => (opt.url ? new StreamableHTTPClientTransport(new URL(opt.url)) : new StdioClientTransport({ command: opt.cmd, args: [], stderr: "inherit" }));

async function session(caps) {
  const c = new Client({ name: "sdk-check", version: "1.0.0" }, { capabilities: caps });
  await c.connect(transport());
  return c;
}

const ui = await session({ extensions: { [EXT]: { mimeTypes: [MIME] } } });
check("negotiated 2025-11-25", ui.getNegotiatedProtocolVersion() === "2025-11-25", String(ui.getNegotiatedProtocolVersion()));
const sc = ui.getServerCapabilities();
check("initialize result advertises the extension", sc?.extensions?.[EXT] !== undefined, JSON.stringify(sc));
let tools = (await ui.listTools()).tools;
let t = tools.find((x) => x.name === "get-time");
check("declaring client: get-time has _meta.ui.resourceUri", t?._meta?.ui?.resourceUri === "ui://get-time/mcp-app.html", JSON.stringify(t?._meta));
check("declaring client: flat ui/resourceUri", t?._meta?.["ui/resourceUri"] === "ui://get-time/mcp-app.html");
const r = await ui.callTool({ name: "get-time", arguments: {} });
check("tools/call: structuredContent.time", typeof r.structuredContent?.time === "string" && r.content?.[0]?.text === r.structuredContent.time, JSON.stringify(r));
const read = await ui.readResource({ uri: "ui://get-time/mcp-app.html" });
check("resources/read: the view as text/html;profile=mcp-app", read.contents?.[0]?.mimeType === MIME && read.contents[0].text.includes('id="get-time-btn"'));
await ui.close();

const plain = await session({});
tools = (await plain.listTools()).tools;
t = tools.find((x) => x.name === "get-time");
check("client without the extension: a plain tool", t !== undefined && t._meta?.ui === undefined && t._meta?.["ui/resourceUri"] === undefined, JSON.stringify(t?._meta));
const r2 = await plain.callTool({ name: "get-time", arguments: {} });
check("client without the extension: a text result", typeof r2.content?.[0]?.text === "string", JSON.stringify(r2.content));
await plain.close();
process.exit(failed ? 1 : 0);
