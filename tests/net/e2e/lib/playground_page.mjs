// The playground (web/static) as a user drives it: open it, wait for the connection, fill
// the settings, send a message, switch tabs, read the dashboard's cards. Selectors are the
// page's ids and data attributes (web/static/index.html), not its layout.

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { page_watch } from './browser.mjs';

// Where screenshots go: PAGEDSERVE_SCREENSHOT_DIR, else a fresh temporary folder per run.
export function screenshot_dir() {
  return process.env.PAGEDSERVE_SCREENSHOT_DIR || mkdtempSync(join(tmpdir(), 'pagedserve-playground-'));
}

export async function open_page(browser, url) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 760 } });
  const page = await context.newPage();
  const watch = new page_watch(page);
  await page.goto(url, { waitUntil: 'load' });
  return { context, page, watch };
}

export async function wait_connection(page, state = 'connected', timeout = 20000) {
  await page.waitForSelector(`#connection[data-state="${state}"]`, { timeout });
}

// Sets a field of the settings form (a number or text input; true/false for a checkbox).
export async function set_field(page, name, value) {
  const selector = `#settings [name="${name}"]`;
  if (typeof value === 'boolean') await page.setChecked(selector, value);
  else await page.fill(selector, String(value));
}

export async function send_message(page, text) {
  await page.fill('#prompt', text);
  await page.click('#send');
}

export async function select_tab(page, tab) {
  await page.click(`[data-tab="${tab}"]`);
}

// The n-th generated reply (0-based; -1: the last) once its state is one of `states`.
export async function wait_reply(page, states = ['done'], index = -1, timeout = 30000) {
  await page.waitForFunction(
    ([wanted, i]) => {
      const replies = [...document.querySelectorAll('#transcript .message.assistant, #transcript .message.completion')];
      const reply = replies.at(i);
      return reply && wanted.includes(reply.dataset.state);
    },
    [states, index],
    { timeout },
  );
  return page.evaluate((i) => {
    const reply = [...document.querySelectorAll('#transcript .message.assistant, #transcript .message.completion')].at(i);
    return { state: reply.dataset.state, text: reply.querySelector('.generated').textContent, status: reply.querySelector('.status').textContent };
  }, index);
}

// Records every node the transcript gains inside a reply's generated text, with the
// MutationObserver callback (batch) it came in and the reply's state then.
export async function observe_replies(page) {
  await page.evaluate(() => {
    window.reply_nodes = [];
    let batch = 0;
    new MutationObserver((records) => {
      batch += 1;
      for (const record of records) {
        if (!record.target.classList?.contains('generated')) continue;
        for (const node of record.addedNodes) {
          const state = record.target.closest('.message').dataset.state;
          window.reply_nodes.push({ text: node.textContent, batch, state });
        }
      }
    }).observe(document.getElementById('transcript'), { childList: true, subtree: true });
  });
}

export async function reply_nodes(page) {
  return page.evaluate(() => window.reply_nodes);
}

// {name: values} from the dashboard's cards (null for a value the page has none of).
export async function card_values(page) {
  return page.evaluate(() => {
    const values = {};
    for (const card of document.querySelectorAll('[data-card]')) {
      const raw = card.querySelector('.value').dataset.values;
      values[card.dataset.card] = raw ? JSON.parse(raw) : null;
    }
    return values;
  });
}

export async function card_text(page, name) {
  return page.textContent(`[data-card="${name}"] .value`);
}
