// The APIs agents speak, through their official clients, against `pagedserve serve` on the
// trained demo model: OpenAI's Responses API (npm `openai`: responses.create streamed and
// not, responses.stream's strict event accumulator, a function tool round trip,
// previous_response_id, retrieve and delete, the store's bounds, text.format) and Anthropic's
// Messages API (npm `@anthropic-ai/sdk`: messages.create streamed and not, messages.stream,
// a tool round trip, countTokens, stop_sequences, thinking blocks, x-api-key, errors).
// The reference for every answer is chat completions on the same server: the same
// conversation and sampling must give exactly the same text and token counts.

import assert from 'node:assert/strict';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before } from 'node:test';

import Anthropic from '@anthropic-ai/sdk';
import Ajv2020 from 'ajv/dist/2020.js';
import OpenAI from 'openai';

import { binary_from_args, http_request, server_test, start_server } from './lib/harness.mjs';

const binary = binary_from_args();
const demo_model = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'models', 'pagedserve-demo');
const common = ['--model', demo_model, '--max-num-seqs', '8', '--max-model-len', '512'];
let server; // plain
let keyed; // --api-key secret, a store of two responses
let reasoning; // --reasoning-parser deepseek_r1
const servers = () => [server, keyed, reasoning];
const it = (name, fn) => server_test(name, servers, fn, { timeout: 120000 });

before(async () => {
  [server, keyed, reasoning] = await Promise.all([
    start_server(binary, common),
    start_server(binary, [...common, '--api-key', 'secret', '--responses-store-max-count', '2']),
    start_server(binary, [...common, '--reasoning-parser', 'deepseek_r1']),
  ]);
});

after(async () => {
  await Promise.all(servers().map((s) => s?.stop()));
});

const openai_of = (s, apiKey = 'dummy') =>
  new OpenAI({ baseURL: `${s.base_url}/v1`, apiKey, maxRetries: 0, timeout: 60000 });
const anthropic_of = (s, apiKey = 'dummy') =>
  new Anthropic({ baseURL: s.base_url, apiKey, maxRetries: 0, timeout: 60000 });
const model = 'pagedserve-demo';

const weather_schema = {
  type: 'object',
  properties: { city: { type: 'string', maxLength: 12 }, days: { type: 'integer', minimum: 1, maximum: 7 } },
  required: ['city', 'days'],
  additionalProperties: false,
};

// The chat completion of `messages` with `extra` fields: the reference.
async function chat(s, messages, extra) {
  const res = await openai_of(s).chat.completions.create({ model, messages, ...extra });
  return { text: res.choices[0].message.content ?? '', message: res.choices[0].message, usage: res.usage };
}

// The text of a response's message items (what the SDK's output_text adds up).
const text_of = (res) =>
  res.output.filter((o) => o.type === 'message').map((o) => o.content.map((c) => c.text).join('')).join('');

const greedy = { temperature: 0 };
const seeded = { temperature: 0.9, top_p: 0.95, seed: 1234 };

// ---- Responses ----

for (const [name, sampling] of [['greedy', greedy], ['seeded', seeded]]) {
  it(`responses.create (${name}) gives chat's text and token counts`, async () => {
    const client = openai_of(server);
    const res = await client.responses.create({
      model,
      instructions: 'You tell short stories.',
      input: 'Tell me about the old lighthouse.',
      max_output_tokens: 24,
      ...sampling,
    });
    const ref = await chat(
      server,
      [
        { role: 'system', content: 'You tell short stories.' },
        { role: 'user', content: 'Tell me about the old lighthouse.' },
      ],
      { max_completion_tokens: 24, ...sampling },
    );
    assert.equal(res.object, 'response');
    assert.match(res.id, /^resp_/);
    assert.ok(ref.text.length > 0, 'the reference says something');
    assert.equal(res.output_text, ref.text);
    assert.equal(res.usage.input_tokens, ref.usage.prompt_tokens);
    assert.equal(res.usage.output_tokens, ref.usage.completion_tokens);
    assert.equal(res.usage.total_tokens, res.usage.input_tokens + res.usage.output_tokens);
    assert.equal(typeof res.usage.input_tokens_details.cached_tokens, 'number');
    assert.equal(res.status, ref.usage.completion_tokens === 24 ? 'incomplete' : 'completed');
    if (res.status === 'incomplete') assert.deepEqual(res.incomplete_details, { reason: 'max_output_tokens' });
    assert.equal(res.instructions, 'You tell short stories.');
  });
}

