// Data parallel replicas (docs/scaling.md) across processes on loopback: three
// `pagedserve engine` processes behind one `pagedserve serve --replicas HOST:PORT,...` front.
// The reference is a single-engine `pagedserve serve`: 200 streamed requests through the
// front give exactly its text for the same seeds. One engine killed with SIGKILL mid-stream:
// its streams end with an error event within a second, the others complete, new requests
// succeed, /health says degraded, the survivors' KV usage returns to zero; restarted on the
// same port it rejoins and gets traffic. A stranger's CAF node without the secret cannot
// submit, a front with the wrong engine_secret is refused, garbage written to a published
// port does not take the engine down, and the front shuts down cleanly.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import { dirname, join } from 'node:path';
import { after, before } from 'node:test';

import {
  binary_from_args,
  fetch_metrics,
  http_request,
  metric_sum,
  poll_until,
  post_json,
  served_model_name,
  server_process,
  server_test,
  start_server,
} from './lib/harness.mjs';

const binary = binary_from_args();
const secret = randomBytes(16).toString('hex');
const env = { PAGEDSERVE_ENGINE_SECRET: secret };
const engines = [];
let front;
let single;

const address = (engine) => `127.0.0.1:${engine.port}`;
const replica_metric = (series, name, engine) =>
  metric_sum(series, `pagedserve:${name}`, (l) => l.includes(`replica="${address(engine)}"`));

async function start_engine(port = 0) {
  return new server_process(binary, [], { env, port, command: 'engine' }).start();
}

before(async () => {
  engines.push(...(await Promise.all([start_engine(), start_engine(), start_engine()])));
  [single, front] = await Promise.all([
    start_server(binary),
    start_server(binary, ['--replicas', engines.map(address).join(','), '--routing', 'least_load'], { env }),
  ]);
  await wait_replicas_up(3);
});

after(async () => {
  await Promise.all([front?.stop(), single?.stop(), ...engines.map((e) => e.stop())]);
});

const it = (name, fn) => server_test(name, () => [front, single, ...engines], fn, { timeout: 240000 });

async function wait_replicas_up(n) {
  await poll_until(
    `${n} replicas up`,
    async () => metric_sum((await fetch_metrics(front.port)).series, 'pagedserve:replica_up') === n,
    { timeout_ms: 60000, interval_ms: 100 },
  );
}

// One streamed completion: its text, finish reason, error (if an error event came) and when
// the stream ended; `on_token` runs at the first token event.
function stream_completion(port, body, on_token = () => {}) {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, method: 'POST', path: '/v1/completions', headers: { 'content-type': 'application/json' } },
      (res) => {
        const out = { status: res.statusCode, text: '', finish_reason: null, error: null, ended_at: 0, tokens: 0 };
        let buffer = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => {
          buffer += chunk;
          let cut;
          while ((cut = buffer.indexOf('\n\n')) >= 0) {
            const event = buffer.slice(0, cut).replace(/^data: /, '');
            buffer = buffer.slice(cut + 2);
            if (event === '[DONE]') continue;
            const data = JSON.parse(event);
            if (data.error) {
              out.error = data.error;
              continue;
            }
            const choice = data.choices[0];
            out.text += choice.text;
            if (!choice.finish_reason && out.tokens++ === 0) on_token(); // text may be empty (a split UTF-8 byte)
            if (choice.finish_reason) out.finish_reason = choice.finish_reason;
          }
        });
        res.on('end', () => {
          out.ended_at = Date.now();
          resolve(out);
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify({ model: served_model_name, stream: true, ...body }));
  });
}

// Runs fn(i) for i in [0, n), `width` at a time; the results in order.
async function pool(n, width, fn) {
  const out = new Array(n);
  let next = 0;
  const worker = async () => {
    while (next < n) {
      const i = next++;
      out[i] = await fn(i);
    }
  };
  await Promise.all(Array.from({ length: width }, worker));
  return out;
}

