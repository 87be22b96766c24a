// Interop: mcp-remote (pinned in package.json), the stdio-to-HTTP bridge
// desktop hosts start, between the TypeScript SDK 1.x client on its stdio
// and examples/everything in ErasBoth on Streamable HTTP:
//
//   TS SDK Client --stdio--> mcp-remote --Streamable HTTP--> wiretap --> everything
//
//   node mcpremote.mjs --transport stdio --url http://127.0.0.1:PORT/mcp --era REVISION
//
// How a run reaches its era (mcp-remote 0.15.1, README "Transport
// Strategies" and "Protocol Eras"):
//   - 2024-11-05 … 2025-11-25: `--transport http-only --protocol legacy`.
//     mcp-remote passes the client's initialize through untouched, so the
//     era is the version the client asks for. The TS SDK always asks for
//     its latest (2025-11-25); for the earlier eras the script rewrites
//     protocolVersion in the initialize it sends, and the SDK accepts any
//     revision it knows in the answer. A 2024-11-05 client meets
//     Streamable HTTP here (mcpwire serves that revision with 2025-03-26's
//     session mechanics, docs/dual-era.md; it has no HTTP+SSE).
//   - 2026-07-28: `--protocol auto`. mcp-remote probes server/discover,
//     answers the client's 2025-11-25 handshake itself and speaks
//     2026-07-28 upstream: _meta on every request, subscriptions/listen
//     for change notifications, input_required answered through the
//     client's elicitation/sampling/roots handlers, logging/setLevel
//     carried as io.modelcontextprotocol/logLevel.
// The wiretap, a small HTTP proxy in this process, records what mcp-remote
// sends upstream (methods, MCP-Protocol-Version, Mcp-Session-Id), so each
// run checks the revision on both sides of the bridge.
//
// Each check prints one line (checks.mjs); clients_node_test.go runs this.

import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';

import {
  check, elicitAnswer, ELICITED_NAME, finish, parseArgs, run, short, SIMPLE_TEXT, sleep, textOf, waitFor,
} from '../checks.mjs';

const opts = parseArgs(process.argv.slice(2));
if (!opts.url) throw new Error('--url names the HTTP endpoint mcp-remote connects to');
const MODERN = '2026-07-28';
const LEGACY = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'];
const modern = opts.era === MODERN;
if (!modern && !LEGACY.includes(opts.era)) throw new Error(`no such era ${opts.era}`);
const atLeast = v => opts.era >= v;
const SAMPLED_MODEL = 'interop-model';
const ROOT_URI = 'file:///tmp/interop-root';

// wiretap forwards every request to upstream and records the POSTs.
function wiretap(upstream) {
  const target = new URL(upstream);
  const posts = [];
  const srv = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', c => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      if (req.method === 'DELETE') posts.push({ delete: true, session: req.headers['mcp-session-id'] });
      if (req.method === 'POST') {
        let msg;
        try { msg = JSON.parse(body); } catch { msg = undefined; }
        for (const m of Array.isArray(msg) ? msg : [msg]) {
          posts.push({ method: m?.method, id: m?.id, params: m?.params, version: req.headers['mcp-protocol-version'], session: req.headers['mcp-session-id'] });
        }
      }
      const up = http.request({
        host: target.hostname, port: target.port, path: req.url, method: req.method,
        headers: { ...req.headers, host: target.host },
      }, upRes => {
        res.writeHead(upRes.statusCode, upRes.headers);
        upRes.pipe(res);
      });
      up.on('error', err => { res.destroy(err); });
      res.on('close', () => up.destroy());
      up.end(body);
    });
  });
  return new Promise(resolve => srv.listen(0, '127.0.0.1', () => {
    resolve({ url: `http://127.0.0.1:${srv.address().port}${target.pathname}`, posts, close: () => srv.close() });
  }));
}

// mcpRemoteBin is mcp-remote's proxy script in node_modules.
function mcpRemoteBin() {
  const require = createRequire(import.meta.url);
  return join(require.resolve('mcp-remote/package.json'), '..', 'dist', 'proxy.js');
}

class Conn {
  constructor() {
    this.logs = [];
    this.toolChanges = 0;
    this.elicits = [];
    this.samples = 0;
    this.progress = [];
  }

