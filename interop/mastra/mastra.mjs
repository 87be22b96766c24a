// Interop: the Mastra MCP client (@mastra/mcp with @mastra/core, pinned in
// package.json) against examples/everything in ErasBoth, over Streamable
// HTTP or stdio, in one era per run:
//
//   node mastra.mjs --transport http --url URL --era 2026-07-28|2025-11-25
//   node mastra.mjs --transport stdio --cmd BIN [--arg A ...] --era ...
//
// What @mastra/mcp 2.0.0 is (dist/client/types.d.ts, dist/index.js): a
// wrapper of the TypeScript SDK 2.0.0 client (@modelcontextprotocol/client).
//   - Without protocolVersion it probes server/discover and speaks
//     2026-07-28 when offered (the 2026-07-28 runs use that default);
//     protocolVersion 'legacy' skips the probe and sends initialize, at the
//     SDK's latest legacy revision, 2025-11-25. No earlier revision can be
//     chosen, so those two are its eras.
//   - Tools come back as Mastra tools named server_tool. execute() returns
//     the CallToolResult, or its structuredContent when there is one (the
//     content kept on a symbol). A result with isError is thrown as a
//     MastraError carrying the content's text (onToolError 'throw', the
//     default); onToolError 'return' hands it back.
//   - Logging: every request carries io.modelcontextprotocol/logLevel
//     (serverLogLevel, default info) in both eras, and server messages
//     reach the logger handler as "[MCP SERVER LOG]" entries. It sends no
//     logging/setLevel in a 2025-11-25 session.
//   - Progress: enableProgressTracking puts a progressToken on each tool
//     call; progress.onUpdate gets the notifications.
//   - Elicitation: the inputRequests handler answers server elicitation
//     requests (2025-11-25) and input_required results (2026-07-28).
//     Sampling, roots and completion are not offered.
//
// Each check prints one line (checks.mjs); clients_node_test.go runs this.

import { MCPClient } from '@mastra/mcp';

import {
  check, elicitAnswer, ELICITED_NAME, finish, parseArgs, run, short, SIMPLE_TEXT, sleep, textOf, waitFor,
} from '../checks.mjs';

const opts = parseArgs(process.argv.slice(2));
const MODERN = '2026-07-28';
const modern = opts.era === MODERN;
if (opts.era !== MODERN && opts.era !== '2025-11-25') throw new Error(`@mastra/mcp speaks 2026-07-28 and 2025-11-25, not ${opts.era}`);
if (opts.transport === 'http' && !opts.url) throw new Error('--transport http needs --url');
if (opts.transport === 'stdio' && !opts.cmd) throw new Error('--transport stdio needs --cmd');
const SERVER = 'everything';

const serverLogs = [];
const progress = [];
const elicited = [];
const posts = [];

function serverConfig(extra = {}) {
  const common = {
    ...(modern ? {} : { protocolVersion: 'legacy' }),
    enableProgressTracking: true,
    logger: m => { if (m.message.includes('[MCP SERVER LOG]')) serverLogs.push(m); },
    inputRequests: async ({ params }) => {
      elicited.push(params);
      return elicitAnswer(params.requestedSchema);
    },
    ...extra,
  };
  if (opts.transport === 'http') {
    return {
      url: new URL(opts.url),
      fetch: async (url, init = {}) => {
        if ((init.method ?? 'GET').toUpperCase() === 'POST') {
          let body;
          try { body = JSON.parse(init.body); } catch { body = undefined; }
          posts.push({ headers: new Headers(init.headers ?? {}), method: body?.method, body });
        }
        return fetch(url, init);
      },
      ...common,
    };
  }
  return { command: opts.cmd, args: opts.args, stderr: 'inherit', ...common };
}

async function rejection(p) {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error('resolved, want a rejection');
}