it('responses.stream: the strict accumulator sees a well-formed event sequence equal to the plain answer', async () => {
  const client = openai_of(server);
  const params = { model, input: 'Once upon a time', max_output_tokens: 20, ...greedy };
  const plain = await client.responses.create(params);
  const stream = client.responses.stream(params);
  const types = [];
  let deltas = '';
  let last_sequence = -1;
  stream.on('event', (e) => {
    types.push(e.type);
    assert.equal(e.sequence_number, last_sequence + 1, 'sequence numbers count up from 0');
    last_sequence = e.sequence_number;
    if (e.type === 'response.output_text.delta') deltas += e.delta;
  });
  const final = await stream.finalResponse();
  assert.equal(text_of(final), plain.output_text);
  assert.equal(deltas, plain.output_text);
  assert.deepEqual(types.slice(0, 5), [
    'response.created',
    'response.in_progress',
    'response.output_item.added',
    'response.content_part.added',
    'response.output_text.delta',
  ]);
  assert.deepEqual(types.slice(-4), [
    'response.output_text.done',
    'response.content_part.done',
    'response.output_item.done',
    plain.status === 'incomplete' ? 'response.incomplete' : 'response.completed',
  ]);
  // A raw stream (responses.create with stream) ends with the same response.
  const raw = await client.responses.create({ ...params, stream: true });
  let ended;
  for await (const e of raw) if (e.type === 'response.completed' || e.type === 'response.incomplete') ended = e.response;
  assert.equal(text_of(ended), plain.output_text);
  assert.equal(ended.usage.output_tokens, plain.usage.output_tokens);
});

it('a function tool round trip through previous_response_id matches chat with tool messages', async () => {
  const client = openai_of(server);
  const tools = [{ type: 'function', name: 'get_weather', description: 'Weather', parameters: weather_schema, strict: true }];
  const ask = {
    model, input: 'What is the weather in Oslo?', tools, tool_choice: 'required', parallel_tool_calls: false,
    max_output_tokens: 96, ...greedy,
  };
  const first = await client.responses.create(ask);
  assert.equal(first.status, 'completed', JSON.stringify(first.output));
  const calls = first.output.filter((o) => o.type === 'function_call');
  assert.equal(calls.length, 1, JSON.stringify(first.output));
  const call = calls[0];
  assert.equal(call.name, 'get_weather');
  const args = JSON.parse(call.arguments);
  assert.ok(new Ajv2020().validate(weather_schema, args), call.arguments);

  // Streamed, the arguments arrive as deltas that add up to the same call.
  const stream = client.responses.stream(ask);
  let arg_deltas = '';
  stream.on('response.function_call_arguments.delta', (e) => (arg_deltas += e.delta));
  const streamed = await stream.finalResponse();
  const streamed_call = streamed.output.find((o) => o.type === 'function_call');
  assert.equal(arg_deltas, call.arguments);
  assert.equal(streamed_call.arguments, call.arguments);

  const second = await client.responses.create({
    model,
    previous_response_id: first.id,
    input: [{ type: 'function_call_output', call_id: call.call_id, output: '{"temp": 21}' }],
    tools,
    tool_choice: 'none',
    max_output_tokens: 16,
    ...greedy,
  });
  assert.equal(second.previous_response_id, first.id);
  const ref = await chat(
    server,
    [
      { role: 'user', content: 'What is the weather in Oslo?' },
      { role: 'assistant', content: text_of(first), tool_calls: calls.map((c) => ({ id: c.call_id, type: 'function', function: { name: c.name, arguments: c.arguments } })) },
      { role: 'tool', tool_call_id: call.call_id, content: '{"temp": 21}' },
    ],
    { tools: [{ type: 'function', function: { name: 'get_weather', description: 'Weather', parameters: weather_schema } }], tool_choice: 'none', max_completion_tokens: 16, ...greedy },
  );
  assert.equal(second.output_text, ref.text);
  assert.equal(second.usage.input_tokens, ref.usage.prompt_tokens);
});