  async connect(url, configDir) {
    const c = new Client(
      { name: 'mcpwire-interop-mcp-remote', version: '0.0.1' },
      { capabilities: { sampling: {}, elicitation: {}, roots: { listChanged: true } } },
    );
    this.client = c;
    c.setNotificationHandler(LoggingMessageNotificationSchema, n => { this.logs.push(n.params); });
    c.setNotificationHandler(ToolListChangedNotificationSchema, () => { this.toolChanges++; });
    c.setRequestHandler(ElicitRequestSchema, req => {
      this.elicits.push(req.params);
      return elicitAnswer(req.params.requestedSchema);
    });
    c.setRequestHandler(CreateMessageRequestSchema, () => {
      this.samples++;
      return { model: SAMPLED_MODEL, role: 'assistant', content: { type: 'text', text: 'Paris' }, stopReason: 'endTurn' };
    });
    c.setRequestHandler(ListRootsRequestSchema, () => ({ roots: [{ uri: ROOT_URI, name: 'interop' }] }));
    const args = [mcpRemoteBin(), url, '--transport', 'http-only', '--protocol', modern ? 'auto' : 'legacy'];
    // mcp-remote keeps OAuth state under MCP_REMOTE_CONFIG_DIR (default
    // ~/.mcp-auth): a temporary directory, removed at the end.
    const t = new StdioClientTransport({
      command: process.execPath,
      args,
      env: { ...process.env, MCP_REMOTE_CONFIG_DIR: configDir },
      stderr: 'pipe',
    });
    this.stderr = [];
    t.stderr?.on('data', d => this.stderr.push(d));
    // The era: the initialize the SDK sends asks for opts.era in the
    // legacy runs; the answer's version is what the SDK negotiated.
    const send = t.send.bind(t);
    t.send = (msg, o) => {
      if (msg.method === 'initialize' && !modern) msg = { ...msg, params: { ...msg.params, protocolVersion: opts.era } };
      return send(msg, o);
    };
    t.setProtocolVersion = v => { this.negotiated = v; };
    await c.connect(t);
    // Progress notifications in wire order (legacy.mjs explains why).
    const onmessage = t.onmessage;
    t.onmessage = (msg, extra) => {
      if (msg.method === 'notifications/progress') this.progress.push(msg.params);
      onmessage(msg, extra);
    };
    this.transport = t;
    return this;
  }
}

