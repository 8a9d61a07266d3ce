// The web playground at `/` in a real browser (Debian's chromium, headless, through
// playwright-core): the page and its assets as web/static holds them, under 200 KB, with no
// console error; a chat whose tokens appear one WebSocket delta at a time and read exactly
// what a plain `ws` client gets for the same request; Stop cancels on the server (running
// back to 0, every KV block back); the dashboard shows /metrics (its latency percentiles are
// Prometheus's histogram_quantile of the same scrapes); chat over the Responses API keeps
// its conversation on the server and reads what chat completions gives; the settings send only what is
// filled in, a regex constrains the reply and a schema that is not JSON is named, not sent.
// Saves a screenshot of the chat and one of the dashboard (PAGEDSERVE_SCREENSHOT_DIR, else a
// temporary folder).

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, before } from 'node:test';
import { fileURLToPath } from 'node:url';

import { chromium_path, launch_browser } from './lib/browser.mjs';
import {
  binary_from_args, fetch_metrics, http_request, metric_sum, poll_until, server_test, start_server, wait_until_idle,
} from './lib/harness.mjs';
import {
  card_text, card_values, observe_replies, open_page, reply_nodes, screenshot_dir, select_tab, send_message, set_field,
  wait_connection, wait_reply,
} from './lib/playground_page.mjs';
import { open_socket, request_message, ws_collector } from './lib/ws_messages.mjs';

const binary = binary_from_args();
if (!chromium_path()) {
  console.log('skipped: no chromium (apt-get install chromium)');
  process.exit(77);
}
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const static_dir = join(root, 'web', 'static');
const shots = screenshot_dir();
let browser;
let demo; // the shipped pagedserve-demo model: readable text for the screenshot
let random; // demo-random: fast, for Stop
let board; // demo-random, only the dashboard test's requests

before(async () => {
  [browser, demo, random, board] = await Promise.all([
    launch_browser(),
    start_server(binary, ['--model', join(root, 'models', 'pagedserve-demo')]),
    start_server(binary),
    start_server(binary),
  ]);
});

after(async () => {
  await browser?.close();
  await Promise.all([demo?.stop(), random?.stop(), board?.stop()]);
});

const it = (name, fn) => server_test(name, () => [demo, random, board], fn, { timeout: 120000 });

it('the page: assets as web/static holds them, under 200 KB, nothing from elsewhere, no errors', async () => {
  const { context, page, watch } = await open_page(browser, `${random.base_url}/`);
  await wait_connection(page);
  const responses = await watch.settled_responses();
  let weight = 0;
  for (const res of responses) {
    assert.ok(res.url.startsWith(`${random.base_url}/`), `the page fetched ${res.url}`);
    assert.equal(res.status, 200, res.url);
    weight += res.body.length;
    const path = new URL(res.url).pathname;
    if (path !== '/' && !path.startsWith('/ui/')) continue; // v1/models, metrics
    const file = readFileSync(join(static_dir, path === '/' ? 'index.html' : path.slice('/ui/'.length)));
    assert.ok(res.body.equals(file), `${path} differs from web/static`);
    const sha = createHash('sha256').update(file).digest('hex');
    assert.equal(res.headers.etag, `"${sha.slice(0, 16)}"`, path);
  }
  const paint = await page.evaluate(
    () => performance.getEntriesByType('paint').find((e) => e.name === 'first-contentful-paint')?.startTime,
  );
  console.log(`page weight ${weight} bytes in ${responses.length} responses; first contentful paint ${paint?.toFixed(0)} ms`);
  assert.ok(weight < 200 * 1024, `page weight ${weight} bytes`);
  assert.equal(await page.textContent('#model-name'), 'demo-random');
  assert.deepEqual(watch.unexpected_errors(), []);
  await context.close();
});

