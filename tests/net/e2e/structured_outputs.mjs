// Structured outputs through the official OpenAI SDK against `pagedserve serve` on two
// demo models with random weights (so nothing but the grammar engine keeps the output in
// shape): the byte tokenizer of demo-random and the BPE vocabulary of pagedserve-demo.
// Temperature 1 and 50 seeds each: every json_schema answer parses and validates with ajv
// (an independent JSON Schema validator), every regex answer fully matches JavaScript's
// RegExp, every choice answer is one of the choices, every json_object answer is an object.
// Schemas and grammars the engine cannot compile are 400s naming what is wrong, and a
// hostile one does not stall the server.

import assert from 'node:assert/strict';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before } from 'node:test';

import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import OpenAI from 'openai';

import { binary_from_args, server_test, start_server } from './lib/harness.mjs';

const binary = binary_from_args();
const demo_model = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'models', 'pagedserve-demo');
const k_seeds = Number(process.env.SO_SEEDS ?? 50);
let byte_server;
let bpe_server;
const servers = () => [byte_server, bpe_server];
const it = (name, fn) => server_test(name, servers, fn, { timeout: 240000 });

before(async () => {
  [byte_server, bpe_server] = await Promise.all([
    start_server(binary, ['--max-num-seqs', '16', '--max-model-len', '512']),
    start_server(binary, ['--model', demo_model, '--max-num-seqs', '16', '--max-model-len', '512']),
  ]);
});

after(async () => {
  await Promise.all(servers().map((s) => s?.stop()));
});

function client_of(server) {
  return new OpenAI({ baseURL: `${server.base_url}/v1`, apiKey: 'dummy', maxRetries: 0, timeout: 120000 });
}

async function model_of(client) {
  const models = await client.models.list();
  return models.data[0].id;
}

// Nested objects, arrays with bounds, enums, integer ranges, $ref, anyOf, const, formats.
const person_schema = {
  $defs: {
    point: {
      type: 'object',
      properties: { x: { type: 'integer', minimum: -50, maximum: 50 }, y: { type: 'integer', minimum: 0, maximum: 999 } },
      required: ['x', 'y'],
      additionalProperties: false,
    },
  },
  type: 'object',
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 8 },
    kind: { enum: ['circle', 'square', 3, null] },
    tags: { type: 'array', items: { type: 'string', maxLength: 4 }, minItems: 1, maxItems: 3 },
    origin: { $ref: '#/$defs/point' },
    path: { type: 'array', items: { $ref: '#/$defs/point' }, maxItems: 2 },
    ok: { type: 'boolean' },
    version: { const: 'v1' },
    nested: {
      type: 'object',
      properties: {
        level: { type: 'integer', minimum: 1, maximum: 3 },
        note: { anyOf: [{ type: 'null' }, { type: 'string', maxLength: 5 }] },
      },
      required: ['level'],
      additionalProperties: false,
    },
    pair: { type: 'array', prefixItems: [{ type: 'boolean' }, { enum: ['a', 'b'] }], items: false },
    day: { type: 'string', format: 'date' },
    id: { type: 'string', format: 'uuid' },
  },
  required: ['name', 'kind', 'tags', 'origin', 'nested', 'version'],
  additionalProperties: false,
};

const ajv = new Ajv2020({ strict: false }); // draft 2020-12: prefixItems
addFormats(ajv);
const validate_person = ajv.compile(person_schema);

async function for_each_seed(fn) {
  const seeds = Array.from({ length: k_seeds }, (_, i) => i + 1);
  await Promise.all(seeds.map(fn));
}