it('200 streamed requests through the front give one engine\'s text for the same seeds', async () => {
  const body = (i) => ({ prompt: `replica check ${i}`, max_tokens: 8, temperature: 0.8, seed: 1000 + i });
  const routed = await pool(200, 16, (i) => stream_completion(front.port, body(i)));
  const alone = await pool(200, 16, (i) => stream_completion(single.port, body(i)));
  for (let i = 0; i < 200; ++i) {
    assert.equal(routed[i].error, null, `request ${i}: ${JSON.stringify(routed[i].error)}`);
    assert.equal(routed[i].text, alone[i].text, `request ${i}`);
    assert.equal(routed[i].finish_reason, alone[i].finish_reason, `request ${i}`);
  }
  const series = (await fetch_metrics(front.port)).series;
  for (const engine of engines) assert.ok(replica_metric(series, 'replica_routed_requests_total', engine) > 0, address(engine));
  assert.equal(metric_sum(series, 'pagedserve:replica_routed_requests_total'), 200);
});

it('SIGKILL of one engine mid-stream: its streams end with an error within 1 s, the rest complete, it rejoins after a restart', async () => {
  const victim = engines[1];
  const routed_before = replica_metric((await fetch_metrics(front.port)).series, 'replica_routed_requests_total', victim);
  let started = 0;
  let all_started;
  const streaming = new Promise((resolve) => (all_started = resolve));
  const body = (i) => ({ prompt: `long stream ${i}`, max_tokens: 300, ignore_eos: true, temperature: 0 });
  const streams = Array.from({ length: 9 }, (_, i) =>
    stream_completion(front.port, body(i), () => {
      if (++started === 9) all_started();
    }),
  );
  await streaming;
  const on_victim = replica_metric((await fetch_metrics(front.port)).series, 'replica_routed_requests_total', victim) - routed_before;
  assert.ok(on_victim > 0, 'least_load spreads 9 streams over 3 replicas');
  const killed_at = Date.now();
  victim.proc.kill('SIGKILL');
  const results = await Promise.all(streams);
  const failed = results.filter((r) => r.error);
  assert.equal(failed.length, on_victim, JSON.stringify(results.map((r) => r.error)));
  console.log(`# ${failed.length} streams on the killed engine ended ${failed.map((r) => r.ended_at - killed_at).join(', ')} ms after the kill`);
  // Within a second (three under the sanitizers' slowdown: scripts/test.sh sets ASAN_OPTIONS).
  const bound_ms = process.env.ASAN_OPTIONS ? 3000 : 1000;
  for (const r of failed) {
    assert.match(r.error.message, new RegExp(`${address(victim)} went away`));
    assert.ok(r.ended_at - killed_at < bound_ms, `an error stream ended ${r.ended_at - killed_at} ms after the kill`);
  }
  for (const r of results.filter((x) => !x.error)) assert.equal(r.finish_reason, 'length');

  const health = await http_request(front.port, 'GET', '/health');
  assert.equal(health.status, 200);
  assert.deepEqual(health.json, { status: 'degraded', replicas_up: 2, replicas: 3 });
  for (let i = 0; i < 4; ++i) {
    const res = await post_json(front.port, '/v1/completions', { model: served_model_name, prompt: `after ${i}`, max_tokens: 4 });
    assert.equal(res.status, 200, res.text);
  }
  await poll_until(
    'the survivors to be idle with every KV block back',
    async () => {
      const series = (await fetch_metrics(front.port)).series;
      return (
        metric_sum(series, 'pagedserve:num_requests_running') === 0 &&
        engines.filter((e) => e !== victim).every((e) => replica_metric(series, 'replica_kv_cache_usage_perc', e) === 0)
      );
    },
    { timeout_ms: 30000, interval_ms: 100 },
  );

  // Restarted on the same port: the front's connector finds it (backoff at most 5 s).
  engines[1] = await start_engine(victim.port);
  await wait_replicas_up(3);
  assert.deepEqual((await http_request(front.port, 'GET', '/health')).json, {});
  const before_rejoin = replica_metric((await fetch_metrics(front.port)).series, 'replica_routed_requests_total', engines[1]);
  await pool(9, 9, (i) => stream_completion(front.port, { prompt: `rejoined ${i}`, max_tokens: 16, ignore_eos: true }));
  const after_rejoin = replica_metric((await fetch_metrics(front.port)).series, 'replica_routed_requests_total', engines[1]);
  assert.ok(after_rejoin > before_rejoin, `no traffic reached the restarted engine (${before_rejoin} -> ${after_rejoin})`);
});

