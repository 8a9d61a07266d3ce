// How the playground reaches the server, in a real browser (Debian's chromium, headless,
// through playwright-core): with an api_key the page loads, asks for the key, shows the
// server's error for a wrong one and works with the right one (the WebSocket carries it as a
// subprotocol); under a path prefix behind a reverse proxy every URL stays inside the
// prefix; after a server restart on the same port the page reconnects by itself; a tab
// whose reader is stalled meets the WebSocket's backpressure and the server stays bounded.

import assert from 'node:assert/strict';
import { after, before } from 'node:test';

import WebSocket from 'ws';

import { chromium_path, launch_browser } from './lib/browser.mjs';
import {
  binary_from_args, fetch_metrics, http_request, metric_sum, poll_until, server_process, server_test, start_server, wait_until_idle,
} from './lib/harness.mjs';
import { open_page, select_tab, send_message, set_field, wait_connection, wait_reply } from './lib/playground_page.mjs';
import { prefix_proxy } from './lib/prefix_proxy.mjs';

const binary = binary_from_args();
if (!chromium_path()) {
  console.log('skipped: no chromium (apt-get install chromium)');
  process.exit(77);
}
let browser;
let keyed; // --api-key secret
let plain;
let proxy; // /pfx/ -> plain
let restarted; // started, stopped and started again on the same port by its test

before(async () => {
  [browser, keyed, plain] = await Promise.all([
    launch_browser(),
    start_server(binary, ['--api-key', 'secret']),
    start_server(binary),
  ]);
  proxy = await new prefix_proxy('/pfx/', plain.port).start();
});

after(async () => {
  await browser?.close();
  await proxy?.stop();
  await Promise.all([keyed?.stop(), plain?.stop(), restarted?.stop()]);
});

// Under ASan the whole file took 113 s in CI (the backpressure case most of it).
const it = (name, fn) => server_test(name, () => [keyed, plain, restarted], fn, { timeout: 240000 });

// Chrome logs each refused fetch or WebSocket as a console error; these tests expect some.
const refused_fetch = /Failed to load resource: the server responded with a status of 401/;
const unreachable = [/ERR_CONNECTION_REFUSED/, /WebSocket connection to .* failed/, /Failed to fetch/];

function key_hex(key) {
  return Buffer.from(key, 'utf8').toString('hex');
}