for (const [label, server] of [['byte', () => byte_server], ['bpe', () => bpe_server]]) {
  it(`${label}: json_schema answers validate with ajv (chat, 50 seeds)`, async () => {
    const client = client_of(server());
    const model = await model_of(client);
    await for_each_seed(async (seed) => {
      const res = await client.chat.completions.create({
        model,
        messages: [{ role: 'user', content: 'Describe a shape.' }],
        temperature: 1,
        seed,
        max_tokens: 400,
        response_format: { type: 'json_schema', json_schema: { name: 'shape', schema: person_schema, strict: true } },
      });
      const choice = res.choices[0];
      assert.equal(choice.finish_reason, 'stop', `seed ${seed}: ${choice.message.content}`);
      const parsed = JSON.parse(choice.message.content);
      assert.ok(validate_person(parsed), `seed ${seed}: ${choice.message.content}\n${ajv.errorsText(validate_person.errors)}`);
    });
  });

  it(`${label}: the SDK's parse helper reads json_schema answers (completions and chat)`, async () => {
    const client = client_of(server());
    const model = await model_of(client);
    const schema = { type: 'object', properties: { n: { type: 'integer', minimum: 10, maximum: 20 } }, required: ['n'] };
    const parsed = await client.chat.completions.parse({
      model,
      messages: [{ role: 'user', content: 'A number.' }],
      temperature: 1,
      seed: 7,
      max_tokens: 50,
      response_format: { type: 'json_schema', json_schema: { name: 'n', schema, strict: true } },
    });
    const n = parsed.choices[0].message.parsed.n;
    assert.ok(Number.isInteger(n) && n >= 10 && n <= 20, `n = ${n}`);
    const completion = await client.completions.create({
      model,
      prompt: 'A number:',
      temperature: 1,
      seed: 8,
      max_tokens: 50,
      response_format: { type: 'json_schema', json_schema: { name: 'n', schema } },
    });
    const m = JSON.parse(completion.choices[0].text).n;
    assert.ok(Number.isInteger(m) && m >= 10 && m <= 20, `m = ${m}`);
  });

  it(`${label}: regex answers match in full (completions, 50 seeds)`, async () => {
    const client = client_of(server());
    const model = await model_of(client);
    const pattern = '(foo|ba[rz])-[a-z]{2,5}\\.(com|org)#\\d{1,3}';
    const whole = new RegExp(`^(?:${pattern})$`);
    await for_each_seed(async (seed) => {
      const res = await client.completions.create({
        model, prompt: 'An id:', temperature: 1, seed, max_tokens: 60,
        structured_outputs: { regex: pattern },
      });
      const { text, finish_reason } = res.choices[0];
      assert.equal(finish_reason, 'stop', `seed ${seed}: ${text}`);
      assert.match(text, whole, `seed ${seed}`);
    });
  });

  it(`${label}: choice answers are one of the choices (legacy guided_choice, 50 seeds)`, async () => {
    const client = client_of(server());
    const model = await model_of(client);
    const choices = ['yes', 'no', 'not sure', 'yes, but later', 'ναι'];
    await for_each_seed(async (seed) => {
      const res = await client.chat.completions.create({
        model, messages: [{ role: 'user', content: 'Well?' }], temperature: 1, seed, max_tokens: 30,
        guided_choice: choices,
      });
      assert.ok(choices.includes(res.choices[0].message.content), `seed ${seed}: ${res.choices[0].message.content}`);
      assert.equal(res.choices[0].finish_reason, 'stop');
    });
  });

  it(`${label}: json_object answers are JSON objects (20 seeds)`, async () => {
    const client = client_of(server());
    const model = await model_of(client);
    const seeds = Array.from({ length: 20 }, (_, i) => i + 1);
    await Promise.all(seeds.map(async (seed) => {
      const res = await client.chat.completions.create({
        model, messages: [{ role: 'user', content: 'JSON please.' }], temperature: 1, seed, max_tokens: 200,
        response_format: { type: 'json_object' },
      });
      const { content } = res.choices[0].message;
      assert.equal(content[0], '{', `seed ${seed}: ${content}`);
      // Unbounded strings may run out of tokens (random weights); a finished answer must parse.
      if (res.choices[0].finish_reason === 'stop') {
        const value = JSON.parse(content);
        assert.equal(typeof value, 'object');
        assert.ok(value !== null && !Array.isArray(value));
      }
    }));
  });
}

