// Interop: the Vercel AI SDK MCP client (@ai-sdk/mcp, pinned with `ai` in
// package.json) against examples/everything in ErasBoth, over Streamable
// HTTP or stdio, in one era per run:
//
//   node aisdk.mjs --transport http --url URL --era 2026-07-28|2025-11-25
//   node aisdk.mjs --transport stdio --cmd BIN [--arg A ...] --era ...
//
// What @ai-sdk/mcp 2.0.99 is, read from its source (src/tool/mcp-client.ts):
//   - It speaks 2026-07-28 (server/discover first, the _meta triple on every
//     request, Mcp-Method/Mcp-Name/Mcp-Param-* headers over HTTP) unless
//     protocolVersionDiscovery is false; then it sends initialize, always
//     at 2025-11-25 (LATEST_LEGACY_PROTOCOL_VERSION). No other legacy
//     revision can be asked for, so those two are its eras.
//   - Server notifications are not surfaced: a message with a method and no
//     id goes to onUncaughtError as "Unsupported message type". It sends no
//     progressToken and no logging/setLevel, so logging and progress are
//     not features here; the checks only see that the fixtures that log or
//     report progress still answer, and that a 2026-07-28 server sends them
//     no notification they did not ask for.
//   - Server requests: only elicitation/create (and ping). In 2026-07-28 it
//     answers input_required results whose requests are all form
//     elicitations; sampling and roots are refused.
//   - tools() turns every MCP tool into a dynamicTool whose inputSchema is
//     jsonSchema({...inputSchema, properties: inputSchema.properties ?? {},
//     additionalProperties: false}) — the server's schema passed through as
//     is (no validation on the client, no dereferencing), except that
//     additionalProperties is forced to false at the top level (see
//     deviation/closed_input_schema).
//
// Each check prints one line (checks.mjs); clients_node_test.go runs this.

import { createMCPClient, ElicitationRequestSchema, MCPClientError } from '@ai-sdk/mcp';
import { StdioMCPTransport } from '@ai-sdk/mcp/mcp-stdio';
import { generateText, isStepCount } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { z } from 'zod';

import {
  check, elicitAnswer, ELICITED_NAME, finish, parseArgs, run, short, SIMPLE_TEXT, sleep, textOf,
} from '../checks.mjs';

const opts = parseArgs(process.argv.slice(2));
const MODERN = '2026-07-28';
const modern = opts.era === MODERN;
if (opts.era !== MODERN && opts.era !== '2025-11-25') throw new Error(`@ai-sdk/mcp speaks 2026-07-28 and 2025-11-25, not ${opts.era}`);
if (opts.transport === 'http' && !opts.url) throw new Error('--transport http needs --url');
if (opts.transport === 'stdio' && !opts.cmd) throw new Error('--transport stdio needs --cmd');

// What the client reported or sent: the uncaught errors (each unsolicited
// notification is one), the elicitations it answered, and over HTTP the
// headers of every POST.
const uncaught = [];
const elicited = [];
const posts = [];
const recordingFetch = async (url, init = {}) => {
  if ((init.method ?? 'GET').toUpperCase() === 'POST') {
    let body;
    try { body = JSON.parse(init.body); } catch { body = undefined; }
    posts.push({ headers: new Headers(init.headers ?? {}), method: body?.method, body });
  }
  return fetch(url, init);
};

async function connect() {
  const transport = opts.transport === 'http'
    ? { type: 'http', url: opts.url, fetch: recordingFetch }
    : new StdioMCPTransport({ command: opts.cmd, args: opts.args, stderr: 'inherit' });
  const client = await createMCPClient({
    transport,
    clientName: 'mcpwire-interop-aisdk',
    protocolVersionDiscovery: modern,
    capabilities: { elicitation: {} },
    onUncaughtError: err => uncaught.push(err),
  });
  client.onElicitationRequest(ElicitationRequestSchema, req => {
    elicited.push(req.params);
    return elicitAnswer(req.params.requestedSchema);
  });
  return client;
}

async function rejection(p) {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error('resolved, want a rejection');
}

// The JSON Schema 2020-12 fixture's keywords that a client could lose.
const SCHEMA_KEYWORDS = ['$schema', '$defs', 'allOf', 'if', 'then', 'else'];

