// Drives the host page in headless Chromium (puppeteer-core, Debian's
// /usr/bin/chromium or $CHROMIUM): node run.mjs --url URL --shots DIR.
// Each check prints a PASS or FAIL line (browser_test.go makes each one a
// subtest); the exit code is non-zero when one failed. A screenshot of
// the host with the rendered view is saved in DIR.
import puppeteer from "puppeteer-core";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";

const { values: opt } = parseArgs({ options: { url: { type: "string" }, shots: { type: "string" }, timeout: { type: "string", default: "20000" } } });
if (!opt.url || !opt.shots) {
  console.error("usage: node run.mjs --url URL --shots DIR");
  process.exit(2);
}
const timeout = Number(opt.timeout);
let failed = 0;
function check(name, ok, detail = "") {
  console.log(`${ok ? "PASS" : "FAIL"} ${name}${detail ? ": " + detail : ""}`);
  if (!ok) failed++;
  return ok;
}

const browser = await puppeteer.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  headless: true,
  args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run", "--no-default-browser-check"],
});
try {
  const page = await browser.newPage();
  await page.setViewport({ width: 720, height: 720 });
  const logs = [];
  page.on("console", (m) => logs.push(`[${m.type()}] ${m.text()}`));
  page.on("pageerror", (e) => logs.push(`[pageerror] ${e.message}`));
  await page.goto(opt.url, { waitUntil: "load", timeout });

  const host = () => page.evaluate(() => window.__host);
  const waitHost = (pred, what) =>
    page.waitForFunction(pred, { timeout, polling: 50 }).then(() => true, async () => {
      console.log(`waiting for ${what} timed out; host state: ${JSON.stringify(await host())}`);
      return false;
    });

  let h = await host();
  await waitHost(() => window.__host && (window.__host.tools || window.__host.errors.length), "tools/list");
  h = await host();
  check("host lists the tools", h.tools?.includes("get-time"), JSON.stringify(h.tools));
  check("a tool names its UI resource", h.resourceUri === "ui://get-time/mcp-app.html", h.resourceUri);
  await waitHost(() => window.__host.initialized || window.__host.errors.length, "the view's initialize handshake");
  h = await host();
  check("UI resource read and rendered under its CSP", typeof h.csp === "string" && h.csp.includes("connect-src 'none'"), h.csp);
  check("view initialize handshake completed", h.initialized === true);

  const frameHandle = await page.$("iframe#view");
  check("sandboxed iframe", (await frameHandle.evaluate((f) => f.getAttribute("sandbox"))) === "allow-scripts");
  const frame = await frameHandle.contentFrame();
  const timeText = () => frame.$eval("#server-time", (e) => e.textContent);
  const iso = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

  await frame.waitForFunction((re) => new RegExp(re).test(document.getElementById("server-time").textContent), { timeout, polling: 50 }, iso.source).catch(() => {});
  const first = await timeText();
  h = await host();
  check("tool result from the host shown in the view's DOM", iso.test(first) && first === h.firstResult?.time, `view shows ${JSON.stringify(first)}, host got ${JSON.stringify(h.firstResult)}`);

  await frame.click("#get-time-btn");
  await frame.waitForFunction((prev, re) => {
    const t = document.getElementById("server-time").textContent;
    return t !== prev && new RegExp(re).test(t);
  }, { timeout, polling: 50 }, first, iso.source).catch(() => {});
  const second = await timeText();
  h = await host();
  check("view called the server's tool through the host", h.viewCalls >= 1, `viewCalls ${h.viewCalls}`);
  check("that call's result in the view's DOM", iso.test(second) && second !== first, `${JSON.stringify(first)} → ${JSON.stringify(second)}`);

  // The CSP is enforced: the view may not fetch (connect-src 'none').
  const violated = await frame.evaluate(() => new Promise((resolve) => {
    document.addEventListener("securitypolicyviolation", (e) => resolve(e.effectiveDirective), { once: true });
    fetch("https://example.com/").then(() => resolve("allowed"), () => {});
    setTimeout(() => resolve("no violation reported"), 3000);
  }));
  check("the resource's CSP blocks the view's fetch", violated === "connect-src", violated);
  check("no host errors", h.errors.length === 0, JSON.stringify(h.errors));

  mkdirSync(opt.shots, { recursive: true });
  const shot = join(opt.shots, "apps-get-time.png");
  await page.screenshot({ path: shot, fullPage: true });
  console.log(`screenshot ${shot}`);
  if (failed) console.log("browser console:\n" + logs.join("\n"));
} finally {
  await browser.close();
}
process.exit(failed ? 1 : 0);
