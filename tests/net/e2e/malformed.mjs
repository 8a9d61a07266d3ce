// Malformed and hostile requests over raw TCP (malformed_requests.json): each row states the
// status the server must answer (or that it may close the connection instead, for input that
// is not HTTP), and for JSON errors the OpenAI error object {"error": {"message", "type",
// "param", "code"}} with the expected type and param. After the whole table the server must
// still be healthy and serve a normal completion.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
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
import { build_request, exchange } from './lib/raw_http.mjs';

const binary = binary_from_args();
const rows = JSON.parse(readFileSync(new URL('./malformed_requests.json', import.meta.url), 'utf8'));
// Limits the table is written against.
const limits = [
  '--max-model-len', '256',
  '--max-num-seqs', '8',
  '--max-body-bytes', '65536',
  '--max-header-bytes', '4096',
  '--read-timeout-s', '1',
  '--idle-timeout-s', '2',
];
const servers = {};

before(async () => {
  [servers.main, servers.auth] = await Promise.all([
    start_server(binary, limits),
    start_server(binary, [...limits, '--api-key', 'secret']),
  ]);
});

after(async () => {
  await Promise.all(Object.values(servers).map((s) => s?.stop()));
});

const it = (name, fn) => server_test(name, () => Object.values(servers), fn);

function request_bytes(send) {
  if (send.raw !== undefined) return Buffer.from(send.raw, 'latin1');
  // Parts of raw bytes; {"repeat": s, "count": n} stands for s n times.
  if (send.raw_parts !== undefined) {
    return Buffer.from(send.raw_parts.map((p) => (typeof p === 'string' ? p : p.repeat.repeat(p.count))).join(''), 'latin1');
  }
  if (send.raw_hex !== undefined) return Buffer.from(send.raw_hex, 'hex');
  let body;
  if (send.json !== undefined) {
    const value = structuredClone(send.json);
    if (send.fill) value[send.fill.field] = send.fill.text.repeat(send.fill.count);
    body = Buffer.from(JSON.stringify(value), 'utf8');
  } else if (send.body !== undefined) {
    body = Buffer.from(send.body, 'utf8');
  } else if (send.body_hex !== undefined) {
    body = Buffer.from(send.body_hex, 'hex');
  } else if (send.body_gen?.nested_prompt) {
    const d = send.body_gen.nested_prompt;
    body = Buffer.from(`{"model":"${served_model_name}","max_tokens":1,"prompt":${'['.repeat(d)}1${']'.repeat(d)}}`);
  } else if (send.body_gen?.huge_max_tokens) {
    body = Buffer.from(`{"model":"${served_model_name}","prompt":"x","max_tokens":${'9'.repeat(send.body_gen.huge_max_tokens)}}`);
  } else if (send.body_gen?.nested_object) {
    const d = send.body_gen.nested_object;
    body = Buffer.from(`{"model":"${served_model_name}","max_tokens":1,"prompt":"x","x":${'{"a":'.repeat(d)}1${'}'.repeat(d)}}`);
  }
  const headers = { ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}), ...send.headers };
  if (send.pad_header_bytes) headers['X-Pad'] = 'p'.repeat(send.pad_header_bytes);
  return build_request(send.method, send.path, headers, body, { chunked: send.chunked });
}

// Anthropic's shape ({"type": "error", "error": {"type", "message"}}); the message starts
// with the field it names, as Anthropic's do.
function check_anthropic_error(parsed, expect, where, body) {
  assert.equal(parsed.type, 'error', `${where}: type (${body})`);
  const { error } = parsed;
  assert.equal(typeof error?.message, 'string', `${where}: error.message (${body})`);
  if (expect.error_type) assert.equal(error.type, expect.error_type, `${where}: error.type (${body})`);
  if (expect.param) assert.ok(error.message.startsWith(`${expect.param}: `), `${where}: message names ${expect.param} (${body})`);
}

function check_error_object(res, expect, where) {
  assert.match(res.headers['content-type'] ?? '', /^application\/json/, `${where}: content-type`);
  let parsed;
  assert.doesNotThrow(() => (parsed = JSON.parse(res.body)), `${where}: body is not JSON: ${res.body}`);
  if (expect.shape === 'anthropic') return check_anthropic_error(parsed, expect, where, res.body);
  const { error } = parsed;
  assert.ok(error && typeof error === 'object', `${where}: no error object: ${res.body}`);
  assert.equal(typeof error.message, 'string', `${where}: error.message`);
  assert.ok(error.message.length > 0, `${where}: empty error.message`);
  assert.equal(typeof error.type, 'string', `${where}: error.type`);
  for (const key of ['param', 'code']) assert.ok(key in error, `${where}: error.${key} missing: ${res.body}`);
  if (expect.error_type) assert.equal(error.type, expect.error_type, `${where}: error.type (${res.body})`);
  if (expect.param) assert.equal(error.param, expect.param, `${where}: error.param (${res.body})`);
  if (expect.code) assert.equal(error.code, expect.code, `${where}: error.code (${res.body})`);
}

