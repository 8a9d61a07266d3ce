// The official OpenAI Node SDK against `pagedserve serve` on the demo model: completions and
// chat (plain and streamed), usage counts from the byte-level tokenizer, max_tokens, n,
// logprobs, echo + logprobs (prompt logprobs), stream_options.include_usage, seeded
// determinism, penalties and logit_bias, models.list, errors as APIError and the api key.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before } from 'node:test';

import OpenAI from 'openai';

import {
  binary_from_args,
  chat_prompt_tokens,
  completion_prompt_tokens,
  served_model_name,
  server_test,
  start_server,
} from './lib/harness.mjs';

const binary = binary_from_args();
const small = ['--max-num-seqs', '8', '--max-model-len', '512'];
let server;
let keyed; // started with --api-key secret
let reasoning; // started with --reasoning-parser deepseek_r1
let client;

before(async () => {
  [server, keyed, reasoning] = await Promise.all([
    start_server(binary, small),
    start_server(binary, [...small, '--api-key', 'secret']),
    start_server(binary, [...small, '--reasoning-parser', 'deepseek_r1']),
  ]);
  client = new OpenAI({ baseURL: `${server.base_url}/v1`, apiKey: 'dummy', maxRetries: 0 });
});

after(async () => {
  await Promise.all([server?.stop(), keyed?.stop(), reasoning?.stop()]);
});

const it = (name, fn) => server_test(name, () => [server, keyed, reasoning], fn);

function assert_usage(usage, prompt_tokens, choices, max_tokens) {
  assert.equal(usage.prompt_tokens, prompt_tokens, 'prompt_tokens');
  assert.equal(usage.total_tokens, usage.prompt_tokens + usage.completion_tokens, 'total_tokens');
  if (choices.every((c) => c.finish_reason === 'length')) {
    assert.equal(usage.completion_tokens, max_tokens * choices.length, 'completion_tokens');
  } else {
    assert.ok(usage.completion_tokens <= max_tokens * choices.length, 'completion_tokens');
  }
}

it('completions.create returns text and exact usage', async () => {
  const prompt = 'Hello, paged world! héllo ✓';
  const max_tokens = 12;
  const res = await client.completions.create({
    model: served_model_name,
    prompt,
    max_tokens,
    temperature: 1.0,
    seed: 7,
  });
  assert.equal(res.object, 'text_completion');
  assert.match(res.id, /^cmpl-/);
  assert.equal(res.model, served_model_name);
  assert.equal(res.choices.length, 1);
  const [choice] = res.choices;
  assert.equal(choice.index, 0);
  assert.equal(typeof choice.text, 'string');
  assert.ok(['length', 'stop'].includes(choice.finish_reason), choice.finish_reason);
  assert.equal(completion_prompt_tokens(prompt), 1 + 30); // é is 2 bytes, ✓ is 3
  assert_usage(res.usage, completion_prompt_tokens(prompt), res.choices, max_tokens);
  if (choice.finish_reason === 'length') assert.equal(res.usage.completion_tokens, max_tokens);
});

it('completions stream: chunks concatenate to the same text as the non-streamed call', async () => {
  const request = { model: served_model_name, prompt: 'Once upon a time', max_tokens: 24, temperature: 0.8, seed: 1234 };
  const whole = await client.completions.create(request);
  const stream = await client.completions.create({ ...request, stream: true });
  let text = '';
  let finish_reason = null;
  let num_chunks = 0;
  for await (const chunk of stream) {
    assert.equal(chunk.object, 'text_completion');
    num_chunks += 1;
    for (const c of chunk.choices) {
      assert.equal(c.index, 0);
      text += c.text;
      if (c.finish_reason) finish_reason = c.finish_reason;
    }
  }
  assert.ok(num_chunks >= 1);
  assert.ok(text.length > 0, 'streamed text is empty');
  assert.equal(text, whole.choices[0].text, 'same seed, same text, streamed or not');
  assert.equal(finish_reason, whole.choices[0].finish_reason);
});

