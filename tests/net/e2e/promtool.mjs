// /metrics after real traffic: `promtool check metrics` accepts it, every required family is
// there (histograms with _bucket/_sum/_count), and counters move by exactly what a known
// request did. Skips (exit 77) when promtool is not installed (Debian package prometheus).

import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { after, before } from 'node:test';

import {
  binary_from_args,
  completion_prompt_tokens,
  fetch_metrics,
  metric_sum,
  poll_until,
  post_json,
  served_model_name,
  server_test,
  start_server,
  wait_until_idle,
} from './lib/harness.mjs';

if (spawnSync('promtool', ['--version']).error) {
  console.log('SKIP: promtool not found (apt-get install prometheus)');
  process.exit(77);
}

const binary = binary_from_args();
let server;

before(async () => {
  server = await start_server(binary, ['--max-num-seqs', '8', '--max-model-len', '512', '--block-size', '16']);
});

after(async () => {
  await server?.stop();
});

const it = (name, fn) => server_test(name, () => [server], fn);

const gauges = ['pagedserve:num_requests_running', 'pagedserve:num_requests_waiting', 'pagedserve:kv_cache_usage_perc'];
const counters = [
  'pagedserve:prefix_cache_queries_total',
  'pagedserve:prefix_cache_hits_total',
  'pagedserve:num_preemptions_total',
  'pagedserve:prompt_tokens_total',
  'pagedserve:generation_tokens_total',
];
const histograms = [
  'pagedserve:time_to_first_token_seconds',
  'pagedserve:inter_token_latency_seconds',
  'pagedserve:e2e_request_latency_seconds',
  'pagedserve:request_queue_time_seconds',
  'pagedserve:iteration_tokens_total',
];

function promtool_check(text) {
  return new Promise((resolve, reject) => {
    const p = spawn('promtool', ['check', 'metrics'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    p.stdout.on('data', (c) => (out += c));
    p.stderr.on('data', (c) => (out += c));
    p.on('error', reject);
    p.on('close', (code) => resolve({ code, out }));
    p.stdin.end(text);
  });
}

async function complete(prompt, max_tokens, extra = {}) {
  const res = await post_json(server.port, '/v1/completions', { model: served_model_name, prompt, max_tokens, ...extra });
  assert.equal(res.status, 200, res.text);
  return res.json;
}

it('promtool accepts /metrics after traffic, and every required family is present', async () => {
  await complete('warm up the counters', 4);
  await complete('and a streamed one', 4, { stream: true });
  const { text, headers } = await fetch_metrics(server.port);
  assert.match(headers['content-type'], /^text\/plain/);
  const { code, out } = await promtool_check(text);
  // Exit 1 is a format error. Exit 3 is lint findings only; the required names (vLLM's, with
  // a "pagedserve:" prefix) necessarily draw two of them, which are all we accept.
  const findings = out.split('\n').filter((l) => l.trim() !== '');
  const unexpected = findings.filter(
    (l) => !/ metric names should not contain ':'$/.test(l) && l !== 'pagedserve:iteration_tokens_total non-counter metrics should not have "_total" suffix',
  );
  assert.ok(code === 0 || (code === 3 && unexpected.length === 0), `promtool check metrics exited ${code}:\n${out}\n--- metrics ---\n${text}`);
  for (const name of [...gauges, ...counters]) {
    assert.match(text, new RegExp(`^# TYPE ${name} (gauge|counter)$`, 'm'), `no # TYPE for ${name}`);
    assert.match(text, new RegExp(`^${name}(\\{[^}]*\\})? `, 'm'), `no sample for ${name}`);
  }
  for (const name of histograms) {
    assert.match(text, new RegExp(`^# TYPE ${name} histogram$`, 'm'), `${name} is not a histogram`);
    for (const suffix of ['_bucket', '_sum', '_count']) {
      assert.match(text, new RegExp(`^${name}${suffix}(\\{[^}]*\\})? `, 'm'), `no ${name}${suffix}`);
    }
    assert.match(text, new RegExp(`^${name}_bucket\\{[^}]*le="\\+Inf"[^}]*\\} `, 'm'), `no +Inf bucket for ${name}`);
  }
  assert.match(text, new RegExp(`model_name="${served_model_name}"`));
});

it('counters move by exactly what a known request did', async () => {
  const before_series = await wait_until_idle(server.port);
  const prompt = 'counting tokens: 0123456789';
  const max_tokens = 6;
  const res = await complete(prompt, max_tokens);
  await wait_until_idle(server.port);
  // The server may record a request's latencies just after its response left.
  const after_series = await poll_until('the request in e2e_request_latency_seconds_count', async () => {
    const { series } = await fetch_metrics(server.port);
    const name = 'pagedserve:e2e_request_latency_seconds_count';
    return metric_sum(series, name) > metric_sum(before_series, name) ? series : null;
  });
  const delta = (name) => metric_sum(after_series, name) - metric_sum(before_series, name);

  assert.equal(res.usage.prompt_tokens, completion_prompt_tokens(prompt));
  assert.equal(delta('pagedserve:prompt_tokens_total'), res.usage.prompt_tokens);
  assert.equal(delta('pagedserve:generation_tokens_total'), res.usage.completion_tokens);
  for (const h of ['time_to_first_token_seconds', 'e2e_request_latency_seconds', 'request_queue_time_seconds']) {
    assert.equal(delta(`pagedserve:${h}_count`), 1, `${h}_count`);
    assert.ok(delta(`pagedserve:${h}_sum`) >= 0, `${h}_sum`);
  }
  // One gap between each pair of consecutive tokens.
  assert.equal(delta('pagedserve:inter_token_latency_seconds_count'), res.usage.completion_tokens - 1);
  // Every token of the request went through some step: prompt + generated (the last
  // sampled token is never fed back).
  assert.equal(
    delta('pagedserve:iteration_tokens_total_sum'),
    res.usage.prompt_tokens + res.usage.completion_tokens - 1,
    'iteration_tokens_total_sum',
  );
  assert.equal(delta('pagedserve:num_preemptions_total'), 0);
});

it('a repeated long prompt hits the prefix cache', async () => {
  // 96 bytes + BOS = 97 tokens: six full blocks of 16 can be reused.
  const prompt = 'The quick brown fox jumps over the lazy dog; pack my box with five dozen liquor jugs, please ok!';
  assert.equal(completion_prompt_tokens(prompt), 97);
  await complete(prompt, 2);
  const before_series = await wait_until_idle(server.port);
  await complete(prompt, 2);
  const after_series = await wait_until_idle(server.port);
  const delta = (name) => metric_sum(after_series, name) - metric_sum(before_series, name);
  assert.ok(delta('pagedserve:prefix_cache_queries_total') >= 96, `queries +${delta('pagedserve:prefix_cache_queries_total')}`);
  const hits = delta('pagedserve:prefix_cache_hits_total');
  assert.ok(hits >= 80 && hits <= 96 && hits % 16 === 0, `hits +${hits} (whole blocks of the 97-token prompt)`);
});
