// A quantized folder served as a user serves it: `pagedserve quantize` writes an AWQ folder
// of the shipped demo model and the fp32 folder of its exact dequantization; both are
// served, and /v1/completions with logprobs answers the same greedy tokens with the same
// top logprobs (within fp32 rounding) from each. /metrics names the quantization
// (model_info), and the official OpenAI client reads the quantized server.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before } from 'node:test';
import { fileURLToPath } from 'node:url';

import OpenAI from 'openai';

import { binary_from_args, fetch_metrics, post_json, server_test, start_server } from './lib/harness.mjs';

const binary = binary_from_args();
const demo_model = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'models', 'pagedserve-demo');
const dir = mkdtempSync(join(tmpdir(), 'pagedserve-e2e-quantized-'));
const quantized_dir = join(dir, 'awq');
const twin_dir = join(dir, 'awq-fp32');
let quantized;
let twin;
let fp8_kv;

before(async () => {
  const made = spawnSync(binary, ['quantize', '--model', demo_model, '--out', quantized_dir, '--method', 'awq',
    '--group-size', '64', '--dequantized-out', twin_dir], { encoding: 'utf8' });
  assert.equal(made.status, 0, `pagedserve quantize failed:\n${made.stdout}\n${made.stderr}`);
  [quantized, twin, fp8_kv] = await Promise.all([
    start_server(binary, ['--model', quantized_dir, '--served-model-name', 'demo-awq']),
    start_server(binary, ['--model', twin_dir, '--served-model-name', 'demo-awq']),
    start_server(binary, ['--model', quantized_dir, '--served-model-name', 'demo-awq', '--kv-cache-dtype', 'fp8_e4m3']),
  ]);
});

after(async () => {
  await Promise.all([quantized?.stop(), twin?.stop(), fp8_kv?.stop()]);
  rmSync(dir, { recursive: true, force: true });
});

const it = (name, fn) => server_test(name, () => [quantized, twin, fp8_kv], fn);
const info_line = (text) => text.split('\n').find((l) => l.startsWith('pagedserve:model_info{'));
// "KV cache: N blocks of 16 tokens, B bytes each in DTYPE (...); maximum concurrency ...: Cx"
function kv_line(log) {
  const m = /KV cache: (\d+) blocks of \d+ tokens, (\d+) bytes each in (\w+) .*: ([\d.]+)x/.exec(log);
  assert.ok(m, log);
  return { blocks: Number(m[1]), bytes: Number(m[2]), dtype: m[3], concurrency: Number(m[4]) };
}

const request = { model: 'demo-awq', prompt: 'The jury said that the city', max_tokens: 8, temperature: 0, logprobs: 3 };

it('the quantized folder answers what its dequantized twin answers', async () => {
  const [a, b] = await Promise.all([
    post_json(quantized.port, '/v1/completions', request),
    post_json(twin.port, '/v1/completions', request),
  ]);
  assert.equal(a.status, 200, a.text);
  assert.equal(b.status, 200, b.text);
  const la = a.json.choices[0].logprobs;
  const lb = b.json.choices[0].logprobs;
  assert.equal(a.json.choices[0].text, b.json.choices[0].text);
  assert.deepEqual(la.tokens, lb.tokens);
  assert.equal(la.tokens.length, 8);
  for (let i = 0; i < la.tokens.length; i++) {
    assert.ok(Math.abs(la.token_logprobs[i] - lb.token_logprobs[i]) < 1e-3, `token ${i}: ${la.token_logprobs[i]} vs ${lb.token_logprobs[i]}`);
    assert.deepEqual(Object.keys(la.top_logprobs[i]), Object.keys(lb.top_logprobs[i]));
  }
});

it('metrics and the start-up log name the quantization', async () => {
  const { text } = await fetch_metrics(quantized.port);
  const line = info_line(text);
  assert.ok(line, text);
  assert.match(line, /quantization="awq \(4-bit, group 64, zero points\)"/);
  assert.match(line, /kv_cache_dtype="auto"/);
  assert.match(quantized.log, /quantization: awq \(4-bit, group 64, zero points\)/);
  assert.match(info_line((await fetch_metrics(twin.port)).text), /quantization="none"/);
});

it('an fp8 KV cache takes a quarter of the fp32 bytes per block and says so', async () => {
  assert.match(info_line((await fetch_metrics(fp8_kv.port)).text), /kv_cache_dtype="fp8_e4m3"/);
  const auto = kv_line(quantized.log);
  const fp8 = kv_line(fp8_kv.log);
  assert.equal(auto.dtype, 'auto');
  assert.equal(fp8.dtype, 'fp8_e4m3');
  assert.equal(fp8.bytes * 4, auto.bytes);
  // A pool this small (max_num_seqs sequences of max_model_len) is not capped: the same blocks.
  assert.equal(fp8.blocks, auto.blocks);
  const r = await post_json(fp8_kv.port, '/v1/completions', request);
  assert.equal(r.status, 200, r.text);
  assert.equal(r.json.choices[0].logprobs.tokens.length, 8);
});

it('the OpenAI client streams from the quantized server', async () => {
  const client = new OpenAI({ baseURL: `${quantized.base_url}/v1`, apiKey: 'unused' });
  const stream = await client.completions.create({ ...request, stream: true });
  let text = '';
  for await (const chunk of stream) text += chunk.choices[0]?.text ?? '';
  const whole = await post_json(twin.port, '/v1/completions', request);
  assert.equal(text, whole.json.choices[0].text);
});