it('a client that disconnects mid-stream frees its request on the replica that holds it', async () => {
  const aborted = (series) => metric_sum(series, 'pagedserve:request_success_total', (l) => l.includes('finished_reason="abort"')) ?? 0;
  const before_abort = aborted((await fetch_metrics(front.port)).series);
  await new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port: front.port, method: 'POST', path: '/v1/completions', headers: { 'content-type': 'application/json' } },
      (res) => {
        res.once('data', () => {
          req.destroy(); // the first event came: hang up
          resolve();
        });
      },
    );
    req.on('error', (err) => (err.code === 'ECONNRESET' ? resolve() : reject(err)));
    req.end(JSON.stringify({ model: served_model_name, prompt: 'hang up', max_tokens: 1500, ignore_eos: true, stream: true }));
  });
  await poll_until(
    'the replica to abort the request and free its blocks',
    async () => {
      const series = (await fetch_metrics(front.port)).series;
      return (
        aborted(series) === before_abort + 1 &&
        metric_sum(series, 'pagedserve:num_requests_running') === 0 &&
        metric_sum(series, 'pagedserve:kv_cache_usage_perc') === 0
      );
    },
    { timeout_ms: 30000, interval_ms: 100 },
  );
});

// A CAF node of its own (tests/actors/gate_client.cpp) against an engine the front has
// joined: without the secret it can neither submit nor join; with it, it can (so the tool
// would notice a gate that let the first stranger through).
it('a stranger\'s node without the secret cannot submit; with it, it can', async () => {
  const client = join(dirname(binary), 'pagedserve-test-gate-client');
  const run = (secret) =>
    new Promise((resolve, reject) => {
      execFile(client, ['--port', String(engines[2].port), '--secret', secret], { timeout: 60000 }, (err, stdout, stderr) =>
        err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout.trim().split('\n')),
      );
    });
  const stranger = await run('not-the-secret');
  assert.match(stranger[0], /^submit-before-join: refused: not admitted/);
  assert.match(stranger[1], /^join: refused: wrong secret/);
  assert.equal(stranger.length, 2, stranger.join('\n'));
  const member = await run(secret);
  assert.match(member[0], /^submit-before-join: refused: not admitted/);
  assert.equal(member[1], 'join: ok');
  assert.equal(member[2], 'submit-after-join: accepted');
});

it('a front with the wrong engine_secret is refused at start-up', async () => {
  const stranger = new server_process(binary, ['--replicas', address(engines[0])], {
    env: { PAGEDSERVE_ENGINE_SECRET: 'not-the-secret' },
  });
  await assert.rejects(stranger.start(), /refused this server: wrong secret/);
  assert.match(engines[0].log, /wrong secret; refused/);
});

it('SIGTERM on the front drains it and it exits 0; the published engines keep serving', async () => {
  const second = await start_server(binary, ['--replicas', engines.map(address).join(',')], { env });
  const res = await post_json(second.port, '/v1/completions', { model: served_model_name, prompt: 'one', max_tokens: 4 });
  assert.equal(res.status, 200, res.text);
  const started = Date.now();
  const exit = await second.stop();
  assert.deepEqual(exit, { code: 0, signal: null }, second.log_tail());
  assert.ok(Date.now() - started < 10000, `the front took ${Date.now() - started} ms to exit`);
  for (const engine of engines) assert.equal(engine.exit, null);
  assert.equal((await http_request(front.port, 'GET', '/health')).status, 200);
});

it('garbage on a published port does not take the engine down', async () => {
  const target = engines[0];
  const payloads = [randomBytes(4096), Buffer.alloc(64, 0xff), Buffer.from('GET / HTTP/1.1\r\nHost: x\r\n\r\n')];
  for (const payload of payloads) {
    await new Promise((resolve) => {
      const socket = net.connect(target.port, '127.0.0.1', () => socket.end(payload));
      socket.on('error', resolve);
      socket.on('close', resolve);
      socket.setTimeout(3000, () => socket.destroy());
    });
  }
  assert.equal(target.exit, null, `the engine exited: ${JSON.stringify(target.exit)}`);
  // Still serving: requests through the front reach it.
  const before_count = replica_metric((await fetch_metrics(front.port)).series, 'replica_routed_requests_total', target);
  await pool(9, 9, (i) => stream_completion(front.port, { prompt: `after garbage ${i}`, max_tokens: 16, ignore_eos: true }));
  const series = (await fetch_metrics(front.port)).series;
  assert.ok(replica_metric(series, 'replica_routed_requests_total', target) > before_count);
  assert.equal(replica_metric(series, 'replica_up', target), 1);
});
