// The live dashboard: scrapes /metrics every second and draws the last two minutes of the
// engine's figures (docs/metrics.md): requests running and waiting, KV cache usage, the
// prefix cache's hit rate, tokens per second, and TTFT and inter-token latency percentiles
// over a sliding 30-second window. Each card's value element carries the raw numbers in
// data-values (JSON) for tests and tooling.

import { get } from './api.js';
import { time_chart } from './chart.js';
import {
  bucket_increase, counter_rate, histogram_buckets, histogram_quantile, metric_sum, parse_metrics,
} from './metrics.js';

const poll_ms = 1000;
const capacity = 120; // points per chart: two minutes at one scrape a second
const latency_window_s = 30;
const p = 'pagedserve:';

const percent = (v) => `${(100 * v).toFixed(1)}%`;
const ms = (v) => (Number.isFinite(v) ? `${(1000 * v).toFixed(v < 0.1 ? 1 : 0)} ms` : '—');
// p50 · p90 · p99, or a word when the window holds no observation.
const latency_text = (values) =>
  values.some(Number.isFinite) ? values.map(ms).join(' · ') : `none in the last ${latency_window_s} s`;
const rate = (v) => (Number.isFinite(v) ? v.toFixed(v < 10 ? 1 : 0) : '—');

// name, title, legend, chart options, and how a scrape (with the history) becomes values.
const cards = [
  { name: 'requests', title: 'Requests', legend: ['running', 'waiting'], chart: { format: (v) => v.toFixed(0) },
    values: (s) => [metric_sum(s.samples, `${p}num_requests_running`), metric_sum(s.samples, `${p}num_requests_waiting`)],
    text: ([r, w]) => `${r} running · ${w} waiting` },
  { name: 'kv_cache', title: 'KV cache usage', legend: ['blocks in use'], chart: { top: 1, format: percent },
    values: (s) => [metric_sum(s.samples, `${p}kv_cache_usage_perc`)],
    text: ([u]) => percent(u) },
  { name: 'prefix_cache', title: 'Prefix cache hit rate', legend: ['per scrape'], chart: { top: 1, format: percent },
    values: (s, prev) => [hit_rate(s.samples, prev?.samples)],
    text: (_, s) => `${percent(hit_rate(s.samples) || 0)} since start` },
  { name: 'tokens', title: 'Tokens per second', legend: ['generated', 'prompt'], chart: { format: rate },
    values: (s, prev) => [token_rate(s, prev, 'generation_tokens_total'), token_rate(s, prev, 'prompt_tokens_total')],
    text: ([g, pr]) => `${rate(g)} generated · ${rate(pr)} prompt` },
  { name: 'ttft', title: `Time to first token (last ${latency_window_s} s)`, legend: ['p50', 'p90', 'p99'], chart: { format: ms },
    values: (s, _, old) => percentiles(s, old, 'time_to_first_token_seconds'),
    text: latency_text },
  { name: 'itl', title: `Inter-token latency (last ${latency_window_s} s)`, legend: ['p50', 'p90', 'p99'], chart: { format: ms },
    values: (s, _, old) => percentiles(s, old, 'inter_token_latency_seconds'),
    text: latency_text },
];

// Hits over queries, since start or (with an earlier scrape) in between; NaN without queries.
function hit_rate(samples, earlier) {
  const count = (list, name) => (list ? metric_sum(list, `${p}${name}`) : 0);
  const queries = count(samples, 'prefix_cache_queries_total') - count(earlier, 'prefix_cache_queries_total');
  const hits = count(samples, 'prefix_cache_hits_total') - count(earlier, 'prefix_cache_hits_total');
  return queries > 0 ? hits / queries : NaN;
}

function token_rate(scrape, previous, name) {
  if (!previous) return NaN;
  const value = (s) => metric_sum(s.samples, `${p}${name}`);
  return counter_rate(value(scrape), value(previous), (scrape.time - previous.time) / 1000);
}

function percentiles(scrape, old, name) {
  const now = histogram_buckets(scrape.samples, `${p}${name}`);
  const window = old ? bucket_increase(now, histogram_buckets(old.samples, `${p}${name}`)) : now;
  return [0.5, 0.9, 0.99].map((q) => histogram_quantile(q, window));
}

function card_element(card) {
  const node = document.createElement('div');
  node.className = 'card';
  node.dataset.card = card.name;
  const title = document.createElement('h3');
  title.textContent = card.title;
  const value = document.createElement('div');
  value.className = 'value';
  value.textContent = '—';
  const canvas = document.createElement('canvas');
  const legend = document.createElement('div');
  legend.className = 'legend';
  card.legend.forEach((label, i) => {
    const item = document.createElement('span');
    item.className = `s${i}`;
    item.textContent = label;
    legend.append(item);
  });
  node.append(title, value, canvas, legend);
  return { node, value, chart: new time_chart(canvas, card.chart), series: card.legend.map(() => []) };
}

export class dashboard {
  // ready(): whether to scrape now (the page has a connection, so the key is good).
  constructor(container, error_line, ready) {
    this.ready = ready;
    this.views = cards.map(card_element);
    container.replaceChildren(...this.views.map((v) => v.node));
    this.error_line = error_line;
    this.scrapes = []; // {time, samples}, the last latency_window_s seconds and one more
    this.visible = false;
  }

  start() {
    const tick = async () => {
      if (this.ready()) await this.scrape();
      this.timer = setTimeout(tick, poll_ms);
    };
    tick();
  }

  show(visible) {
    this.visible = visible;
    if (visible) this.render();
  }

  async scrape() {
    let text;
    try {
      text = await (await get('metrics')).text();
    } catch (err) {
      this.error_line.hidden = false;
      this.error_line.textContent = `metrics: ${err.message}`;
      return;
    }
    this.error_line.hidden = true;
    const scrape = { time: Date.now(), samples: parse_metrics(text) };
    const previous = this.scrapes[this.scrapes.length - 1];
    while (this.scrapes.length > 1 && scrape.time - this.scrapes[1].time >= latency_window_s * 1000) this.scrapes.shift();
    const old = this.scrapes.length && scrape.time - this.scrapes[0].time >= 1000 ? this.scrapes[0] : undefined;
    this.scrapes.push(scrape);
    cards.forEach((card, i) => {
      const values = card.values(scrape, previous, old);
      const view = this.views[i];
      values.forEach((v, s) => {
        view.series[s].push(v);
        if (view.series[s].length > capacity) view.series[s].shift();
      });
      view.value.textContent = card.text(values, scrape);
      view.value.dataset.values = JSON.stringify(values.map((v) => (Number.isFinite(v) ? v : null)));
    });
    if (this.visible) this.render();
  }

  render() {
    for (const view of this.views) view.chart.draw(view.series, capacity);
  }
}