it('chat: tokens appear one delta at a time and read what a ws client gets', async () => {
  const { context, page, watch } = await open_page(browser, `${demo.base_url}/`);
  await wait_connection(page);
  await set_field(page, 'temperature', 0);
  await set_field(page, 'max_tokens', 60);
  await observe_replies(page);
  await send_message(page, 'Tell me a story about a small robot.');
  const first = await wait_reply(page, ['done']);
  const request = watch.sent('chat.completion')[0];
  const deltas = watch.received(request.id).filter((m) => m.type === 'delta' && m.text);
  const done = watch.received(request.id).find((m) => m.type === 'done');
  const nodes = await reply_nodes(page);
  assert.ok(deltas.length > 1, `${deltas.length} deltas`);
  // One DOM node per delta, in order, each added while the reply was still streaming, in
  // several observer callbacks (so not painted once at the end).
  assert.deepEqual(nodes.map((n) => n.text), deltas.map((d) => d.text));
  assert.ok(nodes.every((n) => n.state === 'streaming'));
  assert.ok(new Set(nodes.map((n) => n.batch)).size > 1, 'all nodes in one mutation batch');
  assert.equal(first.text, deltas.map((d) => d.text).join(''));
  assert.equal(first.status, `${done.finish_reason}, ${done.usage.completion_tokens} tokens`);

  // The same request from a plain client (greedy): the same text.
  const ws = await open_socket(demo.port);
  const reference = new ws_collector(ws);
  const { id: _id, type: _type, ...fields } = request;
  ws.send(request_message('reference', 'chat', fields));
  assert.equal((await reference.wait_final('reference')).type, 'done');
  ws.close();
  assert.equal(first.text, reference.text('reference'));

  // A second turn sends the history, the first reply included; with top logprobs asked for,
  // each delta is a span whose tooltip lists its tokens' logprobs and alternatives.
  await set_field(page, 'top_logprobs', 2);
  await send_message(page, 'And then what happened?');
  await wait_reply(page, ['done']);
  const second = watch.sent('chat.completion')[1];
  assert.deepEqual(second.messages.map((m) => m.role), ['user', 'assistant', 'user']);
  assert.equal(second.messages[1].content, first.text);
  assert.equal(second.logprobs, true);
  assert.equal(second.top_logprobs, 2);
  const lines = (await page.$$eval('#transcript .message.assistant:last-of-type .token', (nodes) => nodes.map((n) => n.title)))
    .flatMap((title) => title.split('\n'));
  const logprobs = watch.received(second.id).filter((m) => m.type === 'delta').flatMap((m) => m.logprobs ?? []);
  assert.ok(logprobs.length > 0);
  assert.deepEqual(lines.map((line) => line.replace(/ \(top: .*\)$/, '')), logprobs.map((l) => `${l.token_id}: ${l.logprob.toFixed(3)}`));
  assert.ok(lines.every((line) => / \(top: \d+ -?\d+\.\d\d, \d+ -?\d+\.\d\d\)$/.test(line)), lines[0]);
  await page.$eval('#settings', (form) => form.scrollTo(0, 0)); // filling top_logprobs scrolled it
  await page.screenshot({ path: join(shots, 'playground-chat.png') });
  console.log(`screenshot: ${join(shots, 'playground-chat.png')}`);
  assert.deepEqual(watch.unexpected_errors(), []);
  await context.close();
});

it('chat over the Responses API: the server keeps the conversation; the reply is v1/responses\'s', async () => {
  const { context, page, watch } = await open_page(browser, `${demo.base_url}/`);
  await wait_connection(page);
  await page.selectOption('#settings [name="api"]', 'responses');
  await set_field(page, 'temperature', 0);
  await set_field(page, 'max_tokens', 24);
  const bodies = [];
  page.on('request', (r) => r.url().endsWith('/v1/responses') && bodies.push(JSON.parse(r.postData())));
  await send_message(page, 'Tell me a story about a small robot.');
  const first = await wait_reply(page, ['done']);
  await send_message(page, 'And then what happened?');
  const second = await wait_reply(page, ['done']);
  assert.equal(bodies.length, 2);
  assert.equal(bodies[0].input, 'Tell me a story about a small robot.');
  assert.equal(bodies[0].max_output_tokens, 24);
  assert.equal(bodies[0].previous_response_id, undefined);
  assert.match(bodies[1].previous_response_id, /^resp_/);
  assert.equal(bodies[1].input, 'And then what happened?');
  assert.equal(watch.sent('chat.completion').length, 0, 'nothing went over the WebSocket');
  // The reference: chat completions with the whole conversation, from a plain client.
  const reference = async (messages) => {
    const res = await http_request(demo.port, 'POST', '/v1/chat/completions', {
      body: { messages, temperature: 0, max_tokens: 24 },
    });
    return res.json.choices[0].message.content;
  };
  const turn1 = [{ role: 'user', content: 'Tell me a story about a small robot.' }];
  assert.equal(first.text, await reference(turn1));
  assert.equal(second.text, await reference([...turn1, { role: 'assistant', content: first.text }, { role: 'user', content: 'And then what happened?' }]));
  assert.match(second.status, /tokens$/);
  assert.deepEqual(watch.unexpected_errors(), []);
  await context.close();
});

