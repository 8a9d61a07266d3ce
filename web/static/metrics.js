// Reading /metrics (Prometheus text format 0.0.4, docs/metrics.md) in the browser: samples,
// sums over label sets, counter rates between two scrapes and histogram quantiles computed
// as Prometheus's histogram_quantile() does (linear interpolation inside the bucket that
// holds the rank; the +Inf bucket answers the highest finite bound).

// [{name, labels: {k: v}, value}] for every sample line; comments and blank lines skipped.
export function parse_metrics(text) {
  const samples = [];
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
    if (!match) continue;
    const labels = {};
    for (const pair of (match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
      labels[pair[1]] = pair[2].replace(/\\(.)/g, (_, c) => (c === 'n' ? '\n' : c));
    }
    samples.push({ name: match[1], labels, value: Number(match[3]) });
  }
  return samples;
}

// The sum of every sample of `name` whose labels include `where`.
export function metric_sum(samples, name, where = {}) {
  let total = 0;
  for (const s of samples) {
    if (s.name !== name) continue;
    if (Object.entries(where).every(([k, v]) => s.labels[k] === v)) total += s.value;
  }
  return total;
}

// A histogram's cumulative buckets [{le, count}] by ascending bound (le may be Infinity).
export function histogram_buckets(samples, name) {
  const by_bound = new Map();
  for (const s of samples) {
    if (s.name !== `${name}_bucket`) continue;
    const le = s.labels.le === '+Inf' ? Infinity : Number(s.labels.le);
    by_bound.set(le, (by_bound.get(le) ?? 0) + s.value);
  }
  return [...by_bound].map(([le, count]) => ({ le, count })).sort((a, b) => a.le - b.le);
}

// The buckets of the observations made between two scrapes (later minus earlier).
export function bucket_increase(later, earlier) {
  const before = new Map(earlier.map((b) => [b.le, b.count]));
  return later.map((b) => ({ le: b.le, count: b.count - (before.get(b.le) ?? 0) }));
}

// Prometheus's histogram_quantile(q, buckets): NaN without observations.
export function histogram_quantile(q, buckets) {
  if (buckets.length < 2 || buckets[buckets.length - 1].le !== Infinity) return NaN;
  const total = buckets[buckets.length - 1].count;
  if (!(total > 0)) return NaN;
  const rank = q * total;
  let i = buckets.findIndex((b) => b.count >= rank);
  if (i === buckets.length - 1) return buckets[buckets.length - 2].le;
  const upper = buckets[i].le;
  const lower = i === 0 ? 0 : buckets[i - 1].le;
  const below = i === 0 ? 0 : buckets[i - 1].count;
  if (i === 0 && upper <= 0) return upper;
  return lower + ((upper - lower) * (rank - below)) / (buckets[i].count - below);
}

// Per-second increase of a counter between two scrapes taken dt_s apart (a restarted server
// resets its counters: the later value is the increase then, as Prometheus's rate() does).
export function counter_rate(later, earlier, dt_s) {
  if (!(dt_s > 0)) return NaN;
  const increase = later >= earlier ? later - earlier : later;
  return increase / dt_s;
}
