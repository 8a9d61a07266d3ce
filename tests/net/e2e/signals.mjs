// Graceful shutdown: SIGTERM or SIGINT with a stream in flight. A short stream drains to its
// end and the server exits 0; a stream longer than --shutdown-timeout-s is cut at the
// deadline (finish_reason "abort" or a closed stream) and the server still exits 0, in time.

import assert from 'node:assert/strict';
import http from 'node:http';
import { test } from 'node:test';

import { binary_from_args, served_model_name, start_server, with_deadline } from './lib/harness.mjs';

const binary = binary_from_args();

// Starts a streamed completion; `first` resolves at the first SSE event, `done` with the
// whole body once the server ends the response (or the connection).
function stream(server, max_tokens) {
  let resolve_first;
  const first = new Promise((r) => (resolve_first = r));
  const done = new Promise((resolve, reject) => {
    const body = JSON.stringify({ model: served_model_name, prompt: 'shutdown', max_tokens, ignore_eos: true, stream: true });
    const req = http.request(
      { host: '127.0.0.1', port: server.port, method: 'POST', path: '/v1/completions', agent: false, headers: { 'content-type': 'application/json' } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c) => {
          text += c;
          if (text.includes('data: ')) resolve_first();
        });
        res.on('end', () => resolve({ text, complete: true }));
        res.on('aborted', () => resolve({ text, complete: false }));
        res.on('error', () => resolve({ text, complete: false }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
  return { first, done };
}

function finish_reason(text) {
  const events = text
    .split('\n')
    .filter((l) => l.startsWith('data: {'))
    .map((l) => JSON.parse(l.slice(6)));
  return events.flatMap((e) => e.choices ?? []).find((c) => c.finish_reason)?.finish_reason;
}

async function case_with(signal, { max_tokens, shutdown_timeout_s, expect_drained }) {
  const server = await start_server(binary, ['--max-model-len', '4096', '--shutdown-timeout-s', String(shutdown_timeout_s)]);
  try {
    const s = stream(server, max_tokens);
    await with_deadline(s.first, 30000, 'the first event');
    const signalled = Date.now();
    server.proc.kill(signal);
    const exit = await with_deadline(server.exited, (shutdown_timeout_s + 10) * 1000, `exit after ${signal}`);
    const took_s = (Date.now() - signalled) / 1000;
    const { text, complete } = await with_deadline(s.done, 5000, 'the stream to end');
    assert.deepEqual(exit, { code: 0, signal: null }, `exit after ${signal}`);
    assert.ok(took_s <= shutdown_timeout_s + 5, `took ${took_s} s to exit`);
    if (expect_drained) {
      assert.ok(complete, 'the in-flight stream was cut');
      assert.match(text, /data: \[DONE\]\n\n$/);
      assert.equal(finish_reason(text), 'length');
    } else {
      const reason = finish_reason(text);
      assert.ok(!complete || reason === 'abort', `a long stream ended with ${reason} at the deadline`);
    }
  } catch (err) {
    err.message += `\n--- server log ---\n${server.log_tail()}`;
    throw err;
  } finally {
    await server.stop();
  }
}

test('SIGTERM drains a short in-flight stream, then exits 0', { timeout: 60000 }, () =>
  case_with('SIGTERM', { max_tokens: 64, shutdown_timeout_s: 20, expect_drained: true }));

test('SIGINT drains a short in-flight stream, then exits 0', { timeout: 60000 }, () =>
  case_with('SIGINT', { max_tokens: 64, shutdown_timeout_s: 20, expect_drained: true }));

test('SIGTERM cuts a stream longer than the shutdown timeout and still exits 0 in time', { timeout: 60000 }, () =>
  case_with('SIGTERM', { max_tokens: 4000, shutdown_timeout_s: 1, expect_drained: false }));
