// A headless browser for the playground tests: Debian's chromium driven by playwright-core
// (no browser download), and a watcher per page that records what a user's devtools would
// show: console errors, uncaught exceptions, every HTTP response with its body size, and the
// WebSocket frames both ways.

import { existsSync } from 'node:fs';

const chromium_candidates = [process.env.PAGEDSERVE_CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser'];

// The chromium binary, or undefined when this machine has none (the test then skips).
export function chromium_path() {
  return chromium_candidates.find((path) => path && existsSync(path));
}

export async function launch_browser() {
  const { chromium } = await import('playwright-core');
  // --no-sandbox: CI runs as root, where chromium refuses its sandbox.
  return chromium.launch({ executablePath: chromium_path(), headless: true, args: ['--no-sandbox'] });
}

// Everything one page did. frames: {direction: 'sent' | 'received', message (parsed JSON)}.
export class page_watch {
  constructor(page) {
    this.page = page;
    this.console_errors = [];
    this.page_errors = [];
    this.responses = []; // {url, status, headers, body: Buffer | null}
    this.frames = [];
    this.pending = [];
    page.on('console', (msg) => {
      if (msg.type() === 'error') this.console_errors.push(msg.text());
    });
    page.on('pageerror', (err) => this.page_errors.push(err.message));
    page.on('response', (res) => {
      const entry = { url: res.url(), status: res.status(), headers: res.headers(), body: null };
      this.responses.push(entry);
      const read = res.body().then(
        (body) => (entry.body = body),
        () => {}, // 304 and redirects have no body to read
      );
      this.pending.push(read);
    });
    page.on('websocket', (ws) => {
      const record = (direction) => ({ payload }) => {
        const text = typeof payload === 'string' ? payload : payload.toString('utf8');
        this.frames.push({ direction, message: JSON.parse(text), time: Date.now() });
      };
      ws.on('framesent', record('sent'));
      ws.on('framereceived', record('received'));
    });
  }

  // The responses so far, once their bodies have been read (one that arrives meanwhile, such
  // as the dashboard's next scrape, is left out rather than returned without its body).
  async settled_responses() {
    const count = this.responses.length;
    await Promise.all(this.pending.slice(0, count));
    return this.responses.slice(0, count);
  }

  sent(type) {
    return this.frames.filter((f) => f.direction === 'sent' && f.message.type === type).map((f) => f.message);
  }

  received(id) {
    return this.frames.filter((f) => f.direction === 'received' && f.message.id === id).map((f) => f.message);
  }

  // Console errors other than those matching an expected pattern, and every uncaught one.
  unexpected_errors(expected = []) {
    const console_errors = this.console_errors.filter((text) => !expected.some((re) => re.test(text)));
    return [...console_errors, ...this.page_errors.map((m) => `uncaught: ${m}`)];
  }
}
