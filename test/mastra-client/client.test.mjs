// Drives a running `keel serve` with the official Mastra TypeScript client,
// exactly as an application would. The Go test cmd/keel/mastraclient_test.go
// starts keel serve (its model a local server speaking Gemini's wire
// protocol, which refuses xlsx files) and runs this file with:
//
//   KEEL_URL       keel's base URL, such as http://127.0.0.1:41234
//   KEEL_TOKEN     the bearer token keel requires ("" for none: keel runs
//                  without auth, and its callers are trusted)
//   KEEL_AGENT     the agent to talk to
//   EXPECTED_TEXT  what the model server answers
//   EXPECTED_MODEL the model id the model server reports
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { MastraClient, MastraClientError } from '@mastra/client-js';

const baseUrl = process.env.KEEL_URL;
const token = process.env.KEEL_TOKEN ?? '';
const agentId = process.env.KEEL_AGENT ?? 'assistant';
const expectedText = process.env.EXPECTED_TEXT;
const expectedModel = process.env.EXPECTED_MODEL;
if (!baseUrl || !expectedText || !expectedModel) {
  throw new Error('set KEEL_URL, EXPECTED_TEXT and EXPECTED_MODEL: this test drives a running keel serve (see cmd/keel/mastraclient_test.go)');
}

const resourceId = 'user-1';
const xlsxType = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

// No retries: keel answers caller mistakes with 4xx, and a test must see
// the first answer, not the fourth.
const client = new MastraClient({
  baseUrl,
  retries: 0,
  headers: token ? { Authorization: `Bearer ${token}` } : {},
});

// A stand-in spreadsheet: bytes that are not text, so that any re-encoding
// on the way shows.
function spreadsheet() {
  const bytes = Buffer.alloc(48 * 1024);
  bytes.write('PK\u0003\u0004', 0, 'latin1');
  for (let i = 4; i < bytes.length; i++) bytes[i] = (i * 31 + 7) & 0xff;
  return bytes;
}

test('lists the agents', async () => {
  const agents = await client.listAgents();
  assert.ok(agents[agentId], `listAgents() has ${Object.keys(agents)}; want ${agentId}`);
  assert.equal(agents[agentId].provider, 'google');
  assert.equal(agents[agentId].modelId, 'gemini-2.5-flash');
});

test('gets an agent\'s details', async () => {
  const details = await client.getAgent(agentId).details();
  assert.equal(details.name, 'Assistant');
  assert.equal(typeof details.instructions, 'string');
  assert.equal(typeof details.tools, 'object');
  assert.ok('run_command' in details.tools, `tools ${Object.keys(details.tools)}; want run_command`);
});

test('an unknown agent is 404 {error}', async () => {
  await assert.rejects(client.getAgent('no-such-agent').details(), (err) => {
    assert.ok(err instanceof MastraClientError, `got ${err}`);
    assert.equal(err.status, 404);
    assert.equal(err.body.error, 'Agent with id no-such-agent not found');
    return true;
  });
});

