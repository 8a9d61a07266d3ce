// The WebSocket protocol at /v1/stream (docs/websocket.md) through the npm `ws` client:
// deltas then done with usage, two requests interleaved on one socket, cancel, errors for bad
// requests, lifecycle messages for a request that asks, and a slow reader that overruns
// --ws-max-send-queue-bytes without hurting the server.

import assert from 'node:assert/strict';
import { after, before } from 'node:test';

import {
  binary_from_args,
  chat_prompt_tokens,
  completion_prompt_tokens,
  fetch_metrics,
  http_request,
  metric_sum,
  poll_until,
  served_model_name,
  server_test,
  start_server,
  wait_until_idle,
} from './lib/harness.mjs';
import { cancel_message, open_socket, request_message, ws_collector } from './lib/ws_messages.mjs';

const binary = binary_from_args();
let server; // default send queue
let tight; // --ws-max-send-queue-bytes 4096

before(async () => {
  const common = ['--max-num-seqs', '64', '--max-model-len', '2048'];
  [server, tight] = await Promise.all([
    start_server(binary, common),
    start_server(binary, [...common, '--ws-max-send-queue-bytes', '4096']),
  ]);
});

after(async () => {
  await Promise.all([server?.stop(), tight?.stop()]);
});

const it = (name, fn) => server_test(name, () => [server, tight], fn);

it('a completion streams deltas, then done with usage', async () => {
  const ws = await open_socket(server.port);
  try {
    const c = new ws_collector(ws);
    const prompt = 'web socket';
    ws.send(request_message('r1', 'completion', { model: served_model_name, prompt, max_tokens: 10 }));
    const done = await c.wait_final('r1');
    assert.equal(done.type, 'done', JSON.stringify(done.raw));
    const msgs = c.messages('r1');
    assert.equal(msgs.at(-1), done, 'done is the last message of the request');
    assert.ok(msgs.slice(0, -1).every((m) => m.type === 'delta'), 'only deltas before done');
    assert.ok(['length', 'stop'].includes(done.finish_reason), done.finish_reason);
    assert.equal(done.usage.prompt_tokens, completion_prompt_tokens(prompt));
    assert.equal(done.usage.total_tokens, done.usage.prompt_tokens + done.usage.completion_tokens);
    if (done.finish_reason === 'length') assert.equal(done.usage.completion_tokens, 10);
  } finally {
    ws.close();
  }
});

it('a chat request on the socket uses the chat template', async () => {
  const ws = await open_socket(server.port);
  try {
    const c = new ws_collector(ws);
    const messages = [{ role: 'user', content: 'hello over ws' }];
    ws.send(request_message('chat-1', 'chat', { model: served_model_name, messages, max_tokens: 6 }));
    const done = await c.wait_final('chat-1');
    assert.equal(done.type, 'done', JSON.stringify(done.raw));
    assert.equal(done.usage.prompt_tokens, chat_prompt_tokens(messages));
  } finally {
    ws.close();
  }
});

it('two concurrent requests on one socket interleave and both complete', async () => {
  const ws = await open_socket(server.port);
  try {
    const c = new ws_collector(ws);
    const fields = { model: served_model_name, prompt: 'interleave', max_tokens: 48, ignore_eos: true };
    ws.send(request_message('a', 'completion', fields));
    ws.send(request_message('b', 'completion', fields));
    const [a, b] = await Promise.all([c.wait_final('a'), c.wait_final('b')]);
    for (const done of [a, b]) {
      assert.equal(done.type, 'done', JSON.stringify(done.raw));
      assert.equal(done.usage.completion_tokens, 48);
    }
    // Interleaved: some message of b arrived before a's last message.
    const order = c.order;
    assert.ok(order.indexOf('b') < order.lastIndexOf('a'), `not interleaved: ${order.join('')}`);
  } finally {
    ws.close();
  }
});

it('"lifecycle": true adds lifecycle messages around the deltas; a repeat finds its prompt cached', async () => {
  const ws = await open_socket(server.port);
  try {
    const c = new ws_collector(ws);
    const prompt = 'lifecycle over a web socket, one stage at a time';
    const fields = { model: served_model_name, prompt, max_tokens: 6, ignore_eos: true, lifecycle: true };
    // One after the other: the second finds the first's prompt blocks in the prefix cache.
    for (const id of ['life-1', 'life-2']) {
      ws.send(request_message(id, 'completion', fields));
      assert.equal((await c.wait_final(id)).type, 'done');
    }
    const kinds = (id) => c.messages(id).map((m) => (m.type === 'lifecycle' ? m.raw.stage : m.type));
    for (const id of ['life-1', 'life-2']) {
      const k = kinds(id);
      assert.deepEqual(k.slice(0, 2), ['queued', 'scheduled'], k.join(' '));
      assert.deepEqual(k.slice(-2), ['finished', 'done'], k.join(' '));
      assert.ok(k.slice(2, -2).every((t) => t === 'delta'), k.join(' '));
      for (const m of c.messages(id).filter((m) => m.type === 'lifecycle')) {
        assert.equal(m.raw.index, 0);
        assert.equal(typeof m.raw.step, 'number');
        assert.equal(typeof m.raw.time, 'number');
      }
    }
    const cached = (id) => c.messages(id).find((m) => m.raw.stage === 'scheduled').raw.cached_tokens;
    // Whole 16-token blocks, never the prompt's last token (kv_cache_manager.cpp,
    // get_computed_blocks): floor((prompt_tokens - 1) / 16) * 16.
    const prompt_tokens = completion_prompt_tokens(prompt);
    assert.equal(cached('life-2'), Math.floor((prompt_tokens - 1) / 16) * 16);
    ws.send(request_message('life-3', 'completion', { ...fields, lifecycle: false }));
    await c.wait_final('life-3');
    assert.ok(c.messages('life-3').every((m) => m.type !== 'lifecycle'), 'not asked for');
  } finally {
    ws.close();
  }
});