async function main() {
  let c;
  try {
    c = await connect();
  } catch (err) {
    console.log(`FAIL version/connect: ${err?.stack ?? err}`.replaceAll('\n', ' | '));
    process.exit(1);
  }
  const unsolicited = () => uncaught.filter(e => MCPClientError.isInstance(e) && e.message === 'Unsupported message type').length;

  await run('version/negotiated', async () => {
    const v = c.initializeResult.protocolVersion;
    check(v === opts.era, `negotiated ${v}, want ${opts.era}`);
    check(c.serverInfo?.name === 'mcpwire-everything', `serverInfo ${short(c.serverInfo)}`);
    const caps = c.initializeResult.capabilities;
    check(caps.tools && caps.prompts && caps.resources && caps.completions, `capabilities ${short(caps)}`);
    if (opts.transport === 'http') {
      const first = posts[0]?.method;
      check(first === (modern ? 'server/discover' : 'initialize'), `first request ${first}`);
      await c.listTools();
      const last = posts.at(-1);
      check(last.headers.get('mcp-protocol-version') === opts.era, `MCP-Protocol-Version ${last.headers.get('mcp-protocol-version')}`);
      check(modern === !last.headers.has('mcp-session-id'), `Mcp-Session-Id ${last.headers.get('mcp-session-id')}`);
      if (modern) check(last.headers.get('mcp-method') === 'tools/list', `Mcp-Method ${last.headers.get('mcp-method')}`);
    }
  });

  let tools;
  await run('tools/list', async () => {
    const res = await c.listTools();
    const names = res.tools.map(t => t.name);
    check(names.length >= 20, `${names.length} tools`);
    for (const want of ['test_simple_text', 'test_error_handling', 'test_structured_output', 'test_image_content', 'json_schema_2020_12_tool']) {
      check(names.includes(want), `tools/list lacks ${want}`);
    }
    tools = await c.tools();
    check(Object.keys(tools).length === names.length, `tools() made ${Object.keys(tools).length} of ${names.length}`);
    check(tools.test_simple_text.type === 'dynamic', `tool type ${tools.test_simple_text.type}`);
  });
  await run('tools/call_text', async () => {
    const res = await c.callTool({ name: 'test_simple_text' });
    check(textOf(res) === SIMPLE_TEXT && !res.isError, `result ${short(res)}`);
    const out = await tools.test_simple_text.execute({}, { toolCallId: 'c1', messages: [] });
    check(textOf(out) === SIMPLE_TEXT, `execute ${short(out)}`);
  });
  await run('tools/call_error', async () => {
    const res = await c.callTool({ name: 'test_error_handling' });
    check(res.isError === true && textOf(res), `result ${short(res)}`);
  });
  await run('structured/call', async () => {
    const res = await c.callTool({ name: 'test_structured_output' });
    check(res.structuredContent?.temperature === 21.5 && res.structuredContent?.conditions === 'sunny', `structuredContent ${short(res.structuredContent)}`);
    check(JSON.parse(textOf(res)).conditions === 'sunny', `text copy ${textOf(res)}`);
    // With an outputSchema, execute returns the validated structuredContent.
    const typed = await c.tools({
      schemas: {
        test_structured_output: {
          inputSchema: z.object({}),
          outputSchema: z.object({ temperature: z.number(), conditions: z.string() }),
        },
      },
    });
    const out = await typed.test_structured_output.execute({}, { toolCallId: 'c2', messages: [] });
    check(out.temperature === 21.5 && out.conditions === 'sunny', `typed execute ${short(out)}`);
  });
  await run('tools/call_image', async () => {
    const res = await c.callTool({ name: 'test_image_content' });
    const img = res.content?.[0];
    check(res.content.length === 1 && img.type === 'image' && img.mimeType === 'image/png' && img.data.startsWith('iVBOR'), `content ${short(res.content)}`);
    // What the model is given: the image as a file part.
    const model = tools.test_image_content.toModelOutput({ toolCallId: 'c3', input: {}, output: res });
    const part = model.value?.[0];
    check(model.type === 'content' && part?.type === 'file' && part.mediaType === 'image/png' && part.data?.data === img.data, `model output ${short(model)}`);
  });
  await run('unknown_tool/call', async () => {
    const err = await rejection(c.callTool({ name: 'no_such_tool' }));
    check(MCPClientError.isInstance(err) && err.code === -32602, `error ${err?.code} ${err?.message}`);
  });
  await run('tools/unrequested_notifications', async () => {
    // No progressToken and no log level asked for: the progress fixture
    // must send no notifications/progress; in 2026-07-28 the logging
    // fixture sends no notifications/message either (in 2025-11-25 a server
    // may log before logging/setLevel: counted, not checked).
    let from = unsolicited();
    const res = await c.callTool({ name: 'test_tool_with_progress' });
    check(!res.isError, `progress fixture ${short(res)}`);
    await sleep(100);
    check(unsolicited() === from, `${unsolicited() - from} notifications without a progressToken`);
    from = unsolicited();
    const logged = await c.callTool({ name: 'test_tool_with_logging' });
    check(textOf(logged) === 'Tool with logging completed.', `logging fixture ${short(logged)}`);
    await sleep(100);
    if (modern) check(unsolicited() === from, `${unsolicited() - from} log notifications without io.modelcontextprotocol/logLevel`);
    else console.log(`note: 2025-11-25 logging fixture sent ${unsolicited() - from} notifications/message before logging/setLevel`);
  });
  if (opts.transport === 'http' && modern) {
    await run('headers/x_mcp_header', async () => {
      // The tool's x-mcp-header parameter is mirrored into Mcp-Param-Region,
      // which the server checks against the argument.
      const res = await c.callTool({ name: 'test_x_mcp_header', arguments: { region: 'eu-west-1' } });
      check(textOf(res) === 'region: eu-west-1', `result ${short(res)}`);
      const sent = posts.at(-1).headers;
      check(sent.get('mcp-param-region') === 'eu-west-1' && sent.get('mcp-name') === 'test_x_mcp_header',
        `headers ${short(Object.fromEntries(sent))}`);
    });
  }

  await run('schema/2020_12_passthrough', async () => {
    const listed = (await c.listTools()).tools.find(t => t.name === 'json_schema_2020_12_tool').inputSchema;
    const given = await tools.json_schema_2020_12_tool.inputSchema.jsonSchema;
    for (const k of SCHEMA_KEYWORDS) check(JSON.stringify(given[k]) === JSON.stringify(listed[k]), `${k}: ${short(given[k])}, listed ${short(listed[k])}`);
    check(given.properties.address.$ref === '#/$defs/address', `address ${short(given.properties.address)}`);
    check(given.allOf[0].anyOf.length === 2, `allOf ${short(given.allOf)}`);
    check(given.additionalProperties === false, `additionalProperties ${given.additionalProperties}`);
    // No client-side validation: the schema object has no validate.
    check(tools.json_schema_2020_12_tool.inputSchema.validate === undefined, 'the AI SDK validates tool input');
  });
  await run('deviation/closed_input_schema', async () => {
    // Deviation (clients_test.go): the AI SDK forces
    // additionalProperties false on every tool, also where the server's
    // schema leaves it open. test_simple_text's schema has no
    // additionalProperties.
    const listed = (await c.listTools()).tools.find(t => t.name === 'test_simple_text').inputSchema;
    check(!('additionalProperties' in listed), `server schema ${short(listed)}`);
    const given = await tools.test_simple_text.inputSchema.jsonSchema;
    check(given.additionalProperties === false, `given ${short(given)}`);
  });
  await run('schema/call_validated', async () => {
    const args = { name: 'Ada', address: { street: '1 Main St', city: 'Springfield' }, contactMethod: 'email', email: 'ada@example.com' };
    const res = await c.callTool({ name: 'json_schema_2020_12_tool', arguments: args });
    check(!res.isError && textOf(res).startsWith('Validated: '), `result ${short(res)}`);
    check(JSON.stringify(JSON.parse(textOf(res).slice('Validated: '.length))) === JSON.stringify(args), `echo ${textOf(res)}`);
  });

  await run('agent/generate_text_loop', async () => {
    // A mock model that calls json_schema_2020_12_tool, then answers with
    // what the tool returned. The loop runs the MCP tool between the steps.
    const input = { name: 'Grace', contactMethod: 'phone', phone: '555-0100' };
    const model = new MockLanguageModelV4({
      doGenerate: async options => {
        const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
        const toolMsg = options.prompt.find(m => m.role === 'tool');
        if (!toolMsg) {
          return {
            content: [{ type: 'tool-call', toolCallId: 'call-1', toolName: 'json_schema_2020_12_tool', input: JSON.stringify(input) }],
            finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage, warnings: [],
          };
        }
        const out = toolMsg.content.find(p => p.type === 'tool-result')?.output;
        const text = out?.type === 'content' ? out.value.filter(p => p.type === 'text').map(p => p.text).join('') : short(out);
        return { content: [{ type: 'text', text: `The tool said: ${text}` }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] };
      },
    });
    const result = await generateText({
      model,
      tools: { json_schema_2020_12_tool: tools.json_schema_2020_12_tool },
      prompt: 'Register Grace, who wants a phone call.',
      stopWhen: isStepCount(3),
    });
    check(model.doGenerateCalls.length === 2, `${model.doGenerateCalls.length} model calls`);
    // The tool as the model was given it: a function tool with the
    // server's schema.
    const given = model.doGenerateCalls[0].tools?.find(t => t.name === 'json_schema_2020_12_tool');
    check(given?.type === 'function' && given.inputSchema.$defs?.address && given.inputSchema.if && given.description?.includes('2020-12'),
      `model tool ${short(given)}`);
    const call = result.steps[0].toolResults[0];
    check(call?.toolName === 'json_schema_2020_12_tool' && textOf(call.output).startsWith('Validated: '), `tool result ${short(call)}`);
    check(JSON.parse(textOf(call.output).slice('Validated: '.length)).phone === '555-0100', `echo ${textOf(call.output)}`);
    check(result.text.startsWith('The tool said: Validated: ') && result.finishReason === 'stop', `text ${result.text} (${result.finishReason})`);
  });

  await run('resources/list', async () => {
    const uris = (await c.listResources()).resources.map(r => r.uri);
    for (const want of ['test://static-text', 'test://static-binary']) check(uris.includes(want), `resources ${uris}`);
  });
  await run('resources/read_text', async () => {
    const res = await c.readResource({ uri: 'test://static-text' });
    check(res.contents.length === 1 && res.contents[0].uri === 'test://static-text' && res.contents[0].text, `contents ${short(res.contents)}`);
  });
  await run('resources/read_blob', async () => {
    const res = await c.readResource({ uri: 'test://static-binary' });
    check(res.contents.length === 1 && res.contents[0].mimeType === 'image/png' && res.contents[0].blob, `contents ${short(res.contents)}`);
  });
  await run('resources/templates', async () => {
    const ts = (await c.listResourceTemplates()).resourceTemplates;
    check(ts.length === 1 && ts[0].uriTemplate === 'test://template/{id}/data', `templates ${short(ts)}`);
    const res = await c.readResource({ uri: 'test://template/42/data' });
    check(res.contents.length === 1 && JSON.parse(res.contents[0].text).id === '42', `contents ${short(res.contents)}`);
  });
  await run('resources/read_missing', async () => {
    // -32602 in 2026-07-28, -32002 before (docs/conversion.md).
    const err = await rejection(c.readResource({ uri: 'test://no-such-resource' }));
    const want = modern ? -32602 : -32002;
    check(err?.code === want, `error ${err?.code} ${err?.message}, want ${want}`);
  });

  await run('prompts/list', async () => {
    const ps = (await c.listPrompts()).prompts;
    const p = ps.find(x => x.name === 'test_prompt_with_arguments');
    check(p?.arguments?.length === 2, `prompts ${short(ps.map(x => x.name))}`);
  });
  await run('prompts/get', async () => {
    const res = await c.getPrompt({ name: 'test_prompt_with_arguments', arguments: { arg1: 'first-value', arg2: 'second-value' } });
    const text = res.messages.map(m => m.content.text ?? '').join('');
    check(text.includes('first-value') && text.includes('second-value'), `prompt text ${text}`);
    const img = await c.getPrompt({ name: 'test_prompt_with_image' });
    check(img.messages[0].content.type === 'image' && img.messages[0].content.mimeType === 'image/png', `image prompt ${short(img.messages)}`);
  });

  await run('completion/prompt_argument', async () => {
    const res = await c.complete({ ref: { type: 'ref/prompt', name: 'test_prompt_with_arguments' }, argument: { name: 'arg1', value: 'te' } });
    const v = res.completion.values;
    check(v.includes('test') && v.includes('testing') && !v.includes('value'), `values ${v}`);
  });

  await run('elicitation/form', async () => {
    // 2026-07-28: an input_required result the client answers and retries;
    // 2025-11-25: a real elicitation/create request in the session.
    const from = elicited.length;
    const res = await c.callTool({ name: 'test_input_required_result_elicitation' });
    check(textOf(res) === `Hello, ${ELICITED_NAME}!`, `result ${short(res)}`);
    check(elicited.length - from === 1, `${elicited.length - from} elicitations`);
    const res2 = await c.callTool({ name: 'test_elicitation', arguments: { message: 'Who are you?' } });
    check(textOf(res2).startsWith('User response: action=accept'), `test_elicitation ${short(res2)}`);
    check(elicited.at(-1).message === 'Who are you?', `message ${short(elicited.at(-1))}`);
  });
  await run('elicitation/sampling_refused', async () => {
    // The client declares no sampling: the fixture that asks for it fails
    // with -32021 in both eras (docs/dual-era.md H14), and the client
    // still serves.
    const err = await rejection(c.callTool({ name: 'test_input_required_result_sampling' }));
    check(MCPClientError.isInstance(err) && err.code === -32021, `error ${err?.code} ${err?.message}`);
    check(textOf(await c.callTool({ name: 'test_simple_text' })) === SIMPLE_TEXT, 'the client no longer serves');
  });

  await c.close();
}

finish(main);
