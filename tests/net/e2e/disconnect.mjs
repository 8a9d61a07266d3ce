// A client that goes away mid-stream cancels its request: after an SSE client destroys its
// socket, or a WebSocket client closes, the request stops generating, and the server soon
// reports nothing running and an empty KV pool (every block back).

import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before } from 'node:test';

import {
  binary_from_args,
  fetch_metrics,
  metric_sum,
  served_model_name,
  server_test,
  start_server,
  wait_until_idle,
  with_deadline,
} from './lib/harness.mjs';
import { open_socket, request_message, ws_collector } from './lib/ws_messages.mjs';

const binary = binary_from_args();
const max_tokens = 3000;
let server;

before(async () => {
  server = await start_server(binary, ['--max-num-seqs', '8', '--max-model-len', '4096']);
});

after(async () => {
  await server?.stop();
});

const it = (name, fn) => server_test(name, () => [server], fn);

async function generation_tokens() {
  return metric_sum((await fetch_metrics(server.port)).series, 'pagedserve:generation_tokens_total');
}

// Starts a long SSE completion, resolves with the request and response once `num_events`
// data events have arrived.
function start_stream(num_events) {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify({ model: served_model_name, prompt: 'go on forever', max_tokens, ignore_eos: true, stream: true });
    const req = http.request(
      { host: '127.0.0.1', port: server.port, method: 'POST', path: '/v1/completions', agent: false, headers: { 'content-type': 'application/json' } },
      (res) => {
        if (res.statusCode !== 200) reject(new Error(`status ${res.statusCode}`));
        let seen = 0;
        res.on('data', (chunk) => {
          seen += (chunk.toString().match(/^data: /gm) ?? []).length;
          if (seen >= num_events) resolve({ req, res });
        });
        res.on('error', () => {});
      },
    );
    req.on('error', () => {});
    req.end(body);
  });
}

it('an SSE client that disconnects mid-stream frees its request and blocks', async () => {
  const before_tokens = await generation_tokens();
  const { req, res } = await with_deadline(start_stream(3), 30000, 'three SSE events');
  const running = metric_sum((await fetch_metrics(server.port)).series, 'pagedserve:num_requests_running');
  assert.equal(running, 1, 'the stream is running before the disconnect');
  res.destroy();
  req.destroy();
  const series = await wait_until_idle(server.port, 15000);
  const generated = metric_sum(series, 'pagedserve:generation_tokens_total') - before_tokens;
  assert.ok(generated < max_tokens, `generation went on to ${generated} tokens after the disconnect`);
});

it('a WebSocket client that closes mid-stream frees its request and blocks', async () => {
  const before_tokens = await generation_tokens();
  const ws = await open_socket(server.port);
  const c = new ws_collector(ws);
  ws.send(request_message('w', 'completion', { model: served_model_name, prompt: 'go on forever', max_tokens, ignore_eos: true }));
  await c.wait_for('three deltas', () => c.messages('w').filter((m) => m.type === 'delta').length >= 3);
  ws.close();
  const series = await wait_until_idle(server.port, 15000);
  const generated = metric_sum(series, 'pagedserve:generation_tokens_total') - before_tokens;
  assert.ok(generated < max_tokens, `generation went on to ${generated} tokens after the close`);
});

it('a WebSocket client that drops the TCP connection (no close frame) frees its request', async () => {
  const before_tokens = await generation_tokens();
  const ws = await open_socket(server.port);
  const c = new ws_collector(ws);
  ws.send(request_message('t', 'completion', { model: served_model_name, prompt: 'go on forever', max_tokens, ignore_eos: true }));
  await c.wait_for('three deltas', () => c.messages('t').filter((m) => m.type === 'delta').length >= 3);
  ws.terminate();
  const series = await wait_until_idle(server.port, 15000);
  const generated = metric_sum(series, 'pagedserve:generation_tokens_total') - before_tokens;
  assert.ok(generated < max_tokens, `generation went on to ${generated} tokens after the drop`);
});