it('previous_response_id continues the stored conversation; retrieve and delete; unknown ids are 404', async () => {
  const client = openai_of(server);
  const first = await client.responses.create({ model, input: 'The cat sat', max_output_tokens: 8, ...greedy });
  const second = await client.responses.create({
    model, previous_response_id: first.id, input: 'And then?', max_output_tokens: 8, ...greedy,
  });
  const ref = await chat(
    server,
    [
      { role: 'user', content: 'The cat sat' },
      { role: 'assistant', content: first.output_text },
      { role: 'user', content: 'And then?' },
    ],
    { max_completion_tokens: 8, ...greedy },
  );
  assert.equal(second.output_text, ref.text);
  assert.equal(second.usage.input_tokens, ref.usage.prompt_tokens);

  const got = await client.responses.retrieve(first.id);
  assert.equal(got.id, first.id);
  assert.equal(got.output_text, first.output_text);
  await client.responses.delete(first.id);
  await assert.rejects(client.responses.retrieve(first.id), (e) => e instanceof OpenAI.NotFoundError);
  await assert.rejects(
    client.responses.create({ model, previous_response_id: first.id, input: 'x', max_output_tokens: 2 }),
    (e) => e instanceof OpenAI.NotFoundError && e.param === 'previous_response_id',
  );
  // store: false keeps nothing.
  const unstored = await client.responses.create({ model, input: 'x', max_output_tokens: 2, store: false });
  assert.equal(unstored.store, false);
  await assert.rejects(client.responses.retrieve(unstored.id), (e) => e instanceof OpenAI.NotFoundError);
});

it('the store keeps responses_store_max_count responses, evicting the oldest (and needs the key)', async () => {
  const client = openai_of(keyed, 'secret');
  const ids = [];
  for (let i = 0; i < 3; ++i) ids.push((await client.responses.create({ model, input: `n ${i}`, max_output_tokens: 2 })).id);
  await assert.rejects(client.responses.retrieve(ids[0]), (e) => e instanceof OpenAI.NotFoundError);
  for (const id of ids.slice(1)) assert.equal((await client.responses.retrieve(id)).id, id);
  await assert.rejects(openai_of(keyed, 'wrong').responses.retrieve(ids[2]), (e) => e instanceof OpenAI.AuthenticationError);
});

it('text.format json_schema always matches the schema', async () => {
  const client = openai_of(server);
  const validate = new Ajv2020().compile(weather_schema);
  for (let seed = 0; seed < 6; ++seed) {
    const res = await client.responses.create({
      model, input: 'Weather as JSON', max_output_tokens: 64, temperature: 1, seed,
      text: { format: { type: 'json_schema', name: 'weather', schema: weather_schema, strict: true } },
    });
    assert.equal(res.status, 'completed', res.output_text);
    assert.ok(validate(JSON.parse(res.output_text)), `seed ${seed}: ${res.output_text}`);
  }
});

it('responses: reasoning items come from the reasoning parser', async () => {
  const res = await openai_of(reasoning).responses.create({ model, input: 'Hello', max_output_tokens: 8, ...greedy });
  const ref = await chat(reasoning, [{ role: 'user', content: 'Hello' }], { max_completion_tokens: 8, ...greedy });
  const item = res.output.find((o) => o.type === 'reasoning');
  assert.ok(item, JSON.stringify(res.output));
  assert.equal(item.content.map((c) => c.text).join(''), ref.message.reasoning_content);
});

// ---- Anthropic Messages ----