async function main() {
  const configDir = mkdtempSync(join(tmpdir(), 'mcp-remote-'));
  const tap = await wiretap(opts.url);
  const conn = new Conn();
  try {
    await conn.connect(tap.url, configDir);
  } catch (err) {
    console.log(`FAIL version/connect: ${err?.stack ?? err}`.replaceAll('\n', ' | '));
    console.log(`mcp-remote stderr: ${Buffer.concat(conn.stderr ?? []).toString()}`.replaceAll('\n', ' | '));
    process.exit(1);
  }
  const c = conn.client;
  const call = (name, args = {}, options) => c.callTool({ name, arguments: args }, undefined, options);
  const upstream = () => tap.posts.filter(p => p.method && p.method !== 'notifications/initialized');

  await run('version/negotiated', async () => {
    // The client's side: its initialize, answered by the server through
    // the bridge (legacy) or by mcp-remote itself (auto).
    const want = modern ? '2025-11-25' : opts.era;
    check(conn.negotiated === want, `client negotiated ${conn.negotiated}, want ${want}`);
    check(c.getServerVersion()?.name === 'mcpwire-everything', `serverInfo ${short(c.getServerVersion())}`);
    const caps = c.getServerCapabilities();
    check(caps?.tools && caps?.prompts && caps?.resources && caps?.logging, `capabilities ${short(caps)}`);
    if (atLeast('2025-03-26')) check(caps.completions, `capabilities ${short(caps)}`);
    // The server's side, as the wiretap saw it.
    await c.listTools();
    const sent = upstream();
    const first = sent.find(p => p.method === 'initialize' || p.method === 'server/discover');
    if (modern) {
      check(first?.method === 'server/discover', `first upstream request ${short(first)}`);
      check(!sent.some(p => p.method === 'initialize'), 'mcp-remote sent initialize upstream');
      const last = sent.filter(p => p.method === 'tools/list').at(-1);
      check(last?.version === MODERN && !last.session, `upstream tools/list ${short(last)}`);
      check(last.params?._meta?.['io.modelcontextprotocol/protocolVersion'] === MODERN, `upstream _meta ${short(last.params?._meta)}`);
    } else {
      // Before relaying the client's initialize, mcp-remote sends one of
      // its own (clientInfo mcp-remote-fallback-test, 2025-11-25) to see
      // whether Streamable HTTP answers; that session is left to expire.
      // The client's own initialize goes up with " (via mcp-remote
      // 0.15.1)" appended to its clientInfo name.
      const init = sent.find(p => p.method === 'initialize' && p.params?.clientInfo?.name?.startsWith('mcpwire-interop-mcp-remote'));
      check(init?.params.protocolVersion === opts.era, `upstream initialize ${short(init)}`);
      const last = sent.filter(p => p.method === 'tools/list').at(-1);
      check(last?.session, `upstream tools/list has no Mcp-Session-Id: ${short(last)}`);
      // 2025-03-26 sent no MCP-Protocol-Version header; the SDK in
      // mcp-remote sends the negotiated one from then on.
      if (atLeast('2025-06-18')) check(last.version === opts.era, `upstream MCP-Protocol-Version ${last.version}`);
    }
  });

  await run('tools/list', async () => {
    const res = await c.listTools();
    const names = res.tools.map(t => t.name);
    check(names.length >= 20, `${names.length} tools`);
    for (const want of ['test_simple_text', 'test_error_handling', 'test_structured_output', 'test_image_content']) {
      check(names.includes(want), `tools/list lacks ${want}`);
    }
    const st = res.tools.find(t => t.name === 'test_structured_output');
    check(atLeast('2025-06-18') === (st.outputSchema !== undefined), `outputSchema in ${opts.era}: ${short(st.outputSchema)}`);
  });
  await run('tools/call_text', async () => {
    const res = await call('test_simple_text');
    check(textOf(res) === SIMPLE_TEXT && !res.isError, `result ${short(res)}`);
  });
  await run('tools/call_error', async () => {
    const res = await call('test_error_handling');
    check(res.isError === true && textOf(res), `result ${short(res)}`);
  });
  await run('structured/call', async () => {
    const res = await call('test_structured_output');
    check(JSON.parse(textOf(res)).conditions === 'sunny', `text ${textOf(res)}`);
    if (atLeast('2025-06-18')) check(res.structuredContent?.temperature === 21.5, `structuredContent ${short(res.structuredContent)}`);
    else check(res.structuredContent === undefined, `structuredContent in ${opts.era}: ${short(res.structuredContent)}`);
  });
  await run('tools/call_image', async () => {
    const res = await call('test_image_content');
    const img = res.content[0];
    check(res.content.length === 1 && img.type === 'image' && img.mimeType === 'image/png' && img.data.startsWith('iVBOR'), `content ${short(res.content)}`);
  });
  await run('tools/call_audio', async () => {
    // Audio exists from 2025-03-26; 2024-11-05 gets a text block instead.
    const res = await call('test_audio_content');
    const kind = res.content[0]?.type;
    check(kind === (atLeast('2025-03-26') ? 'audio' : 'text'), `content ${short(res.content)}`);
  });
  await run('unknown_tool/call', async () => {
    let code;
    try { await call('no_such_tool'); } catch (err) { code = err.code; }
    check(code === -32602, `error code ${code}, want -32602`);
  });
  await run('list_changed/tools', async () => {
    // Legacy: the GET stream mcp-remote keeps open; auto: the
    // subscriptions/listen stream it opens on the client's behalf.
    const from = conn.toolChanges;
    const deadline = Date.now() + 5000;
    while (conn.toolChanges === from && Date.now() < deadline) {
      await call('test_trigger_tool_change');
      await waitFor(() => conn.toolChanges > from, 500);
    }
    check(conn.toolChanges > from, 'no notifications/tools/list_changed');
    if (modern) check(upstream().some(p => p.method === 'subscriptions/listen'), 'no upstream subscriptions/listen');
  });

  await run('resources/list', async () => {
    const uris = (await c.listResources()).resources.map(r => r.uri);
    for (const want of ['test://static-text', 'test://static-binary']) check(uris.includes(want), `resources ${uris}`);
  });
  await run('resources/read', async () => {
    const text = await c.readResource({ uri: 'test://static-text' });
    check(text.contents.length === 1 && text.contents[0].text, `contents ${short(text.contents)}`);
    const blob = await c.readResource({ uri: 'test://static-binary' });
    check(blob.contents[0].mimeType === 'image/png' && blob.contents[0].blob, `contents ${short(blob.contents)}`);
  });
  await run('resources/templates', async () => {
    const ts = (await c.listResourceTemplates()).resourceTemplates;
    check(ts.length === 1 && ts[0].uriTemplate === 'test://template/{id}/data', `templates ${short(ts)}`);
    const res = await c.readResource({ uri: 'test://template/42/data' });
    check(JSON.parse(res.contents[0].text).id === '42', `contents ${short(res.contents)}`);
  });
  // Legacy: -32002, the server's answer in a legacy session. Auto:
  // -32602, the server's 2026-07-28 code, which mcp-remote relays
  // untranslated to its 2025-11-25 client (a deviation of the bridge:
  // 2025-11-25 names -32002; clients_test.go).
  await run(modern ? 'deviation/modern_error_code_relayed' : 'resources/read_missing', async () => {
    let code;
    try { await c.readResource({ uri: 'test://no-such-resource' }); } catch (err) { code = err.code; }
    const want = modern ? -32602 : -32002;
    check(code === want, `error code ${code}, want ${want}`);
  });

  await run('prompts/list', async () => {
    const ps = (await c.listPrompts()).prompts;
    check(ps.find(p => p.name === 'test_prompt_with_arguments')?.arguments?.length === 2, `prompts ${short(ps.map(p => p.name))}`);
  });
  await run('prompts/get', async () => {
    const res = await c.getPrompt({ name: 'test_prompt_with_arguments', arguments: { arg1: 'first-value', arg2: 'second-value' } });
    const text = res.messages.map(m => m.content.text ?? '').join('');
    check(text.includes('first-value') && text.includes('second-value'), `prompt text ${text}`);
  });

  await run('completion/prompt_argument', async () => {
    const res = await c.complete({ ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' }, argument: { name: 'arg1', value: 'te' } });
    const v = res.completion.values;
    check(v.includes('test') && !v.includes('value'), `values ${v}`);
  });

  await run('logging/set_level', async () => {
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
    if (modern) {
      const last = upstream().filter(p => p.method === 'tools/call').at(-1);
      check(last.params?._meta?.['io.modelcontextprotocol/logLevel'] === 'debug', `upstream _meta ${short(last.params?._meta)}`);
    }
  });
  await run('logging/tool_messages', async () => {
    await c.setLoggingLevel('info');
    const from = conn.logs.length;
    await call('test_tool_with_logging');
    await waitFor(() => conn.logs.length >= from + 3, 2000);
    check(conn.logs.length - from === 3, `${conn.logs.length - from} log messages, want 3`);
  });

  await run('progress/notifications', async () => {
    let callbacks = 0;
    const from = conn.progress.length;
    const res = await call('test_tool_with_progress', {}, { onprogress: () => { callbacks++; } });
    check(!res.isError, `result ${short(res)}`);
    const got = conn.progress.slice(from);
    check(got.length >= 3, `${got.length} progress notifications`);
    check(got.every(p => p.progressToken === got[0].progressToken), `tokens ${got.map(p => p.progressToken)}`);
    for (let i = 1; i < got.length; i++) check(got[i].progress > got[i - 1].progress, `progress ${got.map(p => p.progress)}`);
    check(callbacks >= 2, `onprogress ran ${callbacks} times`);
  });

  if (atLeast('2025-06-18')) {
    await run('elicitation/form', async () => {
      // Legacy: the server's elicitation/create, relayed; auto: an
      // input_required result that mcp-remote puts to the client.
      const from = conn.elicits.length;
      const res = await call('test_input_required_result_elicitation');
      check(textOf(res) === `Hello, ${ELICITED_NAME}!`, `result ${short(res)}`);
      check(conn.elicits.length - from === 1, `${conn.elicits.length - from} elicitations`);
      const res2 = await call('test_elicitation', { message: 'Who are you?' });
      check(textOf(res2).startsWith('User response: action=accept'), `test_elicitation ${short(res2)}`);
    });
  } else {
    await run('tools/elicitation_refused', async () => {
      // No elicitation before 2025-06-18: the fixture that needs it fails
      // as a missing capability, and the session still serves.
      let code;
      try { await call('test_input_required_result_elicitation'); } catch (err) { code = err.code; }
      check(code === -32021, `error code ${code}, want -32021`);
      check(textOf(await call('test_simple_text')) === SIMPLE_TEXT, 'the session no longer serves');
    });
  }
  await run('sampling/create_message', async () => {
    const from = conn.samples;
    const res = await call('test_input_required_result_sampling');
    check(textOf(res) === `The model ${SAMPLED_MODEL} answered.`, `result ${short(res)}`);
    check(conn.samples - from === 1, `${conn.samples - from} samplings`);
  });
  await run('roots/list', async () => {
    const res = await call('test_input_required_result_list_roots');
    check(textOf(res) === 'Roots: 1', `result ${short(res)}`);
  });

  await c.close();
  tap.close();
  rmSync(configDir, { recursive: true, force: true });
}

finish(main);