// Opens ws://.../v1/stream offering `protocols`; resolves {status} for a refused upgrade or
// {protocol} for an accepted one.
function try_upgrade(port, protocols) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/v1/stream`, protocols);
    ws.once('open', () => {
      resolve({ protocol: ws.protocol });
      ws.close();
    });
    ws.once('unexpected-response', (_req, res) => resolve({ status: res.statusCode }));
    ws.once('error', reject);
  });
}

it('api key: the page asks for it, shows the error for a wrong one, works with the right one', async () => {
  for (const [path, status] of [['/', 200], ['/ui/main.js', 200], ['/health', 200], ['/metrics', 401],
    ['/version', 401], ['/v1/models', 401]]) {
    assert.equal((await http_request(keyed.port, 'GET', path)).status, status, path);
  }
  assert.deepEqual(await try_upgrade(keyed.port, ['pagedserve', `pagedserve.api-key.${key_hex('secret')}`]), { protocol: 'pagedserve' });
  assert.deepEqual(await try_upgrade(keyed.port, ['pagedserve', `pagedserve.api-key.${key_hex('wrong')}`]), { status: 401 });
  assert.deepEqual(await try_upgrade(keyed.port, ['pagedserve']), { status: 401 });

  const { context, page, watch } = await open_page(browser, `${keyed.base_url}/`);
  await page.waitForSelector('#key-dialog[open]');
  await wait_connection(page, 'unauthorized');
  await page.fill('#key-input', 'wrong');
  await page.click('#key-form [type="submit"]');
  await page.waitForFunction(() => document.getElementById('key-error').textContent === 'invalid API key' &&
    document.getElementById('key-dialog').open);
  await page.fill('#key-input', 'secret');
  await page.click('#key-form [type="submit"]');
  await wait_connection(page);
  assert.equal(await page.isVisible('#key-dialog'), false);
  assert.equal(await page.textContent('#model-name'), 'demo-random');
  await set_field(page, 'max_tokens', 8);
  await send_message(page, 'Hi');
  assert.equal((await wait_reply(page, ['done', 'error'])).state, 'done');
  await select_tab(page, 'dashboard');
  await page.waitForFunction(() => document.querySelector('[data-card="requests"] .value').dataset.values);
  assert.equal(await page.isHidden('#dashboard-error'), true);
  assert.deepEqual(watch.unexpected_errors([refused_fetch]), []);
  await context.close();
});

it('under a path prefix behind a proxy every URL stays inside the prefix', async () => {
  const { context, page, watch } = await open_page(browser, proxy.base_url);
  await wait_connection(page);
  await select_tab(page, 'completion');
  await set_field(page, 'max_tokens', 16);
  await set_field(page, 'top_logprobs', 1);
  await send_message(page, 'Once');
  assert.equal((await wait_reply(page, ['done', 'error'])).state, 'done');
  const request = watch.sent('completion')[0];
  assert.equal(request.prompt, 'Once');
  assert.equal(request.logprobs, 1); // OpenAI's completions shape: logprobs is the count
  // demo-random's bytes may end a delta inside a UTF-8 character (logprobs, no text yet) and
  // a later delta may bring the held text alone: every token's logprob still shows once, in
  // order, in the tooltip of the next span with text (or the last one).
  const deltas = watch.received(request.id).filter((m) => m.type === 'delta');
  const tooltips = await page.$$eval('#transcript .message.completion .token', (nodes) => nodes.map((n) => n.title));
  if (tooltips.length) {
    const shown = tooltips.flatMap((t) => t.split('\n')).map((line) => Number(line.split(':')[0]));
    assert.deepEqual(shown, deltas.flatMap((m) => (m.logprobs ?? []).map((l) => l.token_id)));
  }
  await select_tab(page, 'dashboard');
  await page.waitForFunction(() => document.querySelector('[data-card="requests"] .value').dataset.values);
  assert.deepEqual(proxy.outside, []);
  for (const path of ['/pfx/', '/pfx/ui/main.js', '/pfx/v1/models', '/pfx/v1/stream', '/pfx/metrics']) {
    assert.ok(proxy.seen.includes(path), `${path} not among ${JSON.stringify(proxy.seen)}`);
  }
  assert.deepEqual(watch.unexpected_errors(), []);
  await context.close();
});

it('after a server restart on the same port the page reconnects and works', async () => {
  restarted = await start_server(binary);
  const port = restarted.port;
  const { context, page, watch } = await open_page(browser, `${restarted.base_url}/`);
  await wait_connection(page);
  await restarted.stop();
  await page.waitForFunction(() => document.getElementById('connection').dataset.state !== 'connected');
  restarted = await new server_process(binary, [], { port }).start();
  await wait_connection(page, 'connected', 30000);
  await set_field(page, 'max_tokens', 8);
  await send_message(page, 'Back');
  assert.equal((await wait_reply(page, ['done', 'error'])).state, 'done');
  assert.deepEqual(watch.unexpected_errors(unreachable), []);
  await context.close();
});

// In the page: a stream_connection of the page's own ui/stream.js carrying `requests`
// completions of 16 choices with 20 top logprobs each (about 1 KB per choice per step), its
// bytes, errors and finished ids in window.load.
async function start_load(page, requests) {
  await page.evaluate(async (count) => {
    const { stream_connection } = await import(new URL('ui/stream.js', document.baseURI));
    const load = { bytes: 0, errors: [], done: [], ids: [] };
    window.load = load;
    load.connection = new stream_connection({ on_state: () => {}, before_connect: async () => '' });
    load.connection.connect();
    while (!load.connection.connected) await new Promise((resolve) => setTimeout(resolve, 10));
    for (let i = 0; i < count; i++) {
      const body = { prompt: 'Go', max_tokens: 1000, n: 16, logprobs: 20, ignore_eos: true };
      load.ids.push(load.connection.start('completion', body, {
        on_delta: (m) => (load.bytes += JSON.stringify(m).length),
        on_done: (m) => load.done.push(m.id),
        on_error: (e) => load.errors.push(e),
      }));
    }
  }, requests);
}

const load_state = (page) => page.evaluate(() => ({ bytes: window.load.bytes, errors: window.load.errors, done: window.load.done }));

it('a tab that stops reading meets the WebSocket backpressure; one that reads does not', async () => {
  const requests = 8; // 128 sequences
  const aborted = async () => metric_sum((await fetch_metrics(plain.port)).series, 'pagedserve:request_success_total', (l) => l.includes('"abort"')) ?? 0;
  const { context, page, watch } = await open_page(browser, `${plain.base_url}/`);
  await wait_connection(page);
  const aborted_before = await aborted();
  await start_load(page, requests);
  // The main thread stalls in synchronous requests for /metrics (no WebSocket event runs
  // meanwhile) until the server has cancelled all 128 sequences: the tab's buffers and the
  // kernel's filled and the server's send queue passed ws_max_send_queue_bytes (1 MiB), or,
  // where those buffers hold more than the server makes in twice ws_ping_interval_s (40 s),
  // the unanswered pings closed the connection first. Either way the server holds no more.
  const stalled = await page.evaluate((target) => {
    const start = Date.now();
    for (;;) {
      const xhr = new XMLHttpRequest();
      xhr.open('GET', new URL('metrics', document.baseURI), false);
      xhr.send();
      const abort = xhr.responseText.split('\n').filter((l) => l.startsWith('pagedserve:request_success_total{') && l.includes('"abort"'))
        .reduce((sum, l) => sum + Number(l.split(' ').pop()), 0);
      if (abort >= target) return { ms: Date.now() - start };
      if (Date.now() - start > 90000) return { ms: Date.now() - start, timed_out: true };
    }
  }, aborted_before + 16 * requests);
  assert.ok(!stalled.timed_out, 'the server never cut the stalled tab off');
  const cut = await poll_until('the errors to reach the tab', async () => {
    const state = await load_state(page);
    return state.errors.length === requests ? state : null;
  }, { timeout_ms: 30000 });
  const by_queue = cut.errors.every((e) => e.type === 'backpressure' && /client reads too slowly/.test(e.message));
  const by_ping = cut.errors.every((e) => e.type === 'connection_lost');
  assert.ok(by_queue || by_ping, JSON.stringify(cut.errors));
  console.log(`stalled tab: cut off by ${by_queue ? 'the send queue bound' : 'the ping timeout'} after ${stalled.ms} ms, ` +
    `${cut.bytes} bytes of deltas delivered late`);
  await wait_until_idle(plain.port);
  // The connection stays open (after the ping timeout, the page reconnects): the next
  // request completes.
  const next = await page.evaluate(async () => {
    while (!window.load.connection.connected) await new Promise((resolve) => setTimeout(resolve, 10));
    return new Promise((resolve) => {
      window.load.connection.start('completion', { prompt: 'Go', max_tokens: 4 }, { on_delta: () => {}, on_done: (m) => resolve(m.finish_reason), on_error: (e) => resolve(e.type) });
    });
  });
  assert.equal(next, 'length');
  await page.evaluate(() => window.load.connection.close());

  // The same load in a tab that reads: twice those bytes (16 MiB at most) and no error.
  const target = Math.min(2 * cut.bytes, 16 * 1024 * 1024);
  await start_load(page, requests);
  await poll_until(`a reading tab to receive ${target} bytes`, async () => {
    const state = await load_state(page);
    assert.deepEqual(state.errors, []);
    return state.bytes > target;
  }, { timeout_ms: 150000 });
  await page.evaluate(() => window.load.ids.forEach((id) => window.load.connection.cancel(id)));
  await wait_until_idle(plain.port);
  assert.deepEqual((await load_state(page)).errors.filter((e) => e.type === 'backpressure'), []);
  assert.deepEqual(watch.unexpected_errors(), []);
  await context.close();
});
