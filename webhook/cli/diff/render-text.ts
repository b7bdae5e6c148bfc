/** The text rendering of a drift preview: one heading per changed object, its causes, live counts and pacing. */
import type {
  BudgetState,
  DriftPreview,
  LiveCount,
  ObjectPreview,
  PoolPacing,
} from "../../../operator/core/drift-preview/preview.ts";

/** How the preview was made, for its heading. */
export interface PreviewOrigin {
  readonly against: string;
  readonly cluster?: string | undefined;
}

type Paint = (colour: "red" | "yellow" | "green" | "bold" | "dim", text: string) => string;

const VERDICT_COLOUR = { all: "red", removes: "red", some: "yellow", maybe: "yellow", none: "green" } as const;

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? "" : "s"}`;
/** An ISO instant to the second ("2026-11-25T17:00:00Z"). */
const time = (iso: string): string => iso.replace(/\.\d{3}Z$/, "Z");

function liveLine(l: LiveCount): string {
  const reasons = Object.entries(l.byReason)
    .map(([r, n]) => `${r} ${n}`)
    .join(", ");
  const other =
    l.otherHashVersion > 0
      ? `; ${l.otherHashVersion} stamped by another hash version (re-stamped, not replaced by hash)`
      : "";
  const already = l.alreadyDrifted > 0 ? `; ${l.alreadyDrifted} already Drifted` : "";
  return (
    `  live NodePool/${l.nodePool}: ${plural(l.nodeClaims, "NodeClaim")}, ${l.drifting} would drift` +
    `${reasons === "" ? "" : ` (${reasons})`}${other}${already}`
  );
}

function budgetLine(b: BudgetState): string {
  const name = b.index < 0 ? "default budget" : `budget ${b.index}`;
  const schedule = b.schedule === undefined ? "always active" : `"${b.schedule}" for ${b.duration ?? "0s"}`;
  let state = "";
  if (b.error !== undefined) state = `: cannot be evaluated (${b.error}), allows 0`;
  else if (b.schedule !== undefined && b.active)
    state = `: active${b.closesAt === undefined ? "" : `, closes ${time(b.closesAt)}`}`;
  else if (b.schedule !== undefined) state = `: inactive, opens ${b.opensAt === undefined ? "never" : time(b.opensAt)}`;
  return `    ${name}: nodes ${b.nodes}, ${schedule}${state}`;
}

function wavesLine(p: PoolPacing, maybe: boolean): string[] {
  const w = p.waves;
  const starting = w?.startsAt === undefined ? "" : `, starting ${time(w.startsAt)}`;
  if (w?.sizes !== undefined) {
    return [
      `    with ${plural(w.nodes, "node")} (${w.drifting} ${maybe ? "if all drift" : "drifting"}): ` +
        `${plural(w.waves, "growing wave")} of ${w.sizes.join(", ")} (kerf.dev/drift-rollout), ` +
        `each once the one before is Initialized with its pods Running, at most ${w.perWave} at a time${starting}`,
    ];
  }
  if (w !== undefined) {
    return [
      `    with ${plural(w.nodes, "node")} (${w.drifting} ${maybe ? "if all drift" : "drifting"}): ` +
        `${plural(w.waves, "wave")} of at most ${w.perWave}${starting}`,
    ];
  }
  if (p.wavesNote === undefined) return [];
  const note =
    p.wavesNote === "node count unknown"
      ? "node count unknown (add --cluster to count the live NodeClaims)"
      : p.wavesNote;
  return [`    waves: ${note}`];
}

/** `maybe`: drift depends on what selectors resolve to, so the waves are those of every NodeClaim drifting. */
function pacingLines(p: PoolPacing, maybe: boolean): string[] {
  const blocked = p.blocked
    ? `; blocked now` +
      `${p.blockedUntil === undefined ? " (by a budget that is always active)" : ` until ${time(p.blockedUntil)}`}`
    : "";
  return [
    `  budgets of NodePool/${p.nodePool} for Drifted (schedules in ${p.timeZone}): ` +
      `allowed now ${p.allowedNow}${blocked}`,
    ...p.budgets.map(budgetLine),
    ...wavesLine(p, maybe),
  ];
}

function objectLines(o: ObjectPreview, paint: Paint): string[] {
  const where = o.source === undefined ? "" : `${o.source.file}:${o.source.line}: `;
  const lines = [
    `${where}${paint("bold", `${o.kind}/${o.name}`)} ${o.change}: ${paint(VERDICT_COLOUR[o.replaces], o.summary)}`,
  ];
  for (const c of o.causes) {
    lines.push(`  ${c.reason} (${c.scope}): ${c.detail}`);
    for (const f of c.fields) lines.push(`    ${f.path}: ${f.before} → ${f.after}`);
  }
  if (o.unhashed.length > 0)
    lines.push(
      `  ${paint("dim", "replaces no node:")} ` +
        `${o.unhashed.map((f) => `${f.path}: ${f.before} → ${f.after}`).join("; ")}`,
    );
  if (o.kind === "EC2NodeClass" && o.change === "modified")
    lines.push(`  NodePools using it: ${o.nodePools.length === 0 ? "none among the files" : o.nodePools.join(", ")}`);
  for (const l of o.live ?? []) lines.push(liveLine(l));
  for (const p of o.pacing) lines.push(...pacingLines(p, o.replaces === "maybe"));
  return lines;
}

/** The preview block printed before `kerf check`'s summary line. */
export function previewText(preview: DriftPreview, origin: PreviewOrigin, paint: Paint): string[] {
  const cluster = origin.cluster === undefined ? "" : `, live NodeClaims from ${origin.cluster}`;
  const heading =
    `drift preview against ${origin.against} at ${time(preview.now)}${cluster}: ` +
    `${plural(preview.changed.length, "changed object")}, ${preview.unchanged} unchanged`;
  return [paint("bold", heading), ...preview.changed.flatMap((o) => objectLines(o, paint))];
}
