// Bundles host.mjs (and the ext-apps AppBridge it imports) into
// <out>/host.js, and copies host.html beside it: node build.mjs <out>.
import { build } from "esbuild";
import { copyFileSync } from "node:fs";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const out = process.argv[2];
if (!out) {
  console.error("usage: node build.mjs OUTDIR");
  process.exit(2);
}
await build({
  entryPoints: [join(here, "host.mjs")],
  bundle: true,
  format: "esm",
  platform: "browser",
  target: "es2022",
  outfile: join(out, "host.js"),
  logLevel: "warning",
});
copyFileSync(join(here, "host.html"), join(out, "host.html"));
console.log("built", join(out, "host.js"));
