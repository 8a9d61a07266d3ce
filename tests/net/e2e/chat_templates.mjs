// The chat templates of real models rendered by `pagedserve serve` against an independent
// Jinja implementation (@huggingface/jinja): Qwen3's and Llama-3's templates from
// tests/data/tokenizers, sent as a trusted request chat_template, over conversations with tool
// calls (arguments as JSON text), tool responses, reasoning, documents and
// continue_final_message. The server's rendering is read back through /tokenize and
// /detokenize (the demo tokenizer is byte-level, so the round trip is exact). The reference
// side applies vLLM's preprocessing (null content is "", tool call arguments parsed, empty
// tool_calls dropped) and transformers' continue_final_message cut before comparing.

import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { after, before } from 'node:test';

import { Template } from '@huggingface/jinja';

import { binary_from_args, post_json, server_test, start_server } from './lib/harness.mjs';

const binary = binary_from_args();
const testdata = process.env.PAGEDSERVE_TESTDATA_DIR || new URL('../../data', import.meta.url).pathname;
const tokenizers = `${testdata}/tokenizers`;
// Installed by scripts/test-data.sh (scripts/test.sh runs it): missing files are a failure.
assert.ok(existsSync(`${tokenizers}/qwen3/tokenizer_config.json`),
          `no tokenizers under ${tokenizers}: run bash scripts/test-data.sh`);
const template_of = (name) =>
  JSON.parse(readFileSync(`${tokenizers}/${name}/tokenizer_config.json`, 'utf8')).chat_template;
const templates = { qwen3: template_of('qwen3'), llama3: template_of('llama3') };
// Special tokens the templates use, given as kwargs so both sides see the same ones.
const specials = { bos_token: '<|begin_of_text|>', eos_token: '<|eot_id|>' };

let server;
before(async () => {
  server = await start_server(binary, ['--max-model-len', '4096', '--trust-request-chat-template']);
});
after(async () => {
  await server?.stop();
});
const it = (name, fn) => server_test(name, () => [server], fn);

// vLLM's parse_chat_messages + _postprocess_messages for text content.
function vllm_messages(messages) {
  return structuredClone(messages).map((m) => {
    if (m.content === null || m.content === undefined) m.content = '';
    if (Array.isArray(m.content)) m.content = m.content.map((p) => p.text).join('\n');
    if (m.role === 'assistant' && 'tool_calls' in m) {
      if (!Array.isArray(m.tool_calls) || m.tool_calls.length === 0) delete m.tool_calls;
      for (const call of m.tool_calls ?? []) {
        const args = call.function.arguments;
        if (typeof args === 'string') {
          try {
            call.function.arguments = JSON.parse(args);
          } catch {
            call.function.arguments = {};
          }
        } else if (args === null || typeof args !== 'object') {
          call.function.arguments = {};
        }
      }
    }
    return m;
  });
}

// transformers' apply_chat_template(continue_final_message=True) cut, ASCII whitespace.
function cut_after_final_message(text, messages) {
  const final = messages[messages.length - 1].content;
  const loc = text.lastIndexOf(final.trim());
  assert.ok(loc >= 0, 'the final message is in the reference text');
  if (text.slice(loc, loc + final.trimStart().length) === final) return text.slice(0, loc + final.trimStart().length);
  return text.slice(0, loc + final.trim().length);
}

function reference(source, body) {
  const messages = vllm_messages(body.messages);
  const text = new Template(source).render({
    ...specials,
    messages,
    tools: null,
    documents: body.documents ?? null,
    add_generation_prompt: body.add_generation_prompt ?? true,
    ...(body.chat_template_kwargs ?? {}),
  });
  return body.continue_final_message ? cut_after_final_message(text, messages) : text;
}

async function served(body) {
  const tokenized = await post_json(server.port, '/tokenize', body);
  assert.equal(tokenized.status, 200, tokenized.text);
  const text = await post_json(server.port, '/detokenize', { tokens: tokenized.json.tokens });
  assert.equal(text.status, 200, text.text);
  return text.json.prompt;
}

async function expect_same(source, fields) {
  const body = { chat_template: source, ...fields, chat_template_kwargs: { ...specials, ...fields.chat_template_kwargs } };
  assert.equal(await served(body), reference(source, body));
}

const call = (id, name, args) => ({ id, type: 'function', function: { name, arguments: args } });
const conversations = {
  tool_round_trip: [
    { role: 'system', content: 'You are a weather bot.' },
    { role: 'user', content: 'Weather in Paris and Lyon?' },
    {
      role: 'assistant',
      content: null,
      tool_calls: [call('c1', 'get_weather', '{"city":"Paris","unit":"°C"}'), call('c2', 'get_weather', '{"city": "Lyon"}')],
    },
    { role: 'tool', tool_call_id: 'c1', content: '{"temp": 21}' },
    { role: 'tool', tool_call_id: 'c2', content: 'sunny' },
    { role: 'assistant', content: 'Paris: 21 °C. Lyon: sunny.' },
    { role: 'user', content: 'Thanks' },
  ],
  content_beside_calls: [
    { role: 'user', content: 'Search it' },
    { role: 'assistant', content: 'Let me look.', tool_calls: [call('c1', 'search', 'not json'), call('c2', 'noop', null)] },
    { role: 'tool', tool_call_id: 'c1', content: [{ type: 'text', text: 'result A' }, { type: 'text', text: 'result B' }] },
  ],
  empty_tool_calls: [
    { role: 'user', content: 'Hi' },
    { role: 'assistant', content: 'Hello!', tool_calls: [] },
    { role: 'user', content: 'Bye' },
  ],
  reasoning: [
    { role: 'user', content: 'What is 2+2?' },
    { role: 'assistant', content: '<think>\nsimple\n</think>\n\n4' },
    { role: 'user', content: 'And 3+3?' },
  ],
};

for (const [name, source] of Object.entries(templates)) {
  for (const [conversation, messages] of Object.entries(conversations)) {
    it(`${name}: ${conversation} renders as @huggingface/jinja renders it`, async () => {
      await expect_same(source, { messages });
      await expect_same(source, { messages, add_generation_prompt: false });
    });
  }
  it(`${name}: continue_final_message leaves the final assistant message open`, async () => {
    // No leading whitespace: @huggingface/jinja 0.5.13's lstrip('\n') strips every kind of
    // whitespace, unlike Python's (Qwen3's template calls it on the content).
    for (const content of ['The answer is', 'Trailing space ', 'Trailing newline\n']) {
      await expect_same(source, {
        messages: [{ role: 'user', content: 'Go on' }, { role: 'assistant', content }],
        add_generation_prompt: false,
        continue_final_message: true,
      });
    }
  });
}

it('qwen3: enable_thinking false adds the empty think block', async () => {
  await expect_same(templates.qwen3, { messages: conversations.reasoning, chat_template_kwargs: { enable_thinking: false } });
});

it('documents reach a RAG template', async () => {
  const rag =
    "{% if documents %}{% for d in documents %}<doc title='{{ d.title }}'>{{ d.text }}</doc>\n{% endfor %}{% endif %}" +
    '{% for m in messages %}{{ m.role }}: {{ m.content }}\n{% endfor %}';
  await expect_same(rag, {
    messages: [{ role: 'user', content: 'Summarise' }],
    documents: [
      { title: 'One', text: 'first text' },
      { title: 'Two', text: 'second ✓' },
    ],
  });
});
