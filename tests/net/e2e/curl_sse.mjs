// Raw Server-Sent Events as curl sees them (`curl -sN`): the content type, every non-empty
// line is "data: <json>", each payload parses, and the stream ends with "data: [DONE]".

import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { after, before } from 'node:test';
import { promisify } from 'node:util';

import { binary_from_args, completion_prompt_tokens, served_model_name, server_test, start_server } from './lib/harness.mjs';

if (spawnSync('curl', ['--version']).error) {
  console.log('SKIP: curl not found (apt-get install curl)');
  process.exit(77);
}

const run = promisify(execFile);
const binary = binary_from_args();
let server;

before(async () => {
  server = await start_server(binary, ['--max-num-seqs', '8', '--max-model-len', '512']);
});

after(async () => {
  await server?.stop();
});

const it = (name, fn) => server_test(name, () => [server], fn);

// POSTs body with curl -sN; returns {headers, lines} (header block split from the body).
async function curl_stream(path, body) {
  const { stdout } = await run(
    'curl',
    ['-sN', '-D', '-', '--max-time', '30', '-H', 'Content-Type: application/json', '-d', JSON.stringify(body), `${server.base_url}${path}`],
    { maxBuffer: 16 * 1024 * 1024 },
  );
  const split = stdout.indexOf('\r\n\r\n');
  assert.ok(split > 0, `no header block in curl output: ${stdout.slice(0, 200)}`);
  return { headers: stdout.slice(0, split), body: stdout.slice(split + 4) };
}

function check_sse(body) {
  assert.ok(body.endsWith('\n\n'), 'events end with a blank line');
  const lines = body.split('\n').filter((l) => l !== '');
  assert.ok(lines.length >= 2, `too few events: ${body}`);
  for (const line of lines) assert.ok(line.startsWith('data: '), `line without "data: ": ${JSON.stringify(line)}`);
  assert.equal(lines.at(-1), 'data: [DONE]');
  assert.equal(lines.filter((l) => l === 'data: [DONE]').length, 1);
  return lines.slice(0, -1).map((l) => JSON.parse(l.slice('data: '.length)));
}

it('completions stream: data lines of JSON ending with [DONE]', async () => {
  const prompt = 'curl me';
  const { headers, body } = await curl_stream('/v1/completions', {
    model: served_model_name,
    prompt,
    max_tokens: 9,
    stream: true,
    stream_options: { include_usage: true },
  });
  assert.match(headers, /^HTTP\/1\.1 200/);
  assert.match(headers, /\r\ncontent-type: text\/event-stream/i);
  const events = check_sse(body);
  for (const e of events) assert.equal(e.object, 'text_completion');
  const ids = new Set(events.map((e) => e.id));
  assert.equal(ids.size, 1, 'one id for the whole stream');
  const usage = events.at(-1).usage;
  assert.equal(usage.prompt_tokens, completion_prompt_tokens(prompt));
  const finish = events.flatMap((e) => e.choices).find((c) => c.finish_reason);
  assert.ok(finish, 'no finish_reason');
  if (finish.finish_reason === 'length') assert.equal(usage.completion_tokens, 9);
});

it('chat stream: data lines of chat.completion.chunk ending with [DONE]', async () => {
  const { headers, body } = await curl_stream('/v1/chat/completions', {
    model: served_model_name,
    messages: [{ role: 'user', content: 'sse' }],
    max_tokens: 5,
    stream: true,
  });
  assert.match(headers, /^HTTP\/1\.1 200/);
  const events = check_sse(body);
  for (const e of events) assert.equal(e.object, 'chat.completion.chunk');
  assert.equal(events[0].choices[0].delta.role, 'assistant');
});

it('a non-streamed request through curl is one JSON body', async () => {
  const { stdout } = await run('curl', [
    '-s', '-H', 'Content-Type: application/json',
    '-d', JSON.stringify({ model: served_model_name, prompt: 'one', max_tokens: 3 }),
    `${server.base_url}/v1/completions`,
  ]);
  const res = JSON.parse(stdout);
  assert.equal(res.object, 'text_completion');
  assert.equal(res.usage.prompt_tokens, completion_prompt_tokens('one'));
});

it('an error before streaming starts is a plain JSON error with its status', async () => {
  const { stdout } = await run('curl', [
    '-s', '-w', '\n%{http_code}', '-H', 'Content-Type: application/json',
    '-d', JSON.stringify({ model: served_model_name, prompt: 'x', max_tokens: 1, stream: true, temperature: -1 }),
    `${server.base_url}/v1/completions`,
  ]);
  const [body, code] = [stdout.slice(0, stdout.lastIndexOf('\n')), stdout.slice(stdout.lastIndexOf('\n') + 1)];
  assert.equal(code, '400');
  const { error } = JSON.parse(body);
  assert.equal(error.type, 'invalid_request_error');
  assert.equal(error.param, 'temperature');
});