it('cancel ends a request with finish_reason "abort" and frees its blocks', async () => {
  const ws = await open_socket(server.port);
  try {
    const c = new ws_collector(ws);
    ws.send(request_message('long', 'completion', { model: served_model_name, prompt: 'long', max_tokens: 1500, ignore_eos: true }));
    await c.wait_for('first delta', () => c.messages('long').some((m) => m.type === 'delta'));
    ws.send(cancel_message('long'));
    const done = await c.wait_final('long');
    assert.equal(done.type, 'done', JSON.stringify(done.raw));
    assert.equal(done.finish_reason, 'abort');
    assert.ok(done.usage.completion_tokens < 1500);
    await wait_until_idle(server.port);
  } finally {
    ws.close();
  }
});

it('a bad request gets an error message with its id; the socket stays usable', async () => {
  const ws = await open_socket(server.port);
  try {
    const c = new ws_collector(ws);
    ws.send(request_message('bad', 'completion', { model: served_model_name, prompt: 'x', max_tokens: -5 }));
    const err = await c.wait_final('bad');
    assert.equal(err.type, 'error', JSON.stringify(err.raw));
    assert.equal(typeof err.error.message, 'string');
    assert.equal(err.error.type, 'invalid_request_error');
    ws.send('{not json');
    const parse_error = await c.wait_for('an error for the unparsable message', () => c.unrouted.find((m) => m.type === 'error'));
    assert.equal(typeof parse_error.error.message, 'string');
    ws.send(request_message('good', 'completion', { model: served_model_name, prompt: 'x', max_tokens: 2 }));
    assert.equal((await c.wait_final('good')).type, 'done');
  } finally {
    ws.close();
  }
});

it('a slow reader past the send queue limit gets "backpressure" (or is closed); the server stays healthy', async () => {
  const ws = await open_socket(tight.port);
  const c = new ws_collector(ws);
  try {
    const aborted = (series) => metric_sum(series, 'pagedserve:request_success_total', (l) => l.includes('finished_reason="abort"')) ?? 0;
    const aborted_before = aborted((await fetch_metrics(tight.port)).series);
    ws._socket.pause(); // stop reading: the kernel buffers fill, then the server's queue
    // Big messages (16 choices with 20 logprobs each): the kernel's socket buffers (up to
    // 4 MiB on loopback) fill in a second and then the server's own queue passes 4096 bytes.
    const fields = { model: served_model_name, prompt: 'flood', max_tokens: 1500, ignore_eos: true, n: 16, logprobs: 20 };
    for (const id of ['f1', 'f2', 'f3', 'f4']) ws.send(request_message(id, 'completion', fields));
    // The server must give up on this socket's requests while we are not reading; the pool is
    // refilled without our help. Waiting for the four aborts (not just running == 0, which
    // also holds before the requests are admitted: seen under ASan on a loaded machine).
    await poll_until(
      'the flooded requests to be dropped by the server',
      async () => {
        const series = (await fetch_metrics(tight.port)).series;
        return aborted(series) >= aborted_before + 4 && metric_sum(series, 'pagedserve:num_requests_running') === 0;
      },
      { timeout_ms: 60000, interval_ms: 100 },
    );
    ws._socket.resume();
    await c.wait_for(
      'a backpressure error or the server closing the socket',
      () => c.closed || [...c.by_id.values(), c.unrouted].flat().find((m) => m.type === 'error' && m.error?.type === 'backpressure'),
      30000,
    );
    const bp = [...c.by_id.values(), c.unrouted].flat().find((m) => m.error?.type === 'backpressure');
    console.log(`# slow reader: ${bp ? `backpressure error: ${bp.error.message}` : `closed by the server ${JSON.stringify(c.closed)}`}`);
    if (!c.closed) {
      // The four errors may arrive in separate reads: the first one ended the wait above.
      const ids = ['f1', 'f2', 'f3', 'f4'];
      await c.wait_for('a final message for every flooded request', () => c.closed || ids.every((id) => c.final(id)), 30000);
      for (const id of c.closed ? [] : ids) {
        const final = c.final(id);
        if (final.type === 'done') assert.ok(final.usage.completion_tokens < 1500 * 16);
        else assert.equal(final.error?.type, 'backpressure', JSON.stringify(final.raw));
      }
    }
    const health = await http_request(tight.port, 'GET', '/health');
    assert.equal(health.status, 200);
    await wait_until_idle(tight.port);
  } finally {
    ws.terminate();
  }
});

it('a reader that keeps up streams under the same tight send queue without backpressure', async () => {
  const ws = await open_socket(tight.port);
  try {
    const c = new ws_collector(ws);
    ws.send(request_message('steady', 'completion', { model: served_model_name, prompt: 'steady', max_tokens: 200, ignore_eos: true }));
    const done = await c.wait_final('steady');
    assert.equal(done.type, 'done', JSON.stringify(done.raw));
    assert.equal(done.usage.completion_tokens, 200);
  } finally {
    ws.close();
  }
});
