// The playground's /metrics reader (web/static/metrics.js, plain ES module, no DOM) against
// values worked out by hand from the Prometheus documentation: the text format 0.0.4's label
// escapes, histogram_quantile's interpolation (rank q * count inside the bucket that reaches
// it, the +Inf bucket answering the highest finite bound, NaN without observations or
// without a +Inf bucket) and rate()'s counter reset.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import {
  bucket_increase, counter_rate, histogram_buckets, histogram_quantile, metric_sum, parse_metrics,
} from '../../../web/static/metrics.js';

const scrape = `# HELP x_seconds A histogram.
# TYPE x_seconds histogram
x_seconds_bucket{model_name="a",le="0.1"} 1
x_seconds_bucket{model_name="a",le="0.5"} 4
x_seconds_bucket{model_name="a",le="1"} 5
x_seconds_bucket{model_name="a",le="+Inf"} 6
x_seconds_bucket{model_name="b",le="0.1"} 1
x_seconds_bucket{model_name="b",le="0.5"} 2
x_seconds_bucket{model_name="b",le="1"} 3
x_seconds_bucket{model_name="b",le="+Inf"} 4
x_seconds_sum 9.5
x_seconds_count 10
requests_total{reason="say \\"hi\\"\\nthen",kind="a"} 3
requests_total{reason="stop",kind="b"} 4
`;

test('samples and label escapes', () => {
  const samples = parse_metrics(scrape);
  assert.equal(samples.length, 12);
  assert.equal(samples[10].labels.reason, 'say "hi"\nthen');
  assert.equal(metric_sum(samples, 'requests_total'), 7);
  assert.equal(metric_sum(samples, 'requests_total', { kind: 'b' }), 4);
  assert.equal(metric_sum(samples, 'absent_total'), 0);
});

test('buckets are summed over label sets and sorted by bound', () => {
  const buckets = histogram_buckets(parse_metrics(scrape), 'x_seconds');
  assert.deepEqual(buckets, [
    { le: 0.1, count: 2 }, { le: 0.5, count: 6 }, { le: 1, count: 8 }, { le: Infinity, count: 10 },
  ]);
});

test('histogram_quantile interpolates inside the bucket holding the rank', () => {
  const buckets = histogram_buckets(parse_metrics(scrape), 'x_seconds');
  // rank 5 lies in (0.1, 0.5] holding ranks 2..6: 0.1 + 0.4 * (5 - 2) / (6 - 2).
  assert.ok(Math.abs(histogram_quantile(0.5, buckets) - 0.4) < 1e-12);
  // rank 1 lies in the first bucket, interpolated from 0: 0.1 * 1 / 2.
  assert.ok(Math.abs(histogram_quantile(0.1, buckets) - 0.05) < 1e-12);
  // rank 8 is the top of (0.5, 1].
  assert.ok(Math.abs(histogram_quantile(0.8, buckets) - 1) < 1e-12);
  // rank 9 lies in +Inf: the highest finite bound.
  assert.equal(histogram_quantile(0.9, buckets), 1);
  assert.equal(histogram_quantile(0.99, buckets), 1);
});

test('no observations or no +Inf bucket: NaN', () => {
  assert.ok(Number.isNaN(histogram_quantile(0.5, [{ le: 0.1, count: 0 }, { le: Infinity, count: 0 }])));
  assert.ok(Number.isNaN(histogram_quantile(0.5, [{ le: 0.1, count: 1 }, { le: 1, count: 2 }])));
  assert.ok(Number.isNaN(histogram_quantile(0.5, [])));
});

test('the increase between two scrapes is a histogram of its own', () => {
  const earlier = [{ le: 0.1, count: 2 }, { le: 0.5, count: 2 }, { le: Infinity, count: 2 }];
  const later = [{ le: 0.1, count: 2 }, { le: 0.5, count: 6 }, { le: Infinity, count: 6 }];
  const window = bucket_increase(later, earlier);
  assert.deepEqual(window, [{ le: 0.1, count: 0 }, { le: 0.5, count: 4 }, { le: Infinity, count: 4 }]);
  // All four observations in (0.1, 0.5]: the median is halfway, 0.3.
  assert.ok(Math.abs(histogram_quantile(0.5, window) - 0.3) < 1e-12);
});

test('counter rate, and a reset counts the later value as the increase', () => {
  assert.equal(counter_rate(130, 100, 2), 15);
  assert.equal(counter_rate(5, 100, 2), 2.5);
  assert.ok(Number.isNaN(counter_rate(5, 1, 0)));
});
