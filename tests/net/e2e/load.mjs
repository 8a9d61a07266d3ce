// 500 concurrent streaming (SSE) completions on the demo model: every one completes with the
// right number of tokens and no error. Prints wall time, the server's memory (idle RSS, peak
// RSS, peak minus idle per connection) and client-side time to first token (p50/p99).
// Figures are printed, never asserted. Skips (exit 77) when `ulimit -n` is below 2048.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import http from 'node:http';
import { after, before } from 'node:test';

import {
  binary_from_args,
  completion_prompt_tokens,
  fetch_metrics,
  metric_sum,
  percentile,
  served_model_name,
  server_test,
  start_server,
  wait_until_idle,
  with_deadline,
} from './lib/harness.mjs';

const num_connections = 500;
const max_tokens = 8;

const nofile = Number(spawnSync('sh', ['-c', 'ulimit -n']).stdout.toString().trim());
if (!(nofile >= 2048)) {
  console.log(`SKIP: ulimit -n is ${nofile}; the load test needs 2048 descriptors (ulimit -n 4096)`);
  process.exit(77);
}

const binary = binary_from_args();
let server;

before(async () => {
  server = await start_server(binary, [
    '--max-num-seqs', '256',
    '--max-waiting-requests', '1000',
    '--max-connections', '1000',
    '--max-model-len', '128',
  ]);
});

after(async () => {
  await server?.stop();
});

const it = (name, fn) => server_test(name, () => [server], fn, { timeout: 120000 });

// One streamed completion; resolves with {ttft_ms, usage, finish_reason, events}.
function stream_one(agent, i) {
  return new Promise((resolve, reject) => {
    const prompt = `load test connection ${i}`;
    const body = JSON.stringify({
      model: served_model_name,
      prompt,
      max_tokens,
      ignore_eos: true,
      stream: true,
      stream_options: { include_usage: true },
    });
    const started = performance.now();
    const req = http.request(
      { host: '127.0.0.1', port: server.port, method: 'POST', path: '/v1/completions', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
      (res) => {
        if (res.statusCode !== 200) {
          res.resume();
          reject(new Error(`connection ${i}: status ${res.statusCode}`));
          return;
        }
        let text = '';
        let ttft_ms;
        res.setEncoding('utf8');
        res.on('data', (chunk) => {
          ttft_ms ??= performance.now() - started;
          text += chunk;
        });
        res.on('error', reject);
        res.on('end', () => {
          try {
            const lines = text.split('\n').filter((l) => l !== '');
            assert.equal(lines.at(-1), 'data: [DONE]', `connection ${i}: no [DONE]`);
            const events = lines.slice(0, -1).map((l) => JSON.parse(l.slice('data: '.length)));
            const usage = events.at(-1).usage;
            const finish = events.flatMap((e) => e.choices).find((c) => c.finish_reason);
            assert.equal(usage.prompt_tokens, completion_prompt_tokens(prompt), `connection ${i}: prompt_tokens`);
            resolve({ ttft_ms, usage, finish_reason: finish?.finish_reason, events: events.length });
          } catch (err) {
            reject(err);
          }
        });
      },
    );
    req.on('error', (err) => reject(new Error(`connection ${i}: ${err.message}`)));
    req.end(body);
  });
}

it(`${num_connections} concurrent streaming completions all complete`, async () => {
  await wait_until_idle(server.port);
  const idle = server.memory_kib();
  const before_series = (await fetch_metrics(server.port)).series;
  let peak_rss = idle.rss;
  const sampler = setInterval(() => {
    try {
      peak_rss = Math.max(peak_rss, server.memory_kib().rss);
    } catch {
      // the server exited: the requests fail and say so
    }
  }, 10);
  const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
  const started = performance.now();
  let results;
  try {
    results = await with_deadline(
      Promise.all(Array.from({ length: num_connections }, (_, i) => stream_one(agent, i))),
      90000,
      `${num_connections} streams`,
    );
  } finally {
    clearInterval(sampler);
    agent.destroy();
  }
  const wall_s = (performance.now() - started) / 1000;
  const hwm = server.memory_kib().hwm;

  for (const [i, r] of results.entries()) {
    assert.equal(r.finish_reason, 'length', `connection ${i}: finish_reason ${r.finish_reason}`);
    assert.equal(r.usage.completion_tokens, max_tokens, `connection ${i}: completion_tokens`);
  }
  const after_series = await wait_until_idle(server.port, 30000);
  const delta = (name) => metric_sum(after_series, name) - metric_sum(before_series, name);
  const prompt_tokens = results.reduce((s, r) => s + r.usage.prompt_tokens, 0);
  assert.equal(delta('pagedserve:prompt_tokens_total'), prompt_tokens);
  assert.equal(delta('pagedserve:generation_tokens_total'), num_connections * max_tokens);

  const ttft = results.map((r) => r.ttft_ms);
  const peak = Math.max(peak_rss, hwm);
  const rows = [
    ['connections', `${num_connections} (max_tokens ${max_tokens}, max_num_seqs 256)`],
    ['wall time', `${wall_s.toFixed(2)} s`],
    ['tokens/s (generated)', `${((num_connections * max_tokens) / wall_s).toFixed(0)}`],
    ['server RSS idle', `${(idle.rss / 1024).toFixed(1)} MiB`],
    ['server RSS peak (sampled / VmHWM)', `${(peak_rss / 1024).toFixed(1)} / ${(hwm / 1024).toFixed(1)} MiB`],
    ['memory per connection', `${((peak - idle.rss) / num_connections).toFixed(1)} KiB`],
    ['TTFT p50 (client)', `${percentile(ttft, 50).toFixed(1)} ms`],
    ['TTFT p99 (client)', `${percentile(ttft, 99).toFixed(1)} ms`],
    ['TTFT max (client)', `${Math.max(...ttft).toFixed(1)} ms`],
  ];
  const width = Math.max(...rows.map(([k]) => k.length));
  console.log(`\n| ${'figure'.padEnd(width)} | value |\n|${'-'.repeat(width + 2)}|-------|`);
  for (const [k, v] of rows) console.log(`| ${k.padEnd(width)} | ${v} |`);
});