it('max_tokens is honored exactly unless the model stopped', async () => {
  for (const max_tokens of [1, 5, 17]) {
    const res = await client.completions.create({ model: served_model_name, prompt: 'abc', max_tokens });
    const [choice] = res.choices;
    if (choice.finish_reason === 'length') assert.equal(res.usage.completion_tokens, max_tokens);
    else {
      assert.equal(choice.finish_reason, 'stop');
      assert.ok(res.usage.completion_tokens <= max_tokens);
    }
    assert.equal(res.usage.prompt_tokens, 4);
  }
});

it('n=2 returns two choices, indexed 0 and 1, usage summed', async () => {
  const max_tokens = 6;
  const res = await client.completions.create({ model: served_model_name, prompt: 'twins', max_tokens, n: 2, temperature: 1, seed: 3 });
  assert.equal(res.choices.length, 2);
  assert.deepEqual(res.choices.map((c) => c.index).sort(), [0, 1]);
  assert_usage(res.usage, completion_prompt_tokens('twins'), res.choices, max_tokens);

  const stream = await client.completions.create({ model: served_model_name, prompt: 'twins', max_tokens, n: 2, stream: true });
  const finished = new Set();
  for await (const chunk of stream) for (const c of chunk.choices) if (c.finish_reason) finished.add(c.index);
  assert.deepEqual([...finished].sort(), [0, 1]);
});

it('completions logprobs: one entry per token, top alternatives, log-probabilities <= 0', async () => {
  const max_tokens = 5;
  const res = await client.completions.create({ model: served_model_name, prompt: 'log', max_tokens, logprobs: 3 });
  const { logprobs } = res.choices[0];
  assert.ok(logprobs, 'logprobs missing');
  const n = res.usage.completion_tokens;
  assert.equal(logprobs.tokens.length, n);
  assert.equal(logprobs.token_logprobs.length, n);
  assert.equal(logprobs.top_logprobs.length, n);
  assert.equal(logprobs.text_offset.length, n);
  for (const lp of logprobs.token_logprobs) assert.ok(lp <= 0 && Number.isFinite(lp), `logprob ${lp}`);
  for (const top of logprobs.top_logprobs) {
    // Several ids decode to the same text (the demo vocab's unused ids decode to ""), so
    // keys can collide: at least 1, at most logprobs + 1 (the sampled token) entries.
    const k = Object.keys(top).length;
    assert.ok(k >= 1 && k <= 4, `top_logprobs entries ${k}`);
    for (const v of Object.values(top)) assert.ok(v <= 0);
  }
});

it('stream_options.include_usage: the last chunk carries usage and no choices', async () => {
  const prompt = 'usage please';
  const stream = await client.completions.create({
    model: served_model_name,
    prompt,
    max_tokens: 7,
    stream: true,
    stream_options: { include_usage: true },
  });
  const chunks = [];
  for await (const chunk of stream) chunks.push(chunk);
  const last = chunks.at(-1);
  assert.deepEqual(last.choices, []);
  assert.ok(last.usage, 'usage missing on the last chunk');
  assert.equal(last.usage.prompt_tokens, completion_prompt_tokens(prompt));
  const finish = chunks.flatMap((c) => c.choices).find((c) => c.finish_reason);
  assert_usage(last.usage, completion_prompt_tokens(prompt), [finish], 7);
  for (const c of chunks.slice(0, -1)) assert.ok(!c.usage, 'usage before the last chunk');
});

it('chat.completions.create: assistant message and ChatML usage', async () => {
  const messages = [
    { role: 'system', content: 'You are terse.' },
    { role: 'user', content: 'Hi there' },
  ];
  const res = await client.chat.completions.create({ model: served_model_name, messages, max_tokens: 10 });
  assert.equal(res.object, 'chat.completion');
  assert.match(res.id, /^chatcmpl-/);
  assert.equal(res.choices.length, 1);
  assert.equal(res.choices[0].message.role, 'assistant');
  assert.equal(typeof res.choices[0].message.content, 'string');
  assert_usage(res.usage, chat_prompt_tokens(messages), res.choices, 10);
});