for (const [name, sampling] of [['greedy', greedy], ['seeded', seeded]]) {
  it(`messages.create (${name}) gives chat's text and token counts`, async () => {
    const msg = await anthropic_of(server).messages.create({
      model, max_tokens: 24, system: 'You tell short stories.',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Tell me about the old lighthouse.' }] }],
      ...sampling,
    });
    const ref = await chat(
      server,
      [
        { role: 'system', content: 'You tell short stories.' },
        { role: 'user', content: 'Tell me about the old lighthouse.' },
      ],
      { max_tokens: 24, ...sampling },
    );
    assert.equal(msg.type, 'message');
    assert.equal(msg.role, 'assistant');
    assert.match(msg.id, /^msg_/);
    assert.equal(msg.content.map((b) => b.text).join(''), ref.text);
    assert.equal(msg.usage.input_tokens + msg.usage.cache_read_input_tokens, ref.usage.prompt_tokens);
    assert.equal(msg.usage.output_tokens, ref.usage.completion_tokens);
    assert.equal(msg.stop_reason, ref.usage.completion_tokens === 24 ? 'max_tokens' : 'end_turn');
  });
}

it('messages.stream: the SDK accumulates the events into the plain answer', async () => {
  const client = anthropic_of(server);
  const params = { model, max_tokens: 20, messages: [{ role: 'user', content: 'Once upon a time' }], ...greedy };
  const plain = await client.messages.create(params);
  const stream = client.messages.stream(params);
  const types = [];
  stream.on('streamEvent', (e) => types.push(e.type));
  const final = await stream.finalMessage();
  assert.deepEqual(final.content, plain.content);
  assert.equal(final.stop_reason, plain.stop_reason);
  assert.equal(final.usage.output_tokens, plain.usage.output_tokens);
  assert.deepEqual(types.slice(0, 2), ['message_start', 'content_block_start']);
  assert.deepEqual(types.slice(-3), ['content_block_stop', 'message_delta', 'message_stop']);
  // create with stream: true gives the raw events.
  let text = '';
  for await (const e of await client.messages.create({ ...params, stream: true })) {
    if (e.type === 'content_block_delta' && e.delta.type === 'text_delta') text += e.delta.text;
  }
  assert.equal(text, plain.content[0].text);
});

it('a tool round trip: tool_use blocks, then tool_result, match chat with tool messages', async () => {
  const client = anthropic_of(server);
  const tools = [{ name: 'get_weather', description: 'Weather', input_schema: weather_schema }];
  const question = { role: 'user', content: 'What is the weather in Oslo?' };
  const ask = { model, max_tokens: 96, tools, tool_choice: { type: 'any', disable_parallel_tool_use: true }, messages: [question], ...greedy };
  const first = await client.messages.create(ask);
  assert.equal(first.stop_reason, 'tool_use', JSON.stringify(first.content));
  const use = first.content.find((b) => b.type === 'tool_use');
  assert.ok(use, JSON.stringify(first.content));
  assert.equal(use.name, 'get_weather');
  assert.ok(new Ajv2020().validate(weather_schema, use.input), JSON.stringify(use.input));

  const streamed = await client.messages.stream(ask).finalMessage();
  assert.deepEqual(streamed.content.find((b) => b.type === 'tool_use').input, use.input);

  const second = await client.messages.create({
    model, max_tokens: 16, tools, tool_choice: { type: 'none' }, ...greedy,
    messages: [
      question,
      { role: 'assistant', content: first.content },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: '{"temp": 21}' }] },
    ],
  });
  const ref = await chat(
    server,
    [
      question,
      {
        role: 'assistant',
        content: first.content.filter((b) => b.type === 'text').map((b) => b.text).join('\n'),
        tool_calls: [{ id: use.id, type: 'function', function: { name: use.name, arguments: JSON.stringify(use.input) } }],
      },
      { role: 'tool', tool_call_id: use.id, content: '{"temp": 21}' },
    ],
    { tools: [{ type: 'function', function: { name: 'get_weather', description: 'Weather', parameters: weather_schema } }], tool_choice: 'none', max_tokens: 16, ...greedy },
  );
  assert.equal(second.content.map((b) => b.text).join(''), ref.text);
  assert.equal(second.usage.input_tokens + second.usage.cache_read_input_tokens, ref.usage.prompt_tokens);
});