it('Stop cancels the request on the server: running back to 0, every KV block back', async () => {
  const before_stop = (await fetch_metrics(random.port)).series;
  const aborted = (s) => metric_sum(s, 'pagedserve:request_success_total', (l) => l.includes('finished_reason="abort"')) ?? 0;
  const { context, page, watch } = await open_page(browser, `${random.base_url}/`);
  await wait_connection(page);
  // demo-random's longest reply (max_model_len 2048): seconds of streaming on this machine.
  await set_field(page, 'max_tokens', 2000);
  await set_field(page, 'ignore_eos', true);
  // Stop is clicked by the page itself the moment the third delta is shown: a click from here
  // could arrive after demo-random's 2000 tokens (about 4 s) are all there.
  await page.evaluate(() => {
    const observer = new MutationObserver(() => {
      if (document.querySelector('#transcript .generated')?.childNodes.length >= 3) {
        observer.disconnect();
        document.getElementById('stop').click();
      }
    });
    observer.observe(document.getElementById('transcript'), { childList: true, subtree: true });
  });
  await send_message(page, 'Go');
  const reply = await wait_reply(page, ['stopped', 'done']);
  assert.equal(reply.state, 'stopped', reply.status);
  const tokens = Number(/^stopped, (\d+) tokens$/.exec(reply.status)?.[1]);
  assert.ok(tokens >= 3 && tokens < 2000, reply.status);
  const id = watch.sent('chat.completion')[0].id;
  assert.deepEqual(watch.sent('cancel'), [{ type: 'cancel', id }]);
  const after_stop = await wait_until_idle(random.port);
  assert.equal(aborted(after_stop), aborted(before_stop) + 1);
  assert.equal(await page.isDisabled('#send'), false);
  assert.deepEqual(watch.unexpected_errors(), []);
  await context.close();
});

// Prometheus's histogram_quantile (promql/quantile.go) of the buckets of `name` observed
// between two scrapes: rank q * count, the first bucket whose cumulative count reaches it,
// linear interpolation from the bucket below (0 under the first); +Inf gives the highest
// finite bound. null without observations.
function reference_quantile(q, later, earlier, name) {
  const buckets = new Map();
  const add = (series, sign) => {
    for (const [key, value] of series) {
      const m = new RegExp(`^${name}_bucket\\{.*le="([^"]+)"`).exec(key);
      if (!m) continue;
      const le = m[1] === '+Inf' ? Infinity : Number(m[1]);
      buckets.set(le, (buckets.get(le) ?? 0) + sign * value);
    }
  };
  add(later, 1);
  add(earlier, -1);
  const sorted = [...buckets].sort((a, b) => a[0] - b[0]);
  const total = sorted.at(-1)[1];
  if (total === 0) return null;
  const rank = q * total;
  const i = sorted.findIndex(([, count]) => count >= rank);
  if (sorted[i][0] === Infinity) return sorted[i - 1][0];
  const [lower, below] = i === 0 ? [0, 0] : sorted[i - 1];
  return lower + ((sorted[i][0] - lower) * (rank - below)) / (sorted[i][1] - below);
}