test('threads: create, generate, list, get, messages, delete', async (t) => {
  const thread = await client.createMemoryThread({ agentId, resourceId, title: 'Leads', metadata: { team: 'sales' } });
  assert.ok(thread.id, 'the created thread has an id');
  assert.equal(thread.resourceId, resourceId);
  assert.equal(thread.title, 'Leads');
  assert.deepEqual(thread.metadata, { team: 'sales' });
  const memory = { thread: thread.id, resource: resourceId };
  const agent = client.getAgent(agentId);

  await t.test('a text generate answers', async () => {
    const res = await agent.generate('Say hi', { memory });
    assert.equal(res.text, expectedText);
    assert.equal(res.finishReason, 'stop');
    assert.ok(res.usage.totalTokens > 0, `usage ${JSON.stringify(res.usage)}`);
  });

  const file = spreadsheet();
  const dataUrl = `data:${xlsxType};base64,${file.toString('base64')}`;
  await t.test('a generate with an xlsx the model refuses still answers', async () => {
    const res = await agent.generate([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'How many leads are from Berlin?' },
          { type: 'file', data: dataUrl, mediaType: xlsxType, filename: 'leads.xlsx' },
        ],
      },
    ], { memory });
    assert.equal(res.text, expectedText);
    assert.equal(res.finishReason, 'stop');
    // The answer does not carry the file back.
    assert.ok(!JSON.stringify(res).includes(file.toString('base64').slice(0, 200)), 'the answer echoes the file');
  });

  await t.test('the stored message keeps the file byte for byte', async () => {
    const page = await client.getMemoryThread({ threadId: thread.id, agentId }).listMessages({ resourceId });
    assert.equal(page.messages.length, 4, `messages: ${page.messages.map((m) => m.role)}`);
    assert.deepEqual(page.messages.map((m) => m.role), ['user', 'assistant', 'user', 'assistant']);
    const parts = page.messages[2].content.parts;
    const stored = parts.find((p) => p.type === 'file');
    assert.ok(stored, `parts ${JSON.stringify(parts.map((p) => p.type))}; want a file`);
    assert.equal(stored.filename, 'leads.xlsx');
    assert.equal(stored.mimeType, xlsxType);
    assert.equal(stored.data, dataUrl);
    const base64 = stored.data.slice(stored.data.indexOf(',') + 1);
    const sha = (b) => createHash('sha256').update(b).digest('hex');
    assert.equal(sha(Buffer.from(base64, 'base64')), sha(file));
    assert.equal(page.messages[3].content.content, expectedText);
  });

  await t.test('a stream reads to the end with processDataStream', async () => {
    const res = await agent.stream('Tell me more', { memory });
    const types = [];
    let text = '';
    await res.processDataStream({
      onChunk: async (chunk) => {
        types.push(chunk.type);
        assert.equal(chunk.from, 'AGENT');
        if (chunk.type === 'text-delta') text += chunk.payload.text;
      },
    });
    assert.equal(text, expectedText);
    assert.equal(types[0], 'start');
    assert.equal(types.at(-1), 'finish');
    for (const want of ['step-start', 'text-start', 'text-delta', 'text-end', 'step-finish']) {
      assert.ok(types.includes(want), `events ${types}; want ${want}`);
    }
  });

  await t.test('every step-finish carries its response id and model, as finish does', async () => {
    const res = await agent.stream('Once more', { memory });
    const finishes = [];
    await res.processDataStream({
      onChunk: async (chunk) => {
        if (chunk.type === 'step-finish' || chunk.type === 'finish') finishes.push(chunk);
      },
    });
    assert.deepEqual(finishes.map((c) => c.type), ['step-finish', 'finish']);
    const [step, finish] = finishes.map((c) => c.payload.metadata);
    assert.ok(step.id, `step-finish metadata ${JSON.stringify(step)}; want a response id`);
    assert.equal(step.modelId, expectedModel);
    assert.deepEqual(step, finish);
  });

  await t.test('a stream with the refused file tells of the recovery', async () => {
    const res = await agent.stream([
      { role: 'user', content: [{ type: 'file', data: dataUrl, mediaType: xlsxType, filename: 'leads.xlsx' }] },
    ], { memory });
    const recoveries = [];
    let text = '';
    await res.processDataStream({
      onChunk: async (chunk) => {
        if (chunk.type === 'data-keel-recovery') recoveries.push(chunk);
        if (chunk.type === 'text-delta') text += chunk.payload.text;
      },
    });
    assert.equal(text, expectedText);
    assert.equal(recoveries.length, 1, `recoveries ${JSON.stringify(recoveries)}`);
    const { payload } = recoveries[0];
    assert.equal(payload.processor, 'unsupported-file-handler');
    assert.equal(payload.action, 'uploaded');
    assert.equal(payload.files[0].name, 'leads.xlsx');
    assert.match(payload.files[0].path, new RegExp(`/uploads/${thread.id}/[0-9a-f]{64}\\.xlsx$`));
  });

  await t.test('the thread is listed and read for its resource only', async () => {
    const list = await client.listMemoryThreads({ resourceId, agentId });
    assert.ok(list.threads.some((th) => th.id === thread.id), `threads ${list.threads.map((th) => th.id)}`);
    assert.equal(list.hasMore, false);
    const other = await client.listMemoryThreads({ resourceId: 'someone-else', agentId });
    assert.ok(!other.threads.some((th) => th.id === thread.id), 'another resource lists the thread');

    const mt = client.getMemoryThread({ threadId: thread.id, agentId });
    const got = await mt.get({ mastra__resourceId: resourceId });
    assert.equal(got.id, thread.id);
    assert.equal(got.title, 'Leads');
    await assert.rejects(mt.get({ mastra__resourceId: 'someone-else' }), (err) => err.status === 404);
  });

  await t.test('get, listMessages and delete need no resourceId: the thread is found by its id', async () => {
    // As Mastra's own server answers them: the client sends no resource.
    const other = await client.createMemoryThread({ agentId, resourceId: 'user-2', title: 'Scratch' });
    await agent.generate('Hello there', { memory: { thread: other.id, resource: 'user-2' } });
    const mt = client.getMemoryThread({ threadId: other.id, agentId });
    const got = await mt.get();
    assert.equal(got.id, other.id);
    assert.equal(got.resourceId, 'user-2');
    const page = await mt.listMessages();
    assert.deepEqual(page.messages.map((m) => m.role), ['user', 'assistant']);
    assert.equal(page.messages[0].content.content, 'Hello there');
    assert.equal((await mt.delete()).result, 'Thread deleted');
    await assert.rejects(mt.get(), (err) => err.status === 404);
  });

  await t.test('a thread a run makes is titled by its first user text', async () => {
    const id = `titled-${Date.now()}`;
    await agent.generate('Which leads from Berlin signed in March?', { memory: { thread: id, resource: resourceId } });
    const got = await client.getMemoryThread({ threadId: id, agentId }).get();
    assert.equal(got.title, 'Which leads from Berlin signed in March?');
    await client.getMemoryThread({ threadId: id, agentId }).delete();
  });

  await t.test('the thread is deleted', async () => {
    const mt = client.getMemoryThread({ threadId: thread.id, agentId });
    const res = await mt.delete({ requestContext: { mastra__resourceId: resourceId } });
    assert.equal(res.result, 'Thread deleted');
    await assert.rejects(mt.get({ mastra__resourceId: resourceId }), (err) => {
      assert.equal(err.status, 404);
      assert.equal(err.body.error, 'Thread not found');
      return true;
    });
  });
});
