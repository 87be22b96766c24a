// The harness the client scripts of clients_node_test.go share
// (aisdk/aisdk.mjs, ts/mcpremote.mjs, mastra/mastra.mjs): their arguments,
// and one line per check on stdout, "PASS feature/name",
// "FAIL feature/name: reason" or "SKIP feature/name: reason". The Go test
// turns each line into a subtest and checks that every feature the run
// claims (clients_test.go) has a passing check. It imports nothing, so the
// scripts of every folder can load it by its relative path.

// parseArgs reads the arguments every script takes:
//
//	--transport http|stdio  --era REVISION
//	--url http://127.0.0.1:PORT/mcp          (http, and stdio bridges)
//	--cmd /path/to/everything [--arg A ...]  (stdio)
export function parseArgs(argv) {
  const out = { transport: '', era: '', url: '', cmd: '', args: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const next = () => {
      if (i + 1 >= argv.length) throw new Error(`${a} needs a value`);
      return argv[++i];
    };
    switch (a) {
      case '--transport': out.transport = next(); break;
      case '--era': out.era = next(); break;
      case '--url': out.url = next(); break;
      case '--cmd': out.cmd = next(); break;
      case '--arg': out.args.push(next()); break;
      default: throw new Error(`unknown argument ${a}`);
    }
  }
  if (out.transport !== 'http' && out.transport !== 'stdio') throw new Error('--transport must be http or stdio');
  if (!/^\d{4}-\d{2}-\d{2}$/.test(out.era)) throw new Error('--era needs a protocol revision');
  return out;
}

let failed = 0;

// check throws msg unless cond holds.
export function check(cond, msg) {
  if (!cond) throw new Error(msg);
}

export const sleep = ms => new Promise(r => setTimeout(r, ms));

// waitFor polls pred every 10 ms for up to ms milliseconds.
export async function waitFor(pred, ms) {
  const end = Date.now() + ms;
  while (!pred() && Date.now() < end) await sleep(10);
  return pred();
}

// textOf joins the text blocks of a CallToolResult.
export const textOf = res => (res?.content ?? []).filter(c => c.type === 'text').map(c => c.text).join('\n');

// short is v as JSON, cut to n characters.
export const short = (v, n = 300) => {
  const s = JSON.stringify(v) ?? String(v);
  return s.length > n ? s.slice(0, n) + '…' : s;
};

// run runs one check and prints its line.
export async function run(name, fn) {
  try {
    await fn();
    console.log(`PASS ${name}`);
  } catch (err) {
    failed++;
    console.log(`FAIL ${name}: ${(err && err.stack) || err}`.replaceAll('\n', ' | '));
  }
}

// skip prints a SKIP line: a check that this run cannot make, with why.
export function skip(name, why) {
  console.log(`SKIP ${name}: ${why}`);
}

// finish runs main and exits 1 when a check failed or main threw.
export function finish(main) {
  main().then(
    () => process.exit(failed ? 1 : 0),
    err => { console.log(`FAIL main: ${err?.stack ?? err}`.replaceAll('\n', ' | ')); process.exit(1); },
  );
}

// The fixtures of examples/everything the scripts check.
export const SIMPLE_TEXT = 'This is a simple text response for testing.';
export const ELICITED_NAME = 'Alice';

// elicitAnswer fills a form elicitation's requestedSchema: booleans true,
// numbers 1, "name" ELICITED_NAME, any other string "interop".
export function elicitAnswer(requestedSchema) {
  const content = {};
  for (const [name, p] of Object.entries(requestedSchema?.properties ?? {})) {
    if (p.type === 'boolean') content[name] = true;
    else if (p.type === 'number' || p.type === 'integer') content[name] = 1;
    else content[name] = name === 'name' ? ELICITED_NAME : 'interop';
  }
  return { action: 'accept', content };
}
