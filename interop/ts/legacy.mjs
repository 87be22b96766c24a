// Legacy interop: the TypeScript MCP SDK 1.x client (pinned in
// package.json) against examples/everything in ErasBoth, over Streamable
// HTTP or stdio (docs/dual-era.md §10.5). The SDK always negotiates
// 2025-11-25 through initialize.
//
//   node legacy.mjs --transport http --url http://127.0.0.1:PORT/mcp [--watch-url URL]
//   node legacy.mjs --transport stdio --cmd /path/to/everything [--arg A ...]
//   (--skip name,name: checks reported as SKIP, for work not merged yet)
//
// Each check prints one line, "PASS name", "FAIL name: reason" or
// "SKIP name: reason"; the exit code is 1 when any check failed.
// interop/legacy_ts_test.go runs it and turns the lines into subtests.

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';

const WANT_VERSION = '2025-11-25';
const SIMPLE_TEXT = 'This is a simple text response for testing.';
const SAMPLED_MODEL = 'interop-model';
const ELICITED_NAME = 'Alice';
const ROOT_URI = 'file:///tmp/interop-root';

function parseArgs(argv) {
  const out = { transport: '', url: '', cmd: '', args: [], watchUrl: '', watchUri: 'test://interop-watched', skip: new Map() };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const next = () => {
      if (i + 1 >= argv.length) throw new Error(`${a} needs a value`);
      return argv[++i];
    };
    switch (a) {
      case '--transport': out.transport = next(); break;
      case '--url': out.url = next(); break;
      case '--cmd': out.cmd = next(); break;
      case '--arg': out.args.push(next()); break;
      case '--watch-url': out.watchUrl = next(); break;
      case '--watch-uri': out.watchUri = next(); break;
      case '--skip':
        for (const item of next().split(',').filter(Boolean)) {
          const [name, ...why] = item.split('=');
          out.skip.set(name, why.join('=') || 'pending merge');
        }
        break;
      default: throw new Error(`unknown argument ${a}`);
    }
  }
  if (out.transport === 'http' && !out.url) throw new Error('--transport http needs --url');
  if (out.transport === 'stdio' && !out.cmd) throw new Error('--transport stdio needs --cmd');
  if (out.transport !== 'http' && out.transport !== 'stdio') throw new Error('--transport must be http or stdio');
  return out;
}

const opts = parseArgs(process.argv.slice(2));
let failed = 0;

function check(cond, msg) {
  if (!cond) throw new Error(msg);
}
const sleep = ms => new Promise(r => setTimeout(r, ms));
async function waitFor(pred, ms) {
  const end = Date.now() + ms;
  while (!pred() && Date.now() < end) await sleep(10);
  return pred();
}
const textOf = res => (res.content ?? []).filter(c => c.type === 'text').map(c => c.text).join('\n');

// One connected client and what it observed.
class Conn {
  constructor() {
    this.logs = [];
    this.toolChanges = 0;
    this.updates = [];
    this.elicits = 0;
    this.samples = 0;
    this.gets = 0; // GET streams answered 200
    this.lastEventIdSent = false;
    this.deletes = [];
  }

  // fetch wrapper: counts opened GET streams, Last-Event-ID and DELETEs.
  fetch = async (url, init = {}) => {
    const method = (init.method ?? 'GET').toUpperCase();
    const headers = new Headers(init.headers ?? {});
    if (headers.has('last-event-id')) this.lastEventIdSent = true;
    const res = await fetch(url, init);
    if (method === 'GET' && res.status === 200) this.gets++;
    if (method === 'DELETE') this.deletes.push(res.status);
    return res;
  };

  async connect(url) {
    this.client = new Client(
      { name: 'mcpwire-interop-ts', version: '0.0.1' },
      { capabilities: { sampling: {}, elicitation: {}, roots: { listChanged: true } } },
    );
    const c = this.client;
    c.setNotificationHandler(LoggingMessageNotificationSchema, n => { this.logs.push(n.params); });
    c.setNotificationHandler(ToolListChangedNotificationSchema, () => { this.toolChanges++; });
    c.setNotificationHandler(ResourceUpdatedNotificationSchema, n => { this.updates.push(n.params.uri); });
    c.setRequestHandler(ElicitRequestSchema, req => {
      this.elicits++;
      const content = {};
      for (const [name, p] of Object.entries(req.params.requestedSchema?.properties ?? {})) {
        if (p.type === 'boolean') content[name] = true;
        else if (p.type === 'number' || p.type === 'integer') content[name] = 1;
        else content[name] = name === 'name' ? ELICITED_NAME : 'interop';
      }
      return { action: 'accept', content };
    });
    c.setRequestHandler(CreateMessageRequestSchema, () => {
      this.samples++;
      return { model: SAMPLED_MODEL, role: 'assistant', content: { type: 'text', text: 'Paris' }, stopReason: 'endTurn' };
    });
    c.setRequestHandler(ListRootsRequestSchema, () => ({ roots: [{ uri: ROOT_URI, name: 'interop' }] }));
    if (opts.transport === 'http' || url) {
      this.transport = new StreamableHTTPClientTransport(new URL(url ?? opts.url), { fetch: this.fetch });
    } else {
      this.transport = new StdioClientTransport({ command: opts.cmd, args: opts.args, stderr: 'inherit' });
    }
    // The client reports the negotiated version to the transport.
    const t = this.transport;
    const setVersion = t.setProtocolVersion?.bind(t);
    t.setProtocolVersion = v => { this.negotiated = v; setVersion?.(v); };
    await c.connect(t);
    // Progress notifications as they arrive, in wire order: the SDK hands
    // a notification to onprogress asynchronously but settles the
    // response synchronously, so onprogress can miss the last one.
    this.progress = [];
    const onmessage = t.onmessage;
    t.onmessage = (msg, extra) => {
      if (msg.method === 'notifications/progress') this.progress.push(msg.params);
      onmessage(msg, extra);
    };
    return this;
  }