it('countTokens equals the prompt chat would run', async () => {
  const messages = [{ role: 'user', content: 'How many tokens is this?' }];
  const counted = await anthropic_of(server).messages.countTokens({ model, system: 'Be brief.', messages });
  const ref = await chat(server, [{ role: 'system', content: 'Be brief.' }, ...messages], { max_tokens: 1 });
  assert.equal(counted.input_tokens, ref.usage.prompt_tokens);
});

it('stop_sequences end the answer with stop_reason stop_sequence', async () => {
  const client = anthropic_of(server);
  const messages = [{ role: 'user', content: 'Tell me a story.' }];
  const full = (await client.messages.create({ model, max_tokens: 24, messages, ...greedy })).content[0].text;
  const word = full.split(' ').filter((w) => w.length >= 3)[2];
  assert.ok(word, full);
  const cut = await client.messages.create({ model, max_tokens: 24, messages, stop_sequences: [word], ...greedy });
  assert.equal(cut.stop_reason, 'stop_sequence');
  assert.equal(cut.stop_sequence, word);
  assert.equal(cut.content[0].text, full.slice(0, full.indexOf(word)));
});

it('thinking blocks come from the reasoning parser', async () => {
  const msg = await anthropic_of(reasoning).messages.create({ model, max_tokens: 8, messages: [{ role: 'user', content: 'Hello' }], ...greedy });
  const ref = await chat(reasoning, [{ role: 'user', content: 'Hello' }], { max_tokens: 8, ...greedy });
  const thinking = msg.content.find((b) => b.type === 'thinking');
  assert.ok(thinking, JSON.stringify(msg.content));
  assert.equal(thinking.thinking, ref.message.reasoning_content);
});

it('x-api-key authenticates; errors come in Anthropic\'s shape, naming the field', async () => {
  const ok = await anthropic_of(keyed, 'secret').messages.create({ model, max_tokens: 2, messages: [{ role: 'user', content: 'hi' }] });
  assert.equal(ok.type, 'message');
  await assert.rejects(
    anthropic_of(keyed, 'wrong').messages.create({ model, max_tokens: 2, messages: [{ role: 'user', content: 'hi' }] }),
    (e) => e instanceof Anthropic.AuthenticationError && e.error?.error?.type === 'authentication_error',
  );
  await assert.rejects(
    anthropic_of(server).messages.create({ model, messages: [{ role: 'user', content: 'hi' }] }),
    (e) => e instanceof Anthropic.BadRequestError && e.error.type === 'error' &&
      e.error.error.type === 'invalid_request_error' && e.error.error.message.startsWith('max_tokens'),
  );
  const raw = await http_request(server.port, 'POST', '/v1/messages', {
    body: JSON.stringify({ model, max_tokens: 4, messages: [{ role: 'user', content: [{ type: 'image', source: {} }] }] }),
    headers: { 'content-type': 'application/json' },
  });
  assert.equal(raw.status, 400, raw.text);
  assert.match(raw.json.error.message, /^messages\[0\]\.content\[0\]\.type/);
});

// ---- Embeddings ----

// Batched and single prompts may take different kernel paths: equal to float rounding.
function assert_close(got, want, where) {
  assert.equal(got.length, want.length, where);
  for (let j = 0; j < want.length; ++j) assert.ok(Math.abs(got[j] - want[j]) < 1e-5, `${where}[${j}]: ${got[j]} vs ${want[j]}`);
}

