// The /v1/stream WebSocket protocol as docs/websocket.md defines it, in one place: building
// client messages and reading server messages. Requests carry a client-chosen id; the
// server answers each with delta messages, then exactly one done (with usage) or error.

import WebSocket from 'ws';

import { with_deadline } from './harness.mjs';

// kind: "completion" (the /v1/completions fields) or "chat" (the /v1/chat/completions ones).
export function request_message(id, kind, fields) {
  return JSON.stringify({ type: kind === 'chat' ? 'chat.completion' : 'completion', id, ...fields });
}

export function cancel_message(id) {
  return JSON.stringify({ type: 'cancel', id });
}

// A server message as {type: "delta" | "done" | "error" | other, id, text, finish_reason,
// usage, error, raw}.
export function read_message(data) {
  const raw = JSON.parse(data.toString('utf8'));
  return {
    type: raw.type,
    id: raw.id,
    text: raw.text ?? raw.delta ?? '',
    finish_reason: raw.finish_reason,
    usage: raw.usage,
    error: raw.error,
    raw,
  };
}

export async function open_socket(port, headers = {}) {
  const ws = new WebSocket(`ws://127.0.0.1:${port}/v1/stream`, { headers });
  await with_deadline(
    new Promise((resolve, reject) => {
      ws.once('open', resolve);
      ws.once('error', reject);
      ws.once('unexpected-response', (_req, res) => reject(new Error(`upgrade refused: ${res.statusCode}`)));
    }),
    10000,
    'websocket open',
  );
  return ws;
}

// Collects every message per request id; resolves waiters when a request is done/errored.
export class ws_collector {
  constructor(ws) {
    this.ws = ws;
    this.by_id = new Map();
    this.order = []; // ids in arrival order, one entry per message
    this.unrouted = []; // messages without an id (connection-level errors)
    this.closed = null;
    this.waiters = [];
    ws.on('message', (data) => {
      const msg = read_message(data);
      if (msg.id === undefined || msg.id === null || msg.id === '') this.unrouted.push(msg);
      else {
        if (!this.by_id.has(msg.id)) this.by_id.set(msg.id, []);
        this.by_id.get(msg.id).push(msg);
        this.order.push(msg.id);
      }
      this.notify();
    });
    ws.on('close', (code, reason) => {
      this.closed = { code, reason: reason.toString() };
      this.notify();
    });
    ws.on('error', () => {});
  }

  notify() {
    for (const w of [...this.waiters]) w();
  }

  final(id) {
    return (this.by_id.get(id) ?? []).find((m) => m.type === 'done' || m.type === 'error');
  }

  messages(id) {
    return this.by_id.get(id) ?? [];
  }

  text(id) {
    return this.messages(id)
      .filter((m) => m.type === 'delta')
      .map((m) => m.text)
      .join('');
  }

  // Resolves with the final message of `id`; rejects if the socket closes first.
  wait_final(id, timeout_ms = 30000) {
    return this.wait_for(`request ${id} to finish`, () => this.final(id), timeout_ms);
  }

  wait_for(what, check, timeout_ms = 30000) {
    return with_deadline(
      new Promise((resolve, reject) => {
        const poke = () => {
          const v = check();
          if (v) {
            this.waiters = this.waiters.filter((w) => w !== poke);
            resolve(v);
          } else if (this.closed) {
            this.waiters = this.waiters.filter((w) => w !== poke);
            reject(new Error(`socket closed (${JSON.stringify(this.closed)}) before ${what}`));
          }
        };
        this.waiters.push(poke);
        poke();
      }),
      timeout_ms,
      what,
    );
  }
}