  // waitGet waits for the standalone GET stream (HTTP only).
  async waitGet() {
    if (!(this.transport instanceof StreamableHTTPClientTransport)) return;
    check(await waitFor(() => this.gets > 0, 5000), 'the SDK opened no GET stream');
    await sleep(100); // the stream's hub subscription
  }
}

async function run(name, fn) {
  if (opts.skip.has(name)) {
    console.log(`SKIP ${name}: ${opts.skip.get(name)}`);
    return;
  }
  try {
    await fn();
    console.log(`PASS ${name}`);
  } catch (err) {
    failed++;
    console.log(`FAIL ${name}: ${(err && err.stack) || err}`.replaceAll('\n', ' | '));
  }
}

async function main() {
  const conn = new Conn();
  try {
    await conn.connect();
  } catch (err) {
    console.log(`FAIL connect: ${err}`);
    process.exit(1);
  }
  const c = conn.client;
  const call = async (name, args = {}, options) => c.callTool({ name, arguments: args }, undefined, options);

  await run('initialize', async () => {
    const v = conn.negotiated;
    check(v === WANT_VERSION, `negotiated ${v}, want ${WANT_VERSION}`);
    const info = c.getServerVersion();
    check(info?.name === 'mcpwire-everything', `serverInfo ${JSON.stringify(info)}`);
    const caps = c.getServerCapabilities();
    check(caps?.tools && caps?.prompts && caps?.resources?.subscribe && caps?.logging && caps?.completions,
      `capabilities ${JSON.stringify(caps)}`);
  });
  await run('tools_list', async () => {
    const res = await c.listTools();
    const names = res.tools.map(t => t.name);
    check(names.length >= 20, `${names.length} tools`);
    for (const want of ['test_simple_text', 'test_image_content', 'test_audio_content', 'test_embedded_resource',
      'test_multiple_content_types', 'test_tool_with_progress', 'json_schema_2020_12_tool']) {
      check(names.includes(want), `tools/list lacks ${want}`);
    }
    for (const t of res.tools) check(t.resultType === undefined, `tool ${t.name} carries resultType`);
  });
  await run('call_simple_text', async () => {
    const res = await call('test_simple_text');
    check(textOf(res) === SIMPLE_TEXT, `text ${JSON.stringify(textOf(res))}`);
    check(res.resultType === undefined, 'a legacy result carries resultType');
  });
  await run('call_image', async () => {
    const res = await call('test_image_content');
    check(res.content.length === 1 && res.content[0].type === 'image' && res.content[0].mimeType === 'image/png' &&
      res.content[0].data.startsWith('iVBOR'), `content ${JSON.stringify(res.content).slice(0, 200)}`);
  });
  await run('call_audio', async () => {
    const res = await call('test_audio_content');
    check(res.content.length === 1 && res.content[0].type === 'audio' && res.content[0].mimeType === 'audio/wav' &&
      res.content[0].data, `content ${JSON.stringify(res.content).slice(0, 200)}`);
  });
  await run('call_embedded_resource', async () => {
    const res = await call('test_embedded_resource');
    const r = res.content[0];
    check(res.content.length === 1 && r.type === 'resource' && r.resource.uri && r.resource.text,
      `content ${JSON.stringify(res.content)}`);
  });
  await run('call_multiple_content_types', async () => {
    const res = await call('test_multiple_content_types');
    const kinds = res.content.map(x => x.type).join(',');
    check(kinds === 'text,image,resource', `content kinds ${kinds}`);
  });
  await run('call_error_handling', async () => {
    const res = await call('test_error_handling');
    check(res.isError === true && textOf(res), `result ${JSON.stringify(res)}`);
  });
  await run('structured_output', async () => {
    const tools = (await c.listTools()).tools;
    const t = tools.find(x => x.outputSchema);
    check(t, 'no tool lists an outputSchema');
    const res = await call(t.name);
    check(res.structuredContent !== undefined && textOf(res), `result ${JSON.stringify(res)}`);
  });
  await run('resources_list', async () => {
    const uris = (await c.listResources()).resources.map(r => r.uri);
    for (const want of ['test://static-text', 'test://static-binary']) check(uris.includes(want), `resources ${uris}`);
  });
  await run('templates_list', async () => {
    const ts = (await c.listResourceTemplates()).resourceTemplates;
    check(ts.length === 1 && ts[0].uriTemplate === 'test://template/{id}/data', `templates ${JSON.stringify(ts)}`);
  });
  await run('read_text', async () => {
    const res = await c.readResource({ uri: 'test://static-text' });
    check(res.contents.length === 1 && res.contents[0].uri === 'test://static-text' && res.contents[0].text,
      `contents ${JSON.stringify(res.contents)}`);
  });
  await run('read_blob', async () => {
    const res = await c.readResource({ uri: 'test://static-binary' });
    check(res.contents.length === 1 && res.contents[0].mimeType === 'image/png' && res.contents[0].blob,
      `contents ${JSON.stringify(res.contents).slice(0, 200)}`);
  });
  await run('read_template', async () => {
    const res = await c.readResource({ uri: 'test://template/42/data' });
    check(res.contents.length === 1 && res.contents[0].text.includes('42'), `contents ${JSON.stringify(res.contents)}`);
  });
  await run('read_missing', async () => {
    let code;
    try {
      await c.readResource({ uri: 'test://no-such-resource' });
    } catch (err) {
      code = err.code;
    }
    check(code === -32002, `error code ${code}, want -32002`);
  });
  await run('prompts_list', async () => {
    const ps = (await c.listPrompts()).prompts;
    const names = ps.map(p => p.name);
    for (const want of ['test_simple_prompt', 'test_prompt_with_arguments', 'test_prompt_with_embedded_resource', 'test_prompt_with_image']) {
      check(names.includes(want), `prompts ${names}`);
    }
    check(ps.find(p => p.name === 'test_prompt_with_arguments').arguments.length === 2, 'arguments of test_prompt_with_arguments');
  });
  await run('prompt_with_arguments', async () => {
    const res = await c.getPrompt({ name: 'test_prompt_with_arguments', arguments: { arg1: 'first-value', arg2: 'second-value' } });
    const text = res.messages.map(m => m.content.text ?? '').join('');
    check(text.includes('first-value') && text.includes('second-value'), `prompt text ${text}`);
  });
  await run('complete', async () => {
    const res = await c.complete({ ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' }, argument: { name: 'arg1', value: 'te' } });
    const v = res.completion.values;
    check(v.includes('test') && !v.includes('value'), `values ${v}`);
  });
  await run('logging', async () => {
    await c.setLoggingLevel('info');
    let from = conn.logs.length;
    await call('test_logging_tool');
    await waitFor(() => conn.logs.length > from, 2000);
    await sleep(50);
    let levels = conn.logs.slice(from).map(l => l.level).join(',');
    check(levels === 'info', `at info: levels ${levels}`);
    await c.setLoggingLevel('debug');
    from = conn.logs.length;
    await call('test_logging_tool');
    await waitFor(() => conn.logs.length >= from + 2, 2000);
    levels = conn.logs.slice(from).map(l => l.level).join(',');
    check(levels === 'info,debug', `at debug: levels ${levels}`);
  });
  await run('tool_with_logging', async () => {
    await c.setLoggingLevel('info');
    const from = conn.logs.length;
    await call('test_tool_with_logging');
    await waitFor(() => conn.logs.length >= from + 3, 2000);
    check(conn.logs.length - from === 3, `${conn.logs.length - from} log messages, want 3`);
  });
  await run('progress', async () => {
    let callbacks = 0;
    const from = conn.progress.length;
    const res = await call('test_tool_with_progress', {}, { onprogress: () => { callbacks++; } });
    check(!res.isError, `result ${JSON.stringify(res)}`);
    const got = conn.progress.slice(from);
    const seen = got.map(p => p.progress);
    check(seen.length >= 3, `${seen.length} progress notifications`);
    check(got.every(p => p.progressToken === got[0].progressToken), `tokens ${got.map(p => p.progressToken)}`);
    check(callbacks >= 2, `onprogress ran ${callbacks} times`);
    for (let i = 1; i < seen.length; i++) check(seen[i] > seen[i - 1], `progress ${seen}`);
  });
  await run('cancellation', async () => {
    // Abort after the first progress notification: the SDK sends
    // notifications/cancelled; no result, and the tool stops.
    const from = conn.progress.length;
    const ac = new AbortController();
    const p = call('test_tool_with_progress', {}, {
      signal: ac.signal,
      onprogress: () => ac.abort('interop cancels'),
    });
    let rejected = false;
    try { await p; } catch { rejected = true; }
    check(rejected, 'the aborted call resolved');
    await sleep(400);
    const n = conn.progress.length - from;
    check(n === 1, `${n} progress notifications, want 1 (the tool must stop)`);
    check(textOf(await call('test_simple_text')) === SIMPLE_TEXT, 'the session no longer serves');
  });
  await run('list_changed', async () => {
    await conn.waitGet();
    const from = conn.toolChanges;
    await call('test_trigger_tool_change');
    check(await waitFor(() => conn.toolChanges > from, 5000), 'no notifications/tools/list_changed');
  });
  await run('subscribe', async () => {
    // examples/everything lets no client trigger an update: reading
    // test://watched-resource, subscribing and unsubscribing must succeed;
    // the update is checked by resource_updated.
    const res = await c.readResource({ uri: 'test://watched-resource' });
    check(res.contents.length === 1 && res.contents[0].text, `contents ${JSON.stringify(res.contents)}`);
    await c.subscribeResource({ uri: 'test://watched-resource' });
    await c.unsubscribeResource({ uri: 'test://watched-resource' });
  });
  await run('bridge_elicitation', async () => {
    const before = conn.elicits;
    const res = await call('test_input_required_result_elicitation');
    check(textOf(res) === `Hello, ${ELICITED_NAME}!`, `text ${textOf(res)}`);
    check(conn.elicits - before === 1, `${conn.elicits - before} elicitations`);
  });
  await run('bridge_sampling', async () => {
    const res = await call('test_input_required_result_sampling');
    check(textOf(res) === `The model ${SAMPLED_MODEL} answered.`, `text ${textOf(res)}`);
  });
  await run('bridge_roots', async () => {
    const res = await call('test_input_required_result_list_roots');
    check(textOf(res) === 'Roots: 1', `text ${textOf(res)}`);
  });
  await run('test_sampling', async () => {
    const res = await call('test_sampling', { prompt: 'Capital of France?' });
    check(textOf(res) === 'LLM response: Paris', `text ${textOf(res)}`);
  });
  await run('test_elicitation', async () => {
    const res = await call('test_elicitation', { message: 'Who are you?' });
    check(textOf(res).startsWith('User response: action=accept'), `text ${textOf(res)}`);
  });
  if (opts.transport === 'http') {
    await run('sse_polling', async () => {
      const res = await call('test_reconnection');
      check(!res.isError && textOf(res) === 'Reconnection test completed', `result ${JSON.stringify(res)}`);
      check(conn.lastEventIdSent, 'the client did not resume with Last-Event-ID');
    });
    await run('session_end', async () => {
      // terminateSession sends DELETE; the old id then answers 404; a new
      // transport opens a new session that serves.
      const sid = conn.transport.sessionId;
      check(sid, 'no session id');
      await conn.transport.terminateSession();
      check(conn.deletes.length === 1 && conn.deletes[0] < 300, `DELETE answered ${conn.deletes}`);
      const res = await fetch(opts.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': sid, 'mcp-protocol-version': WANT_VERSION },
        body: JSON.stringify({ jsonrpc: '2.0', id: 99, method: 'tools/list', params: {} }),
      });
      check(res.status === 404, `a request in the deleted session answered ${res.status}, want 404`);
      await c.close();
      const again = await new Conn().connect();
      const sid2 = again.transport.sessionId;
      check(sid2 && sid2 !== sid, `new session ${sid2}, old ${sid}`);
      check((await again.client.listTools()).tools.length >= 20, 'tools/list in the new session');
      await again.transport.terminateSession();
      await again.client.close();
    });
  } else {
    await c.close();
  }
  if (opts.watchUrl) {
    await run('resource_updated', async () => {
      // The driver's in-process server calls NotifyResourceUpdated for
      // watchUri every 100 ms.
      const w = await new Conn().connect(opts.watchUrl);
      await w.client.subscribeResource({ uri: opts.watchUri });
      await w.waitGet();
      check(await waitFor(() => w.updates.length > 0, 5000), 'no notifications/resources/updated');
      check(w.updates.every(u => u === opts.watchUri), `updates ${w.updates}`);
      await w.client.unsubscribeResource({ uri: opts.watchUri });
      await sleep(150);
      const n = w.updates.length;
      await sleep(500);
      check(w.updates.length === n, `${w.updates.length - n} updates after unsubscribe`);
      await w.transport.terminateSession();
      await w.client.close();
    });
  }
}

main().then(
  () => process.exit(failed ? 1 : 0),
  err => { console.log(`FAIL main: ${err?.stack ?? err}`.replaceAll('\n', ' | ')); process.exit(1); },
);
