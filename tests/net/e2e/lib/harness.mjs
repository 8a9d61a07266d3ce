// Shared pieces of the end-to-end tests: the `--binary` argument, a `pagedserve serve` child
// process on a free port, polling with deadlines (never fixed sleeps), Prometheus text
// parsing and small HTTP helpers. Every test file starts its own servers and stops them in
// an `after` hook; a failing case carries the tail of the server's log in its message.

import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { test } from 'node:test';

// The servers run the random demo model (byte-level tokenizer, vocabulary 512): these tests
// check the protocol, and its token counts are bytes.
export const served_model_name = 'demo-random';

// The demo tokenizer (runtime/tokenizer/demo_tokenizer.h) is byte-level: one token per UTF-8
// byte, BOS (id 1) added to completion prompts; ChatML specials are one token each.
export const bos_id = 1;
export const vocab_size = 512;
export function completion_prompt_tokens(text) {
  return 1 + Buffer.byteLength(text, 'utf8');
}
// <|im_start|>role\ncontent<|im_end|>\n per message, then <|im_start|>assistant\n; no BOS
// (chat prompts are tokenized without special tokens, as vLLM does).
export function chat_prompt_tokens(messages) {
  let n = 0;
  for (const m of messages) n += 1 + Buffer.byteLength(`${m.role}\n${m.content}`) + 1 + 1;
  return n + 1 + Buffer.byteLength('assistant\n');
}

export function binary_from_args(argv = process.argv) {
  const i = argv.indexOf('--binary');
  const path = i >= 0 ? argv[i + 1] : process.env.PAGEDSERVE_BINARY;
  if (!path) {
    console.error('usage: node <test>.mjs --binary <path to pagedserve>');
    process.exit(2);
  }
  return path;
}

// Resolves when check() returns a truthy value; rejects with `what` and the last value seen
// once timeout_ms has passed. Polls every interval_ms (a poll, not a sleep: the condition is
// what ends the wait).
export async function poll_until(what, check, { timeout_ms = 10000, interval_ms = 25 } = {}) {
  const deadline = Date.now() + timeout_ms;
  let last;
  for (;;) {
    try {
      last = await check();
      if (last) return last;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) {
      const seen = last instanceof Error ? last.message : JSON.stringify(last);
      throw new Error(`timed out after ${timeout_ms} ms waiting for ${what} (last: ${seen})`);
    }
    await new Promise((resolve) => setTimeout(resolve, interval_ms));
  }
}

// Rejects after ms unless promise settles first.
export function with_deadline(promise, ms, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

const max_log_chars = 256 * 1024;

// One `pagedserve serve --port <port> ...` child (ready once it logs "listening on
// http://HOST:PORT"), or with command 'engine' one `pagedserve engine --publish
// 127.0.0.1:<port> ...` (ready once it prints "published on HOST:PORT"; `port` is then the
// published one). args: the flags after those; port 0 (the default) lets the kernel pick a
// free one, a restart passes the old one.
export class server_process {
  constructor(binary, args = [], { env = {}, startup_timeout_ms = 60000, port = 0, command = 'serve' } = {}) {
    this.binary = binary;
    const model = args.includes('--model') ? [] : ['--model', 'demo-random'];
    this.args =
      command === 'engine'
        ? ['engine', '--publish', `127.0.0.1:${port}`, ...model, ...args]
        : ['serve', '--port', String(port), ...model, ...args];
    this.ready_line = command === 'engine' ? /published on [^\s]+:(\d+)/ : /listening on http:\/\/[^:\s]+:(\d+)/;
    this.env = env;
    this.startup_timeout_ms = startup_timeout_ms;
    this.log = '';
    this.port = 0;
    this.exit = null; // {code, signal} once exited
  }

  get pid() {
    return this.proc.pid;
  }
  get base_url() {
    return `http://127.0.0.1:${this.port}`;
  }

  log_tail(chars = 6000) {
    return this.log.length > chars ? '...' + this.log.slice(-chars) : this.log;
  }

  async start() {
    this.proc = spawn(this.binary, this.args, {
      env: { ...process.env, ...this.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.exited = new Promise((resolve) => {
      // 'close', not 'exit': by then stdout and stderr are drained into the log.
      this.proc.on('close', (code, signal) => {
        this.exit = { code, signal };
        resolve(this.exit);
      });
    });
    this.spawn_error = new Promise((resolve) => this.proc.on('error', resolve));
    const append = (chunk) => {
      this.log += chunk.toString('utf8');
      if (this.log.length > 2 * max_log_chars) this.log = this.log.slice(-max_log_chars);
    };
    this.proc.stdout.on('data', append);
    this.proc.stderr.on('data', append);
    const listening = poll_until(
      `the line ${this.ready_line}`,
      () => {
        if (this.exit) return -1; // exited_early reports it
        const m = this.ready_line.exec(this.log);
        return m ? Number(m[1]) : 0;
      },
      { timeout_ms: this.startup_timeout_ms, interval_ms: 20 },
    );
    const failed = this.spawn_error.then((err) => {
      throw new Error(`cannot spawn ${this.binary}: ${err.message}`);
    });
    const exited_early = this.exited.then((exit) => {
      throw new Error(`server exited before listening: ${JSON.stringify(exit)}`);
    });
    // The losers of the race settle later (or never): mark them handled.
    for (const p of [listening, failed, exited_early]) p.catch(() => {});
    try {
      this.port = await Promise.race([listening, failed, exited_early]);
    } catch (err) {
      await this.stop();
      throw new Error(`${err.message}\n--- server log ---\n${this.log_tail()}`);
    }
    return this;
  }

  // SIGTERM, then SIGKILL if it has not exited within grace_ms. Returns the exit record.
  async stop(grace_ms = 15000) {
    if (!this.proc || this.exit) return this.exit;
    this.proc.kill('SIGTERM');
    let timer;
    const killed = new Promise((resolve) => {
      timer = setTimeout(() => {
        if (!this.exit) this.proc.kill('SIGKILL');
        resolve();
      }, grace_ms);
    });
    await Promise.race([this.exited, killed]);
    clearTimeout(timer);
    return this.exited;
  }

  // VmRSS and VmHWM of the server process in KiB (Linux /proc).
  memory_kib() {
    const status = readFileSync(`/proc/${this.proc.pid}/status`, 'utf8');
    const field = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)[1]);
    return { rss: field('VmRSS'), hwm: field('VmHWM') };
  }
}

export async function start_server(binary, args = [], options = {}) {
  return new server_process(binary, args, options).start();
}

// test() whose failures carry the servers' log tails.
export function server_test(name, servers, fn, options = {}) {
  return test(name, { timeout: 60000, ...options }, async (t) => {
    try {
      await fn(t);
    } catch (err) {
      const logs = servers()
        .filter(Boolean)
        .map((s) => `--- server log (port ${s.port}) ---\n${s.log_tail()}`)
        .join('\n');
      if (err && typeof err === 'object') {
        try {
          err.message = `${err.message}\n${logs}`;
        } catch {
          throw new Error(`${String(err)}\n${logs}`);
        }
      }
      throw err;
    }
  });
}

// A plain HTTP request with node:http, a fresh connection each time. Returns
// {status, headers, text, json}.
export function http_request(port, method, path, { body, headers = {}, timeout_ms = 30000 } = {}) {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        agent: false,
        headers: {
          ...(payload !== undefined ? { 'content-type': 'application/json' } : {}),
          ...headers,
        },
      },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode, headers: res.headers, text, json });
        });
      },
    );
    req.setTimeout(timeout_ms, () => req.destroy(new Error(`${method} ${path}: no answer in ${timeout_ms} ms`)));
    req.on('error', reject);
    if (payload !== undefined) req.write(payload);
    req.end();
  });
}