async function main() {
  const mcp = new MCPClient({ id: `interop-${opts.transport}-${opts.era}`, servers: { [SERVER]: serverConfig() } });
  let tools;
  try {
    tools = await mcp.listTools();
  } catch (err) {
    console.log(`FAIL version/connect: ${err?.stack ?? err}`.replaceAll('\n', ' | '));
    process.exit(1);
  }
  const tool = name => tools[`${SERVER}_${name}`];
  const exec = (name, input = {}) => tool(name).execute(input, {});

  await run('version/negotiated', async () => {
    const v = mcp.getServerProtocolVersions()[SERVER];
    check(v === opts.era, `negotiated ${v}, want ${opts.era}`);
    if (opts.transport === 'http') {
      const first = posts[0]?.method;
      check(first === (modern ? 'server/discover' : 'initialize'), `first request ${first}`);
      check(modern === !posts.some(p => p.method === 'initialize'), `requests ${posts.map(p => p.method)}`);
      const last = posts.filter(p => p.method === 'tools/list').at(-1);
      check(last.headers.get('mcp-protocol-version') === opts.era, `MCP-Protocol-Version ${last.headers.get('mcp-protocol-version')}`);
      check(modern === !last.headers.has('mcp-session-id'), `Mcp-Session-Id ${last.headers.get('mcp-session-id')}`);
    }
  });

  await run('tools/list', async () => {
    const names = Object.keys(tools);
    check(names.length >= 20, `${names.length} tools`);
    for (const want of ['test_simple_text', 'test_error_handling', 'test_structured_output', 'test_image_content', 'json_schema_2020_12_tool']) {
      check(tool(want), `listTools lacks ${SERVER}_${want}: ${names.slice(0, 5)}…`);
    }
    check(tool('test_simple_text').id === `${SERVER}_test_simple_text`, `id ${tool('test_simple_text').id}`);
  });
  await run('tools/call_text', async () => {
    const res = await exec('test_simple_text');
    check(textOf(res) === SIMPLE_TEXT && !res.isError, `result ${short(res)}`);
  });
  await run('tools/call_error', async () => {
    // Default onToolError 'throw': the server's text in a MastraError.
    const err = await rejection(exec('test_error_handling'));
    check(err?.id === 'MCP_CLIENT_TOOL_EXECUTION_FAILED' && err.message, `error ${err?.id} ${err?.message}`);
    // onToolError 'return': the CallToolResult as the server sent it.
    const raw = new MCPClient({ id: `interop-raw-${opts.transport}-${opts.era}`, servers: { [SERVER]: serverConfig({ onToolError: 'return' }) } });
    try {
      const res = await (await raw.listTools())[`${SERVER}_test_error_handling`].execute({}, {});
      check(res.isError === true && textOf(res) === err.message, `result ${short(res)}, thrown ${err.message}`);
    } finally {
      await raw.disconnect();
    }
  });
  await run('structured/call', async () => {
    // execute gives the structuredContent, validated against the tool's
    // outputSchema, and keeps the content blocks on a symbol.
    const res = await exec('test_structured_output');
    check(res.temperature === 21.5 && res.conditions === 'sunny', `result ${short(res)}`);
    const content = res[Symbol.for('mastra.mcp.callToolContent')];
    check(JSON.parse(textOf({ content })).conditions === 'sunny', `content ${short(content)}`);
  });
  await run('tools/call_image', async () => {
    const res = await exec('test_image_content');
    const img = res.content?.[0];
    check(res.content.length === 1 && img.type === 'image' && img.mimeType === 'image/png' && img.data.startsWith('iVBOR'), `content ${short(res.content)}`);
  });
  await run('tools/call_validated_schema', async () => {
    // json_schema_2020_12_tool's schema ($defs, $ref, allOf/anyOf,
    // if/then/else) as Mastra's input schema: a valid input goes through.
    const args = { name: 'Ada', address: { street: '1 Main St', city: 'Springfield' }, contactMethod: 'email', email: 'ada@example.com' };
    const res = await exec('json_schema_2020_12_tool', args);
    check(textOf(res).startsWith('Validated: ') && JSON.parse(textOf(res).slice(11)).email === 'ada@example.com', `result ${short(res)}`);
  });
  await run('unknown_tool/call', async () => {
    // A cached definition of a tool the server does not have (the
    // toolFromDefinition path): the server's -32602 reaches the caller.
    const ghost = await mcp.toolFromDefinition({
      serverName: SERVER,
      definition: { name: 'no_such_tool', description: 'gone', inputSchema: { type: 'object', properties: {} }, server: { name: SERVER } },
    });
    const err = await rejection(ghost.execute({}, {}));
    check(err?.code === -32602 && /Unknown tool/.test(err.message), `error ${err?.code} ${err?.message}`);
  });

  await run('resources/list', async () => {
    const uris = (await mcp.resources.list())[SERVER].map(r => r.uri);
    for (const want of ['test://static-text', 'test://static-binary']) check(uris.includes(want), `resources ${uris}`);
  });
  await run('resources/read', async () => {
    const text = await mcp.resources.read(SERVER, 'test://static-text');
    check(text.contents.length === 1 && text.contents[0].text, `contents ${short(text.contents)}`);
    const blob = await mcp.resources.read(SERVER, 'test://static-binary');
    check(blob.contents[0].mimeType === 'image/png' && blob.contents[0].blob, `contents ${short(blob.contents)}`);
  });
  await run('resources/templates', async () => {
    const ts = (await mcp.resources.templates())[SERVER];
    check(ts.length === 1 && ts[0].uriTemplate === 'test://template/{id}/data', `templates ${short(ts)}`);
    const res = await mcp.resources.read(SERVER, 'test://template/42/data');
    check(JSON.parse(res.contents[0].text).id === '42', `contents ${short(res.contents)}`);
  });

  await run('prompts/list', async () => {
    const ps = (await mcp.prompts.list())[SERVER];
    check(ps.find(p => p.name === 'test_prompt_with_arguments')?.arguments?.length === 2, `prompts ${short(ps.map(p => p.name))}`);
  });
  await run('prompts/get', async () => {
    const res = await mcp.prompts.get({ serverName: SERVER, name: 'test_prompt_with_arguments', args: { arg1: 'first-value', arg2: 'second-value' } });
    const text = res.messages.map(m => m.content.text ?? '').join('');
    check(text.includes('first-value') && text.includes('second-value'), `prompt text ${text}`);
  });

  if (!modern) {
    await run('deviation/legacy_log_level', async () => {
      // Deviation (clients_test.go): in a 2025-11-25 session Mastra asks
      // for logs only with the 2026-07-28 _meta key
      // io.modelcontextprotocol/logLevel and never sends logging/setLevel,
      // the revision's way; mcpwire serves the session's revision and
      // sends none.
      const from = serverLogs.length;
      await exec('test_tool_with_logging');
      await sleep(300);
      check(serverLogs.length === from, `${serverLogs.length - from} server logs in a 2025-11-25 session without logging/setLevel`);
      if (opts.transport === 'http') {
        check(!posts.some(p => p.method === 'logging/setLevel'), 'Mastra sent logging/setLevel');
        const last = posts.filter(p => p.method === 'tools/call').at(-1);
        check(last.body.params._meta?.['io.modelcontextprotocol/logLevel'] === 'info', `tools/call _meta ${short(last.body.params._meta)}`);
      }
    });
  }
  if (modern) await run('logging/server_messages', async () => {
    // serverLogLevel info (the default): the three info messages of
    // test_tool_with_logging, none of test_logging_tool's debug one.
    let from = serverLogs.length;
    await exec('test_tool_with_logging');
    await waitFor(() => serverLogs.length >= from + 3, 2000);
    await sleep(50);
    const got = serverLogs.slice(from);
    check(got.length === 3 && got.every(m => m.level === 'info'), `logs ${short(got.map(m => [m.level, m.details]))}`);
    from = serverLogs.length;
    await exec('test_logging_tool');
    await waitFor(() => serverLogs.length > from, 2000);
    await sleep(50);
    const levels = serverLogs.slice(from).map(m => m.level).join(',');
    check(levels === 'info', `test_logging_tool at info: levels ${levels}`);
  });

  await run('progress/notifications', async () => {
    await mcp.progress.onUpdate(SERVER, p => progress.push(p));
    const from = progress.length;
    const res = await exec('test_tool_with_progress');
    check(!res.isError, `result ${short(res)}`);
    await waitFor(() => progress.length - from >= 3, 2000);
    const got = progress.slice(from);
    check(got.length >= 3, `${got.length} progress notifications`);
    check(got.every(p => p.progressToken === got[0].progressToken), `tokens ${got.map(p => p.progressToken)}`);
    for (let i = 1; i < got.length; i++) check(got[i].progress > got[i - 1].progress, `progress ${got.map(p => p.progress)}`);
  });

  await run('elicitation/form', async () => {
    const from = elicited.length;
    const res = await exec('test_input_required_result_elicitation');
    check(textOf(res) === `Hello, ${ELICITED_NAME}!`, `result ${short(res)}`);
    check(elicited.length - from === 1, `${elicited.length - from} elicitations`);
    const res2 = await exec('test_elicitation', { message: 'Who are you?' });
    check(textOf(res2).startsWith('User response: action=accept'), `test_elicitation ${short(res2)}`);
    check(elicited.at(-1).message === 'Who are you?', `message ${short(elicited.at(-1))}`);
  });

  await mcp.disconnect();
}

finish(main);