it('chat stream: role assistant in the first delta, then content, then a finish_reason', async () => {
  const messages = [{ role: 'user', content: 'Tell me a story' }];
  const stream = await client.chat.completions.create({
    model: served_model_name,
    messages,
    max_tokens: 16,
    temperature: 1,
    seed: 99,
    stream: true,
  });
  const chunks = [];
  for await (const chunk of stream) chunks.push(chunk);
  assert.ok(chunks.length >= 2);
  for (const c of chunks) assert.equal(c.object, 'chat.completion.chunk');
  assert.equal(chunks[0].choices[0].delta.role, 'assistant');
  const content = chunks.map((c) => c.choices[0]?.delta?.content ?? '').join('');
  assert.ok(content.length > 0, 'streamed content is empty');
  assert.ok(chunks.some((c) => c.choices[0]?.finish_reason), 'no finish_reason');
});

it('chat with seed and temperature is deterministic', async () => {
  const request = {
    model: served_model_name,
    messages: [{ role: 'user', content: 'Roll the dice' }],
    max_tokens: 20,
    temperature: 1.3,
    seed: 424242,
  };
  const a = await client.chat.completions.create(request);
  const b = await client.chat.completions.create(request);
  assert.equal(a.choices[0].message.content, b.choices[0].message.content);
  assert.equal(a.usage.completion_tokens, b.usage.completion_tokens);
});

it('chat logprobs: content entries with top_logprobs', async () => {
  const res = await client.chat.completions.create({
    model: served_model_name,
    messages: [{ role: 'user', content: 'x' }],
    max_tokens: 4,
    logprobs: true,
    top_logprobs: 2,
  });
  const { content } = res.choices[0].logprobs;
  assert.equal(content.length, res.usage.completion_tokens);
  for (const entry of content) {
    assert.equal(typeof entry.token, 'string');
    assert.ok(entry.logprob <= 0);
    assert.equal(entry.top_logprobs.length, 2);
  }
});

// The raw logprobs (before any processing) and OpenAI's published formula
// mu[j] - c[j] * frequency_penalty - (c[j] > 0) * presence_penalty give every candidate's
// score; greedy must pick the best of them. Candidates are told apart by their bytes: the
// demo tokenizer's ASCII byte tokens (ids 16-143) have one byte each; the other bytes (a
// lone one reads as U+FFFD) and the special tokens (no bytes) are kept out by a logit_bias
// of -100 (they score -inf here).
it('presence and frequency penalties follow OpenAI\'s formula on the raw logprobs', async () => {
  const presence = 1.5;
  const frequency = 0.7;
  const no_specials = {}; // every id but the ASCII bytes
  for (let id = 0; id < 512; ++id) if (id < 16 || id > 143) no_specials[String(id)] = -100;
  const request = {
    model: served_model_name,
    messages: [{ role: 'user', content: 'repeat repeat repeat' }],
    max_tokens: 24,
    temperature: 0,
    logprobs: true,
    top_logprobs: 20,
    logit_bias: no_specials,
  };
  const res = await client.chat.completions.create({
    ...request,
    presence_penalty: presence,
    frequency_penalty: frequency,
  });
  const counts = new Map();
  let differs_from_raw = 0;
  for (const [t, entry] of res.choices[0].logprobs.content.entries()) {
    assert.ok(entry.bytes.length === 1 && entry.bytes[0] < 128, `token ${t} is not ASCII`);
    const score = (top) => {
      if (top.bytes.length !== 1 || top.bytes[0] >= 128) return -Infinity;
      const c = counts.get(String(top.bytes)) ?? 0;
      return top.logprob - frequency * c - (c > 0 ? presence : 0);
    };
    const best = Math.max(...entry.top_logprobs.map(score));
    assert.ok(score(entry) >= best - 1e-4, `token ${t}: ${score(entry)} below the best ${best}`);
    if (String(entry.bytes) !== String(entry.top_logprobs[0].bytes)) differs_from_raw += 1;
    counts.set(String(entry.bytes), (counts.get(String(entry.bytes)) ?? 0) + 1);
  }
  assert.ok(differs_from_raw > 0, 'the penalties never changed a pick');
  const plain = await client.chat.completions.create(request);
  assert.notEqual(plain.choices[0].message.content, res.choices[0].message.content);
});