export async function post_json(port, path, body, headers = {}) {
  return http_request(port, 'POST', path, { body, headers });
}

// Prometheus text format → Map(series "name{labels}" → value) plus helpers to read a
// family's value summed over its label sets.
export function parse_metrics(text) {
  const series = new Map();
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?\s+(\S+)/.exec(line);
    if (!m) throw new Error(`unparsable metrics line: ${line}`);
    series.set(m[1] + (m[2] ?? ''), Number(m[3]));
  }
  return series;
}

export function metric_sum(series, name, label_filter = () => true) {
  let found = false;
  let total = 0;
  for (const [key, value] of series) {
    const brace = key.indexOf('{');
    const family = brace < 0 ? key : key.slice(0, brace);
    const labels = brace < 0 ? '' : key.slice(brace);
    if (family === name && label_filter(labels)) {
      found = true;
      total += value;
    }
  }
  return found ? total : undefined;
}

// headers: the Authorization a server with an api_key needs for /metrics.
export async function fetch_metrics(port, headers = {}) {
  const res = await http_request(port, 'GET', '/metrics', { headers });
  if (res.status !== 200) throw new Error(`/metrics answered ${res.status}: ${res.text}`);
  return { text: res.text, series: parse_metrics(res.text), headers: res.headers };
}

// Waits until no request runs or waits and every KV block is back in the pool; returns the
// metrics seen then.
export async function wait_until_idle(port, timeout_ms = 15000, headers = {}) {
  let state = {};
  try {
    return await poll_until(
      'the server to go idle',
      async () => {
        const { series } = await fetch_metrics(port, headers);
        state = {
          running: metric_sum(series, 'pagedserve:num_requests_running'),
          waiting: metric_sum(series, 'pagedserve:num_requests_waiting'),
          kv_usage: metric_sum(series, 'pagedserve:kv_cache_usage_perc'),
        };
        return state.running === 0 && state.waiting === 0 && state.kv_usage === 0 ? series : null;
      },
      { timeout_ms, interval_ms: 50 },
    );
  } catch (err) {
    throw new Error(`${err.message}; expected running 0, waiting 0, kv usage 0, saw ${JSON.stringify(state)}`);
  }
}

// Reads an SSE response body (a node:http IncomingMessage or raw text) into data payloads.
export function parse_sse(text) {
  const events = [];
  for (const line of text.split('\n')) {
    const l = line.replace(/\r$/, '');
    if (l === '') continue;
    if (!l.startsWith('data: ')) throw new Error(`SSE line without "data: ": ${JSON.stringify(l)}`);
    events.push(l.slice('data: '.length));
  }
  return events;
}

// Percentile (nearest rank) of a numeric array.
export function percentile(values, p) {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank];
}
