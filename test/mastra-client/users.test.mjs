// Drives a `keel serve` in per-user mode with the official Mastra client:
// each client holds one user's token (a JWT), as a browser app would, and
// sees that user's threads only. cmd/keel/mastraclient_test.go starts keel
// serve with KEEL_JWT_SECRET and KEEL_API_TOKEN set and runs this file
// with:
//
//   KEEL_URL            keel's base URL
//   KEEL_ALICE_TOKEN    a token whose sub is alice
//   KEEL_BOB_TOKEN      a token whose sub is bob
//   KEEL_BACKEND_TOKEN  the shared token of a trusted backend
//   KEEL_AGENT          the agent to talk to
//   EXPECTED_TEXT       what the model server answers
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MastraClient } from '@mastra/client-js';

const env = (name) => {
  const v = process.env[name];
  if (!v) throw new Error(`set ${name}: this test drives a running keel serve (see cmd/keel/mastraclient_test.go)`);
  return v;
};
const baseUrl = env('KEEL_URL');
const agentId = env('KEEL_AGENT');
const expectedText = env('EXPECTED_TEXT');
const clientFor = (token) => new MastraClient({ baseUrl, retries: 0, headers: { Authorization: `Bearer ${token}` } });
const alice = clientFor(env('KEEL_ALICE_TOKEN'));
const bob = clientFor(env('KEEL_BOB_TOKEN'));
const backend = clientFor(env('KEEL_BACKEND_TOKEN'));

const rejectsWith = (promise, status, error) =>
  assert.rejects(promise, (err) => {
    assert.equal(err.status, status, `status ${err.status}: ${err.message}`);
    if (error) assert.match(err.body.error, error);
    return true;
  });

test('each user sees their own threads only', async (t) => {
  // No resource is given: the token says whose the thread is.
  const aliceRes = await alice.getAgent(agentId).generate('Alice here: how many leads?', { memory: { thread: 'alice-thread' } });
  assert.equal(aliceRes.text, expectedText);
  const bobRes = await bob.getAgent(agentId).generate('Bob here: what is my plan?', { memory: { thread: 'bob-thread' } });
  assert.equal(bobRes.text, expectedText);

  await t.test("alice's token reads her thread", async () => {
    const mt = alice.getMemoryThread({ threadId: 'alice-thread', agentId });
    const got = await mt.get();
    assert.equal(got.resourceId, 'alice');
    assert.equal(got.title, 'Alice here: how many leads?');
    const page = await mt.listMessages();
    assert.deepEqual(page.messages.map((m) => m.role), ['user', 'assistant']);
  });

  await t.test("alice's token gets 404 for bob's thread, on every route", async () => {
    const mt = alice.getMemoryThread({ threadId: 'bob-thread', agentId });
    await rejectsWith(mt.get(), 404, /^Thread not found$/);
    await rejectsWith(mt.listMessages(), 404, /^Thread not found$/);
    await rejectsWith(mt.update({ title: 'mine now', metadata: {} }), 404, /^Thread not found$/);
    await rejectsWith(mt.delete(), 404, /^Thread not found$/);
    await rejectsWith(alice.getAgent(agentId).generate('let me in', { memory: { thread: 'bob-thread' } }), 404, /^Thread not found$/);
    // Bob's thread is as it was.
    const page = await bob.getMemoryThread({ threadId: 'bob-thread', agentId }).listMessages();
    assert.equal(page.messages.length, 2);
    assert.equal((await bob.getMemoryThread({ threadId: 'bob-thread', agentId }).get()).title, 'Bob here: what is my plan?');
  });

  await t.test('listMemoryThreads lists only her threads', async () => {
    const mine = await alice.listMemoryThreads({ agentId });
    assert.deepEqual(mine.threads.map((th) => th.id), ['alice-thread']);
    assert.ok(mine.threads.every((th) => th.resourceId === 'alice'));
    await rejectsWith(alice.listMemoryThreads({ agentId, resourceId: 'bob' }), 403, /acts for resource alice only/);
  });

  await t.test('naming another resource is 403', async () => {
    await rejectsWith(alice.getAgent(agentId).generate('as bob', { memory: { thread: 'x', resource: 'bob' } }), 403, /names bob/);
    await rejectsWith(alice.createMemoryThread({ agentId, resourceId: 'bob', title: 'planted' }), 403, /names bob/);
  });

  await t.test('a trusted backend finds any thread by its id', async () => {
    const got = await backend.getMemoryThread({ threadId: 'bob-thread', agentId }).get();
    assert.equal(got.resourceId, 'bob');
  });

  await t.test('a bad token is 401 {error}', async () => {
    const forged = clientFor(env('KEEL_ALICE_TOKEN').slice(0, -4) + 'AAAA');
    await rejectsWith(forged.listMemoryThreads({ agentId }), 401, /invalid token/);
    const none = new MastraClient({ baseUrl, retries: 0 });
    await rejectsWith(none.listAgents(), 401, /missing token/);
  });
});