it('the dashboard shows /metrics: load while a request runs, percentiles of the same scrapes', async () => {
  const { context, page, watch } = await open_page(browser, `${board.base_url}/`);
  await wait_connection(page);
  await select_tab(page, 'dashboard');
  await page.waitForFunction(() => document.querySelector('[data-card="requests"] .value').dataset.values);
  const start = (await fetch_metrics(board.port)).series; // what the page's first scrape saw

  const ws = await open_socket(board.port);
  const client = new ws_collector(ws);
  ws.send(request_message('long', 'completion', { prompt: 'Go', max_tokens: 2000, ignore_eos: true }));
  await poll_until('the dashboard to show the running request', async () => {
    const v = await card_values(page);
    return v.requests[0] === 1 && v.kv_cache[0] > 0 && v.tokens[0] > 0;
  });
  ws.send(JSON.stringify({ type: 'cancel', id: 'long' }));
  await client.wait_final('long');
  // Four prompts that share their first 48 tokens (three KV blocks, bytes for demo-random):
  // after the first, the others find them in the prefix cache.
  const prefix = 'A shared opening line that spans three KV blocks. ';
  ws.send(request_message('a', 'completion', { prompt: `${prefix}a`, max_tokens: 16 }));
  await client.wait_final('a');
  for (const id of ['b', 'c', 'd']) ws.send(request_message(id, 'completion', { prompt: `${prefix}${id}`, max_tokens: 32 }));
  await Promise.all(['b', 'c', 'd'].map((id) => client.wait_final(id)));
  ws.close();
  const end = await wait_until_idle(board.port);

  const expected = (name) => [0.5, 0.9, 0.99].map((q) => reference_quantile(q, end, start, `pagedserve:${name}`));
  const close = (a, b) => a.every((x, i) => (x === null ? b[i] === null : Math.abs(x - b[i]) <= 1e-9 * Math.max(1, Math.abs(x))));
  let seen;
  await poll_until('the dashboard to show the idle server and the percentiles', async () => {
    seen = await card_values(page);
    return seen.requests[0] === 0 && seen.requests[1] === 0 && seen.kv_cache[0] === 0 &&
      close(expected('time_to_first_token_seconds'), seen.ttft) && close(expected('inter_token_latency_seconds'), seen.itl);
  }).catch((err) => {
    throw new Error(`${err.message}\nexpected ttft ${expected('time_to_first_token_seconds')}, itl ${expected('inter_token_latency_seconds')}; saw ${JSON.stringify(seen)}`);
  });
  const queries = metric_sum(end, 'pagedserve:prefix_cache_queries_total');
  const hits = metric_sum(end, 'pagedserve:prefix_cache_hits_total');
  assert.ok(hits > 0, 'no prefix cache hit to show');
  assert.equal(await card_text(page, 'prefix_cache'), `${((100 * hits) / queries).toFixed(1)}% since start`);
  assert.equal(await page.isHidden('#dashboard-error'), true);
  await page.screenshot({ path: join(shots, 'playground-dashboard.png') });
  console.log(`screenshot: ${join(shots, 'playground-dashboard.png')}`);
  assert.deepEqual(watch.unexpected_errors(), []);
  await context.close();
});

it('settings: empty fields are not sent, a regex constrains the reply, a bad schema is named', async () => {
  const { context, page, watch } = await open_page(browser, `${random.base_url}/`);
  await wait_connection(page);
  await page.selectOption('#settings [name="format"]', 'json_schema');
  await set_field(page, 'format_detail', '{"type": "object",');
  await send_message(page, 'Answer');
  await page.waitForSelector('#settings-error:not([hidden])');
  assert.match(await page.textContent('#settings-error'), /^the JSON schema is not JSON: /);
  assert.deepEqual(watch.sent('chat.completion'), []);

  await page.selectOption('#settings [name="format"]', 'regex');
  await set_field(page, 'format_detail', '(yes|no)');
  await set_field(page, 'max_tokens', 16);
  await send_message(page, 'Answer');
  const reply = await wait_reply(page, ['done', 'error']);
  assert.match(reply.text, /^(yes|no)$/, reply.status);
  assert.equal(await page.isHidden('#settings-error'), true);
  const request = watch.sent('chat.completion')[0];
  assert.deepEqual(Object.keys(request).sort(), ['id', 'max_tokens', 'messages', 'model', 'structured_outputs', 'type']);
  assert.deepEqual(request.structured_outputs, { regex: '(yes|no)' });
  assert.deepEqual(watch.unexpected_errors(), []);
  await context.close();
});

it('GET / answers 304 to a matching If-None-Match', async () => {
  const page = await http_request(random.port, 'GET', '/');
  const again = await http_request(random.port, 'GET', '/', { headers: { 'if-none-match': page.headers.etag } });
  assert.equal(again.status, 304);
  assert.equal(again.text, '');
  assert.match(page.headers['content-security-policy'], /default-src 'self'/);
});