it('embeddings.create: unit vectors, base64 (the SDK default) equal to floats, batches equal to singles', async () => {
  const client = openai_of(server);
  const inputs = ['The old lighthouse', 'A quiet harbour at night', 'x'];
  const batch = await client.embeddings.create({ model, input: inputs }); // base64 on the wire
  assert.equal(batch.object, 'list');
  assert.equal(batch.data.length, inputs.length);
  let prompt_tokens = 0;
  for (const [i, text] of inputs.entries()) {
    const row = batch.data[i];
    assert.equal(row.index, i);
    const norm = Math.sqrt(row.embedding.reduce((s, x) => s + x * x, 0));
    assert.ok(Math.abs(norm - 1) < 1e-5, `norm ${norm}`);
    const single = await client.embeddings.create({ model, input: text, encoding_format: 'float' });
    assert_close(single.data[0].embedding, row.embedding, `input ${i}`);
    const counted = await http_request(server.port, 'POST', '/tokenize', { body: { model, prompt: text } });
    prompt_tokens += counted.json.count;
  }
  assert.equal(batch.usage.prompt_tokens, prompt_tokens);
  assert.equal(batch.usage.total_tokens, prompt_tokens);
  // Token ids are an input too, and give the text's vector.
  const ids = (await http_request(server.port, 'POST', '/tokenize', { body: { model, prompt: inputs[0] } })).json.tokens;
  const by_ids = await client.embeddings.create({ model, input: [ids], encoding_format: 'float' });
  assert_close(by_ids.data[0].embedding, batch.data[0].embedding, 'token ids');
  // A model without a Matryoshka declaration refuses dimensions.
  await assert.rejects(
    client.embeddings.create({ model, input: 'x', dimensions: 8 }),
    (e) => e instanceof OpenAI.BadRequestError && e.param === 'dimensions',
  );
});

// ---- run-batch ----

it('run-batch answers every line in order, as the server answers the same bodies', async () => {
  const { mkdtempSync, writeFileSync, readFileSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { spawnSync } = await import('node:child_process');
  const dir = mkdtempSync(join(tmpdir(), 'run-batch-'));
  try {
    const chat_body = { model, messages: [{ role: 'user', content: 'Tell me a story.' }], max_tokens: 12, ...greedy };
    const lines = [
      { custom_id: 'chat', method: 'POST', url: '/v1/chat/completions', body: chat_body },
      'this line is not JSON',
      { custom_id: 'refused', method: 'POST', url: '/v1/chat/completions', body: { model, messages: [] } },
      { custom_id: 'emb', method: 'POST', url: '/v1/embeddings', body: { model, input: ['a lighthouse', 'the sea'] } },
      { custom_id: 'cmpl', method: 'POST', url: '/v1/completions', body: { model, prompt: ['Once', 'The'], max_tokens: 4, ...greedy } },
      { custom_id: 'resp', method: 'POST', url: '/v1/responses', body: { model, input: 'Tell me a story.', max_output_tokens: 12, ...greedy } },
    ];
    writeFileSync(join(dir, 'in.jsonl'), lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n') + '\n');
    const run = spawnSync(binary, ['run-batch', '-i', join(dir, 'in.jsonl'), '-o', join(dir, 'out.jsonl'), ...common], { encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    const out = readFileSync(join(dir, 'out.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    assert.deepEqual(out.map((o) => o.custom_id), ['chat', null, 'refused', 'emb', 'cmpl', 'resp']);
    const ref = await chat(server, chat_body.messages, { max_tokens: 12, ...greedy });
    assert.equal(out[0].response.status_code, 200);
    assert.equal(out[0].response.body.choices[0].message.content, ref.text);
    assert.equal(out[1].response, null);
    assert.equal(out[1].error.code, 'invalid_request');
    assert.equal(out[2].response.status_code, 400);
    assert.equal(out[2].response.body.error.param, 'messages');
    const emb = await openai_of(server).embeddings.create({ model, input: ['a lighthouse', 'the sea'], encoding_format: 'float' });
    for (const i of [0, 1]) assert_close(out[3].response.body.data[i].embedding, emb.data[i].embedding, `embedding ${i}`);
    assert.equal(out[4].response.body.choices.length, 2);
    assert.equal(out[5].response.body.object, 'response');
    assert.equal(text_of(out[5].response.body), ref.text);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