it('schemas and grammars the engine cannot compile are 400s naming the problem', async () => {
  const client = client_of(byte_server);
  const model = await model_of(client);
  const refused = async (extra, needle) => {
    const err = await client.completions
      .create({ model, prompt: 'x', max_tokens: 5, ...extra })
      .then(() => null, (e) => e);
    assert.ok(err instanceof OpenAI.APIError, `accepted: ${JSON.stringify(extra).slice(0, 200)}`);
    assert.equal(err.status, 400);
    assert.match(err.message, needle);
  };
  await refused({ structured_outputs: { json: { type: 'object', patternProperties: { a: {} } } } }, /patternProperties/);
  let deep = { type: 'integer' };
  for (let i = 0; i < 1000; ++i) deep = { type: 'array', items: deep };
  await refused({ structured_outputs: { json: deep } }, /deep|depth|nest/i);
  await refused({ structured_outputs: { grammar: 'root ::= root "a" | "b"' } }, /recurs/i);
  await refused({ structured_outputs: { grammar: 'root ::= undefined_rule' } }, /undefined_rule/);
  await refused({ structured_outputs: { regex: '(a)\\1' } }, /backreference/i);
  // 10,000 alternatives compile, and the server still answers at once after them.
  const many = Array.from({ length: 10000 }, (_, i) => `w${i}`);
  const res = await client.completions.create({ model, prompt: 'x', max_tokens: 12, temperature: 1, seed: 3, structured_outputs: { choice: many } });
  assert.ok(many.includes(res.choices[0].text), res.choices[0].text);
});

// Tool calling with the demo model: tool_choice "required" and a named function are forced
// by the grammar engine, so even random weights return parseable calls whose arguments
// validate against their function's parameters (ajv), whole and streamed.
const tools = [
  {
    type: 'function',
    function: {
      name: 'get_weather',
      description: 'Weather of a city',
      parameters: {
        type: 'object',
        properties: { city: { type: 'string', maxLength: 10 }, days: { type: 'integer', minimum: 1, maximum: 7 } },
        required: ['city', 'days'],
        additionalProperties: false,
      },
    },
  },
  { type: 'function', function: { name: 'get_time', parameters: { type: 'object', properties: { utc: { type: 'boolean' } }, required: ['utc'] } } },
];
const validate_arguments = Object.fromEntries(tools.map((t) => [t.function.name, ajv.compile(t.function.parameters)]));

function check_call(call, seed) {
  assert.match(call.id, /^chatcmpl-tool-[0-9a-f]{32}$/);
  assert.equal(call.type, 'function');
  const validate = validate_arguments[call.function.name];
  assert.ok(validate, `seed ${seed}: unknown function ${call.function.name}`);
  const args = JSON.parse(call.function.arguments);
  assert.ok(validate(args), `seed ${seed}: ${call.function.arguments}\n${ajv.errorsText(validate.errors)}`);
}

it('tool_choice required gives parseable tool_calls whose arguments validate (20 seeds)', async () => {
  const client = client_of(byte_server);
  const model = await model_of(client);
  const seeds = Array.from({ length: 20 }, (_, i) => i + 1);
  await Promise.all(seeds.map(async (seed) => {
    const res = await client.chat.completions.create({
      model, messages: [{ role: 'user', content: 'Weather?' }], temperature: 1, seed, max_tokens: 300,
      tools, tool_choice: 'required',
    });
    const choice = res.choices[0];
    assert.equal(choice.finish_reason, 'tool_calls', `seed ${seed}`);
    assert.ok(choice.message.tool_calls.length >= 1);
    for (const call of choice.message.tool_calls) check_call(call, seed);
  }));
});

it('a named function streams its name first, then its arguments in pieces', async () => {
  const client = client_of(byte_server);
  const model = await model_of(client);
  for (const seed of [1, 2, 3]) {
    const stream = await client.chat.completions.create({
      model, messages: [{ role: 'user', content: 'Weather?' }], temperature: 1, seed, max_tokens: 100, stream: true,
      tools, tool_choice: { type: 'function', function: { name: 'get_weather' } },
    });
    let call = null;
    let pieces = 0;
    let finish = null;
    for await (const chunk of stream) {
      const choice = chunk.choices[0];
      if (choice.finish_reason) finish = choice.finish_reason;
      for (const delta of choice.delta.tool_calls ?? []) {
        assert.equal(delta.index, 0);
        if (call === null) {
          assert.equal(delta.function.name, 'get_weather', 'the first delta names the function');
          call = { id: delta.id, type: delta.type, function: { name: delta.function.name, arguments: '' } };
        }
        call.function.arguments += delta.function.arguments ?? '';
        ++pieces;
      }
    }
    assert.ok(call, `seed ${seed}: no tool call streamed`);
    assert.ok(pieces > 1, `seed ${seed}: the arguments came in one piece`);
    assert.equal(finish, 'stop');
    check_call(call, seed);
  }
});
