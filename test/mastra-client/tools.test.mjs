// Runs tools through a running `keel serve` with the official Mastra
// TypeScript client: MCP tools (of @modelcontextprotocol/server-everything,
// which keel.yaml gives the agent) and keel's built-in sandbox tools, by
// the client's tool API, its agent API and its MCP registry API. The Go
// test cmd/keel/mastraclient_test.go starts keel serve and runs this file
// with:
//
//   KEEL_URL    keel's base URL, such as http://127.0.0.1:41234
//   KEEL_AGENT  the agent whose tools these are
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { MastraClient, MastraClientError } from '@mastra/client-js';

const baseUrl = process.env.KEEL_URL;
const agentId = process.env.KEEL_AGENT ?? 'assistant';
if (!baseUrl) {
  throw new Error('set KEEL_URL: this test drives a running keel serve (see cmd/keel/mastraclient_test.go)');
}

// No retries: a test must see the first answer.
const client = new MastraClient({ baseUrl, retries: 0 });
const agent = client.getAgent(agentId);
const resourceId = 'tools-user';

// bytesOf decodes a returned file part's data: URL, checking its type.
function bytesOf(file, mediaType) {
  const prefix = `data:${mediaType};base64,`;
  assert.ok(file.data.startsWith(prefix), `file data ${file.data.slice(0, 40)}...; want a data: URL of ${mediaType}`);
  const bytes = Buffer.from(file.data.slice(prefix.length), 'base64');
  assert.equal(bytes.length, file.size);
  assert.equal(createHash('sha256').update(bytes).digest('hex'), file.sha256);
  return bytes;
}

test('the tools are listed with their schemas', async () => {
  const tools = await client.listTools();
  for (const id of ['run_command', 'list_files', 'everything_echo', 'everything_get-sum', 'everything_get-tiny-image']) {
    assert.ok(tools[id], `listTools() has ${Object.keys(tools)}; want ${id}`);
  }
  const echo = await client.getTool('everything_echo').details();
  assert.equal(echo.id, 'everything_echo');
  assert.equal(echo.description, 'Echoes back the input string');
  const schema = JSON.parse(echo.inputSchema).json;
  assert.equal(schema.properties.message.type, 'string');
  const details = await agent.details();
  assert.equal(JSON.parse(details.tools['everything_get-sum'].inputSchema).json.properties.a.type, 'number');
});

test('Tool.execute runs MCP tools', async () => {
  assert.equal(await client.getTool('everything_echo').execute({ data: { message: 'hello from client-js' } }),
    'Echo: hello from client-js');
  const sum = await client.getTool('everything_get-sum').execute({ data: { a: 2, b: 40 } });
  assert.match(sum, /\b42\b/);
});

test('Agent.executeTool runs MCP tools', async () => {
  assert.equal(await agent.executeTool('everything_echo', { data: { message: 'through the agent' } }),
    'Echo: through the agent');
  const sum = await agent.executeTool('everything_get-sum', { data: { a: 1.5, b: 2.25 } });
  assert.match(sum, /3\.75/);
});

test('built-in tools run in the resource\'s sandbox', async () => {
  const requestContext = { mastra__resourceId: resourceId };
  const ran = await agent.executeTool('run_command', {
    data: { command: 'printf "made by client-js" > notes.txt && echo done' },
    requestContext,
  });
  assert.equal(ran.exitCode, 0, `run_command: ${JSON.stringify(ran)}`);
  assert.equal(ran.stdout, 'done\n');
  const listing = await client.getTool('list_files').execute({ data: {}, requestContext });
  const notes = listing.entries.find((e) => e.name === 'notes.txt');
  assert.deepEqual(notes, { name: 'notes.txt', kind: 'file', size: 'made by client-js'.length },
    `entries ${JSON.stringify(listing.entries)}`);
  // Another resource's sandbox does not hold it.
  const other = await agent.executeTool('list_files', { data: {}, requestContext: { mastra__resourceId: 'someone-else' } });
  assert.ok(!other.entries.some((e) => e.name === 'notes.txt'), `another resource sees ${JSON.stringify(other.entries)}`);
});

test('a tool\'s image comes back as a file part', async () => {
  for (const run of [
    () => client.getTool('everything_get-tiny-image').execute({ data: {} }),
    () => agent.executeTool('everything_get-tiny-image', { data: {} }),
  ]) {
    const res = await run();
    assert.equal(res.output, "Here's the image you requested:\nThe image above is the MCP logo.");
    assert.equal(res.files.length, 1);
    const [file] = res.files;
    assert.equal(file.type, 'file');
    assert.equal(file.mimeType, 'image/png');
    assert.equal(file.filename, 'everything_get-tiny-image-1.png');
    const png = bytesOf(file, 'image/png');
    assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    assert.equal(png.readUInt32BE(16), 20, 'width');
    assert.equal(png.readUInt32BE(20), 20, 'height');
  }
});

test('the MCP registry API shows the server and runs its tools', async () => {
  const { servers, total_count: total } = await client.getMcpServers();
  assert.equal(total, 1);
  assert.equal(servers[0].id, 'everything');
  const details = await client.getMcpServerDetails('everything');
  assert.equal(details.name, 'everything');
  assert.ok(details.version_detail.version, `details ${JSON.stringify(details)}; want the server's version`);
  const { tools } = await client.getMcpServerTools('everything');
  assert.deepEqual(tools.map((t) => t.name).sort(), ['echo', 'get-sum', 'get-tiny-image']);
  const echo = client.getMcpServerTool('everything', 'echo');
  assert.equal((await echo.details()).id, 'everything_echo');
  assert.deepEqual(await echo.execute({ data: { message: 'by the registry' } }), { result: 'Echo: by the registry' });
  const image = await client.getMcpServerTool('everything', 'get-tiny-image').execute({ data: {} });
  assert.equal(image.result.files[0].mimeType, 'image/png');
});

test('what is not there is 404', async () => {
  const notFound = (status, text) => (err) => {
    assert.ok(err instanceof MastraClientError, `got ${err}`);
    assert.equal(err.status, status);
    assert.match(err.body.error, text);
    return true;
  };
  await assert.rejects(client.getTool('everything_get-env').execute({ data: {} }), notFound(404, /Tool not found/));
  await assert.rejects(agent.executeTool('nope', { data: {} }), notFound(404, /Tool not found: nope/));
  await assert.rejects(client.getMcpServerDetails('nope'), notFound(404, /MCP server with ID 'nope' not found/));
  await assert.rejects(client.getMcpServerTool('everything', 'get-env').details(), notFound(404, /not found on MCP server/));
});

test('a tool that fails says why', async () => {
  await assert.rejects(client.getTool('everything_get-sum').execute({ data: { a: 'two', b: 2 } }), (err) => {
    assert.equal(err.status, 500);
    assert.match(err.body.error, /^tool everything_get-sum failed: /);
    return true;
  });
});