function check_row(row, result) {
  const { expect } = row;
  const where = row.name;
  const seen = JSON.stringify({ ...result, responses: result.responses.map((r) => `${r.status} ${r.body.slice(0, 300)}`) });
  assert.ok(!result.parse_error, `${where}: unparsable answer: ${result.parse_error}`);
  if (expect.closed_within_ms !== undefined) {
    assert.ok(result.closed, `${where}: connection still open after ${expect.closed_within_ms} ms: ${seen}`);
  }
  if (expect.statuses) {
    assert.deepEqual(result.responses.map((r) => r.status), expect.statuses, `${where}: ${seen}`);
    return;
  }
  const [res] = result.responses;
  if (!res) {
    assert.ok(expect.or_closed && result.closed, `${where}: no response and ${result.closed ? 'closed' : 'not closed'}: ${seen}`);
    return;
  }
  const allowed = [expect.status].flat().filter((s) => s !== undefined);
  assert.ok(allowed.includes(res.status), `${where}: status ${res.status}, expected ${allowed.join(' or ')}: ${seen}`);
  if (res.status >= 400 && expect.json !== false) check_error_object(res, expect, where);
}

it(`the table has at least 40 rows (${rows.length})`, () => {
  assert.ok(rows.length >= 40);
  assert.equal(new Set(rows.map((r) => r.name)).size, rows.length, 'row names are unique');
});

for (const row of rows) {
  it(`${row.name}`, async () => {
    const server = servers[row.server ?? 'main'];
    const expect = row.expect;
    const result = await exchange(server.port, request_bytes(row.send), {
      num_responses: expect.statuses?.length ?? 1,
      timeout_ms: expect.closed_within_ms ?? 15000,
      wait_for_close: expect.closed_within_ms !== undefined,
    });
    check_row(row, result);
  });
}

it('after the table: /health is 200, a normal completion works, nothing is left running', async () => {
  for (const server of Object.values(servers)) {
    const ok = await exchange(server.port, Buffer.from('GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'));
    assert.equal(ok.responses[0]?.status, 200, JSON.stringify(ok));
  }
  const res = await post_json(servers.main.port, '/v1/completions', { model: served_model_name, prompt: 'still alive', max_tokens: 3 });
  assert.equal(res.status, 200, res.text);
  assert.equal(res.json.usage.prompt_tokens, completion_prompt_tokens('still alive'));
  for (const server of Object.values(servers)) {
    await wait_until_idle(server.port, 15000, server === servers.auth ? { authorization: 'Bearer secret' } : {});
  }
  for (const server of Object.values(servers)) assert.equal(server.exit, null, 'server exited');
});

it('a full waiting queue answers 429 rate_limit_error; the held requests still complete', async () => {
  const small = await start_server(binary, ['--max-num-seqs', '1', '--max-waiting-requests', '1', '--max-model-len', '4096']);
  servers.overload = small;
  const body = { model: served_model_name, prompt: 'hold', max_tokens: 300, ignore_eos: true };
  // One runs, one waits: both queues are full. Whatever the arrival order, at least one of
  // the next requests must be refused at once.
  const held = [post_json(small.port, '/v1/completions', body), post_json(small.port, '/v1/completions', body)];
  await poll_until('one running and one waiting', async () => {
    const { series } = await fetch_metrics(small.port);
    return metric_sum(series, 'pagedserve:num_requests_running') === 1 && metric_sum(series, 'pagedserve:num_requests_waiting') === 1;
  });
  const refused = await exchange(small.port, build_request('POST', '/v1/completions', { 'Content-Type': 'application/json' }, Buffer.from(JSON.stringify({ ...body, max_tokens: 1 }))));
  check_row({ name: 'overload', expect: { status: 429, error_type: 'rate_limit_error' } }, refused);
  for (const res of await Promise.all(held)) assert.equal(res.status, 200, res.text);
  await wait_until_idle(small.port);
});
