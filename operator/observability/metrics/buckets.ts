// Histogram buckets and summary objectives shared by the metric families: Karpenter's where a family is
// Karpenter's (the contract operator/observability/metrics.test.ts checks), controller-runtime's for kerf's own.

/** kerf's own controller buckets (controller_runtime_*). */
export const CONTROLLER_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];

/** Karpenter's metrics.DurationBuckets(): controller-runtime's thresholds plus longer ones. */
export const KARPENTER_DURATION_BUCKETS = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1, 1.25, 1.5, 1.75, 2,
  2.5, 3, 3.5, 4, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60, 120, 150, 300, 450, 600,
];

/** client_golang's prometheus.DefBuckets. */
export const DEFAULT_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** `count` buckets doubling from `from` (prometheus.ExponentialBuckets(from, 2, count)). */
export const powersOfTwo = (from: number, count: number): number[] =>
  Array.from({ length: count }, (_, i) => from * 2 ** i);

const HOUR = 3600;
const DAY = 24 * HOUR;
/** karpenter_nodes_lifetime_duration_seconds: 15 minutes to 30 days. */
export const LIFETIME_BUCKETS = [
  900,
  1800,
  2700,
  HOUR,
  2 * HOUR,
  4 * HOUR,
  6 * HOUR,
  8 * HOUR,
  10 * HOUR,
  12 * HOUR,
  16 * HOUR,
  20 * HOUR,
  DAY,
  2 * DAY,
  3 * DAY,
  5 * DAY,
  10 * DAY,
  15 * DAY,
  20 * DAY,
  25 * DAY,
  30 * DAY,
];

/** karpenter_cloudprovider_batcher_batch_size. */
export const BATCH_SIZE_BUCKETS = [
  1, 2, 4, 5, 10, 15, 20, 25, 30, 40, 50, 60, 70, 80, 90, 100, 125, 150, 175, 200, 225, 250, 275, 300, 350, 400, 450,
  500, 550, 600, 700, 800, 900, 1000,
];

/** Karpenter's summaries (metrics.SummaryObjectives) over client_golang's default 10-minute window of 5 buckets. */
export const SUMMARY = { percentiles: [0, 0.5, 0.9, 0.99, 1], maxAgeSeconds: 600, ageBuckets: 5 };
