// One WebSocket to /v1/stream (docs/websocket.md) that carries every request of the page,
// each under its own id; reconnects with backoff when the server goes away. A browser cannot
// send an Authorization header on a WebSocket, so the key travels as the subprotocol
// "pagedserve.api-key.<hex>" next to "pagedserve" (net/http/ws_subprotocol.h).

import { url_of } from './api.js';

const min_backoff_ms = 250;
const max_backoff_ms = 4000;

function key_subprotocol(key) {
  const hex = Array.from(new TextEncoder().encode(key), (b) => b.toString(16).padStart(2, '0'));
  return `pagedserve.api-key.${hex.join('')}`;
}

export class stream_connection {
  // on_state(state): 'connecting' | 'connected' | 'disconnected'. before_connect(): a
  // promise that resolves with the key to use, or rejects to wait for the next attempt.
  constructor({ on_state, before_connect }) {
    this.on_state = on_state;
    this.before_connect = before_connect;
    this.requests = new Map(); // id -> handlers {on_delta, on_done, on_error}
    this.next_id = 1;
    this.backoff_ms = min_backoff_ms;
    this.socket = null;
  }

  get connected() {
    return this.socket?.readyState === WebSocket.OPEN;
  }

  connect() {
    clearTimeout(this.retry_timer);
    this.on_state('connecting');
    this.before_connect().then(
      (key) => this.open(key),
      () => this.retry_later(),
    );
  }

  open(key) {
    const protocols = ['pagedserve', ...(key ? [key_subprotocol(key)] : [])];
    const socket = new WebSocket(url_of('v1/stream', location.protocol === 'https:' ? 'wss:' : 'ws:'), protocols);
    this.socket = socket;
    socket.onopen = () => {
      this.backoff_ms = min_backoff_ms;
      this.on_state('connected');
    };
    socket.onmessage = (event) => this.dispatch(event.data);
    socket.onclose = () => {
      if (this.socket !== socket) return;
      this.socket = null;
      this.fail_all('the connection to the server was lost');
      this.on_state('disconnected');
      this.retry_later();
    };
  }

  // Closes the socket for good (no reconnect); pending requests fail.
  close() {
    clearTimeout(this.retry_timer);
    const socket = this.socket;
    this.socket = null;
    this.fail_all('the connection was closed');
    socket?.close();
  }

  retry_later() {
    clearTimeout(this.retry_timer);
    this.retry_timer = setTimeout(() => this.connect(), this.backoff_ms);
    this.backoff_ms = Math.min(2 * this.backoff_ms, max_backoff_ms);
  }

  // Sends one request (type 'chat.completion' or 'completion' and its body); returns its id.
  start(type, body, handlers) {
    if (!this.connected) throw new Error('not connected to the server');
    const id = `r${this.next_id++}`;
    this.requests.set(id, handlers);
    this.socket.send(JSON.stringify({ ...body, type, id }));
    return id;
  }

  cancel(id) {
    if (this.connected && this.requests.has(id)) this.socket.send(JSON.stringify({ type: 'cancel', id }));
  }

  dispatch(text) {
    const message = JSON.parse(text);
    const handlers = this.requests.get(message.id);
    if (!handlers) return;
    if (message.type === 'delta') {
      handlers.on_delta(message);
    } else if (message.type === 'done') {
      this.requests.delete(message.id);
      handlers.on_done(message);
    } else if (message.type === 'error') {
      this.requests.delete(message.id);
      handlers.on_error(message.error);
    }
  }

  fail_all(why) {
    const pending = [...this.requests.values()];
    this.requests.clear();
    for (const handlers of pending) handlers.on_error({ message: why, type: 'connection_lost' });
  }
}
