/**
 * The playground's timeline as an SVG picture (pure): inflate pods running, Nodes ready and the hourly
 * cost over the run, with a dashed line at each scaling step. One chart, counts on the left axis,
 * dollars per hour on the right, so the moment consolidation removes the empty nodes is visible.
 */

export interface TimelineSample {
  readonly atMs: number;
  readonly running: number;
  readonly readyNodes: number;
  readonly costPerHour: number;
}
export interface TimelineStep {
  readonly atMs: number;
  readonly replicas: number;
}

const W = 900;
const H = 380;
const PAD = { left: 56, right: 72, top: 36, bottom: 48 };
const COLOURS = { pods: "#2563eb", nodes: "#16a34a", cost: "#dc2626", step: "#9ca3af", axis: "#374151" };

const esc = (s: string): string => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/** A "nice" axis maximum ≥ value (1, 2, 5 × 10^k). */
export function niceMax(value: number): number {
  if (value <= 0) return 1;
  const p = 10 ** Math.floor(Math.log10(value));
  return [1, 2, 5, 10].map((m) => m * p).find((m) => m >= value) ?? 10 * p;
}

function line(points: readonly (readonly [number, number])[], colour: string): string {
  if (points.length === 0) return "";
  // Step lines: a count holds until the next sample, as the cluster does.
  const d = points
    .map(([x, y], i) => (i === 0 ? `M${x.toFixed(1)},${y.toFixed(1)}` : `H${x.toFixed(1)}V${y.toFixed(1)}`))
    .join("");
  return `<path d="${d}" fill="none" stroke="${colour}" stroke-width="2"/>`;
}

/** The SVG document for a run. */
export function timelineSvg(
  samples: readonly TimelineSample[],
  steps: readonly TimelineStep[],
  title = "kerf playground",
): string {
  const endMs = Math.max(1000, ...samples.map((s) => s.atMs), ...steps.map((s) => s.atMs));
  const countMax = niceMax(Math.max(1, ...samples.map((s) => Math.max(s.running, s.readyNodes))));
  const costMax = niceMax(Math.max(0.01, ...samples.map((s) => s.costPerHour)));
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const x = (ms: number): number => PAD.left + (ms / endMs) * plotW;
  const yCount = (n: number): number => PAD.top + plotH - (n / countMax) * plotH;
  const yCost = (c: number): number => PAD.top + plotH - (c / costMax) * plotH;
  const ticks = [0, 0.25, 0.5, 0.75, 1];
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" ` +
      `font-family="sans-serif" font-size="12">`,
    `<rect width="${W}" height="${H}" fill="white"/>`,
    `<text x="${PAD.left}" y="22" font-size="15" font-weight="bold" fill="${COLOURS.axis}">${esc(title)}</text>`,
    ...ticks.map(
      (t) =>
        `<line x1="${PAD.left}" x2="${W - PAD.right}" y1="${yCount(t * countMax).toFixed(1)}" ` +
        `y2="${yCount(t * countMax).toFixed(1)}" stroke="#e5e7eb"/>` +
        `<text x="${PAD.left - 8}" y="${(yCount(t * countMax) + 4).toFixed(1)}" text-anchor="end" ` +
        `fill="${COLOURS.axis}">${Math.round(t * countMax)}</text>` +
        `<text x="${W - PAD.right + 8}" y="${(yCost(t * costMax) + 4).toFixed(1)}" ` +
        `fill="${COLOURS.cost}">$${(t * costMax).toFixed(costMax < 0.1 ? 3 : 2)}</text>`,
    ),
    ...ticks.map(
      (t) =>
        `<text x="${x(t * endMs).toFixed(1)}" y="${H - PAD.bottom + 18}" text-anchor="middle" ` +
        `fill="${COLOURS.axis}">${Math.round((t * endMs) / 1000)} s</text>`,
    ),
    ...steps.map(
      (s) =>
        `<line x1="${x(s.atMs).toFixed(1)}" x2="${x(s.atMs).toFixed(1)}" y1="${PAD.top}" ` +
        `y2="${PAD.top + plotH}" stroke="${COLOURS.step}" stroke-dasharray="4 4"/>` +
        `<text x="${(x(s.atMs) + 4).toFixed(1)}" y="${PAD.top + 12}" fill="${COLOURS.step}">→ ${s.replicas}</text>`,
    ),
    line(
      samples.map((s) => [x(s.atMs), yCount(s.running)] as const),
      COLOURS.pods,
    ),
    line(
      samples.map((s) => [x(s.atMs), yCount(s.readyNodes)] as const),
      COLOURS.nodes,
    ),
    line(
      samples.map((s) => [x(s.atMs), yCost(s.costPerHour)] as const),
      COLOURS.cost,
    ),
    `<rect x="${PAD.left}" y="${PAD.top}" width="${plotW}" height="${plotH}" fill="none" stroke="${COLOURS.axis}"/>`,
    ...[
      ["inflate pods running", COLOURS.pods],
      ["Nodes ready", COLOURS.nodes],
      ["cost $/h (right axis)", COLOURS.cost],
    ].map(
      ([label, colour], i) =>
        `<line x1="${PAD.left + i * 210}" x2="${PAD.left + i * 210 + 24}" y1="${H - 12}" y2="${H - 12}" ` +
        `stroke="${colour}" stroke-width="3"/><text x="${PAD.left + i * 210 + 30}" y="${H - 8}" ` +
        `fill="${COLOURS.axis}">${esc(label ?? "")}</text>`,
    ),
    "</svg>",
  ];
  return `${parts.join("\n")}\n`;
}