it('logit_bias +100 on one token makes every sampled token that token', async () => {
  const post = async (path, body) => {
    const r = await fetch(`${server.base_url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    assert.equal(r.status, 200, `${path}: ${r.status}`);
    return r.json();
  };
  const [token] = (await post('/tokenize', { prompt: 'Q', add_special_tokens: false })).tokens;
  const max_tokens = 6;
  const res = await client.completions.create({
    model: served_model_name,
    prompt: 'bias',
    max_tokens,
    temperature: 1.0,
    seed: 5,
    logit_bias: { [String(token)]: 100 },
  });
  const expected = await post('/detokenize', { tokens: Array(max_tokens).fill(token) });
  assert.equal(res.choices[0].text, expected.prompt);
  assert.equal(res.usage.completion_tokens, max_tokens);
  await assert.rejects(
    client.completions.create({
      model: served_model_name,
      prompt: 'bias',
      max_tokens: 1,
      logit_bias: { [String(token)]: 101 },
    }),
    (err) => err instanceof OpenAI.APIError && err.status === 400 && err.param === 'logit_bias',
  );
});

// lm-eval's loglikelihood request: echo + logprobs with max_tokens 0 scores the prompt. Each
// position's logprob must be what a one-token generation after the prefix gives that token
// when logit_bias forces it (logprobs are the raw distribution, before the bias).
it('echo + logprobs with max_tokens 0 scores every prompt token as its prefix predicts it', async () => {
  const r = await fetch(`${server.base_url}/tokenize`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ prompt: 'The city council said it would' }),
  });
  const ids = (await r.json()).tokens;
  assert.ok(ids.length >= 4);
  const res = await client.completions.create({
    model: served_model_name,
    prompt: ids,
    echo: true,
    logprobs: 2,
    max_tokens: 0,
  });
  const lp = res.choices[0].logprobs;
  assert.equal(lp.tokens.length, ids.length);
  assert.equal(lp.token_logprobs[0], null);
  assert.equal(lp.top_logprobs[0], null);
  for (let i = ids.length - 3; i < ids.length; i++) {
    const forced = await client.completions.create({
      model: served_model_name,
      prompt: ids.slice(0, i),
      max_tokens: 1,
      temperature: 0,
      logprobs: 0,
      logit_bias: { [String(ids[i])]: 100 },
    });
    const want = forced.choices[0].logprobs.token_logprobs[0];
    assert.ok(Math.abs(lp.token_logprobs[i] - want) < 1e-4, `position ${i}: ${lp.token_logprobs[i]} vs ${want}`);
    assert.ok(lp.token_logprobs[i] <= Math.max(...Object.values(lp.top_logprobs[i])) + 1e-6);
  }
  // Streamed, the prompt's entries lead the first chunk's logprobs.
  const stream = await client.completions.create({
    model: served_model_name,
    prompt: ids,
    echo: true,
    logprobs: 1,
    max_tokens: 2,
    temperature: 0,
    stream: true,
  });
  const streamed = [];
  for await (const chunk of stream) {
    for (const c of chunk.choices) if (c.logprobs) streamed.push(...c.logprobs.token_logprobs);
  }
  assert.equal(streamed.length, ids.length + 2);
  assert.equal(streamed[0], null);
  assert.ok(Math.abs(streamed[ids.length - 1] - lp.token_logprobs[ids.length - 1]) < 1e-4);
});

// deepseek_r1: the template opened <think>, so everything before </think> is reasoning. The
// demo model never writes </think>: the whole answer is reasoning_content and content is
// null, streamed (delta.reasoning_content) exactly as answered in one piece.
it('reasoning_parser deepseek_r1: reasoning_content streamed as answered whole', async () => {
  const sdk = new OpenAI({ baseURL: `${reasoning.base_url}/v1`, apiKey: 'dummy', maxRetries: 0 });
  const request = {
    model: served_model_name,
    messages: [{ role: 'user', content: 'think' }],
    max_tokens: 12,
    seed: 11,
  };
  const whole = await sdk.chat.completions.create(request);
  const message = whole.choices[0].message;
  assert.equal(message.content, null);
  assert.equal(typeof message.reasoning_content, 'string');
  let streamed = '';
  let content = '';
  for await (const chunk of await sdk.chat.completions.create({ ...request, stream: true })) {
    const delta = chunk.choices[0]?.delta ?? {};
    streamed += delta.reasoning_content ?? '';
    content += delta.content ?? '';
  }
  assert.equal(streamed, message.reasoning_content);
  assert.equal(content, '');
  // enable_thinking false: no split at all.
  const plain = await sdk.chat.completions.create({
    ...request,
    chat_template_kwargs: { enable_thinking: false },
  });
  assert.equal(plain.choices[0].message.reasoning_content, undefined);
  assert.equal(plain.choices[0].message.content, message.reasoning_content);
});

it('models.list shows the served model', async () => {
  const ids = [];
  for await (const model of client.models.list()) {
    assert.equal(model.object, 'model');
    ids.push(model.id);
  }
  assert.ok(ids.includes(served_model_name), `models: ${ids}`);
});

it('models.retrieve answers the served model and 404s another', async () => {
  const model = await client.models.retrieve(served_model_name);
  assert.equal(model.id, served_model_name);
  assert.equal(model.object, 'model');
  await assert.rejects(client.models.retrieve('gpt-4o'), (err) => err.status === 404);
});

it('a bad request surfaces as APIError 400 naming the field', async () => {
  await assert.rejects(
    client.completions.create({ model: served_model_name, prompt: 'x', max_tokens: -1 }),
    (err) => {
      assert.ok(err instanceof OpenAI.APIError, `not an APIError: ${err}`);
      assert.ok(err instanceof OpenAI.BadRequestError);
      assert.equal(err.status, 400);
      assert.equal(err.type, 'invalid_request_error');
      assert.equal(err.param, 'max_tokens');
      return true;
    },
  );
  await assert.rejects(
    client.completions.create({ model: 'no-such-model', prompt: 'x', max_tokens: 1 }),
    (err) => err instanceof OpenAI.NotFoundError && err.status === 404,
  );
});

it('api key: a wrong key gets 401, the right one works', async () => {
  const wrong = new OpenAI({ baseURL: `${keyed.base_url}/v1`, apiKey: 'wrong', maxRetries: 0 });
  await assert.rejects(
    wrong.completions.create({ model: served_model_name, prompt: 'x', max_tokens: 1 }),
    (err) => err instanceof OpenAI.AuthenticationError && err.status === 401,
  );
  await assert.rejects(wrong.models.list(), (err) => err.status === 401);
  const right = new OpenAI({ baseURL: `${keyed.base_url}/v1`, apiKey: 'secret', maxRetries: 0 });
  const res = await right.completions.create({ model: served_model_name, prompt: 'x', max_tokens: 2 });
  assert.equal(res.usage.prompt_tokens, 2);
});

it('a YAML --config file sets keys and flags override it', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'pagedserve-e2e-'));
  const file = join(dir, 'serve.yaml');
  writeFileSync(file, ['served_model_name: e2e-model', 'max_model_len: 64', 'max_n: 2', 'api_key: from-file', ''].join('\n'));
  const configured = await start_server(binary, ['--config', file, '--max-n', '3']);
  try {
    const c = new OpenAI({ baseURL: `${configured.base_url}/v1`, apiKey: 'from-file', maxRetries: 0 });
    const ids = [];
    for await (const model of c.models.list()) ids.push(model.id);
    assert.deepEqual(ids, ['e2e-model']);
    const res = await c.completions.create({ model: 'e2e-model', prompt: 'cfg', max_tokens: 2, n: 3 });
    assert.equal(res.choices.length, 3, 'the --max-n flag overrides max_n from the file');
    await assert.rejects(c.completions.create({ model: 'e2e-model', prompt: 'x', max_tokens: 1, n: 4 }), (err) => err.status === 400 && err.param === 'n');
    await assert.rejects(
      c.completions.create({ model: 'e2e-model', prompt: 'x'.repeat(64), max_tokens: 1 }),
      (err) => err.status === 400 && err.code === 'context_length_exceeded',
    );
  } finally {
    await configured.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

it('a config file with an unknown key stops the server with a message naming the key', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'pagedserve-e2e-'));
  const file = join(dir, 'bad.yaml');
  writeFileSync(file, 'max_num_seqz: 8\n');
  try {
    await assert.rejects(start_server(binary, ['--config', file], { startup_timeout_ms: 20000 }), /max_num_seqz/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
