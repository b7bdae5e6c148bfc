/**
 * Bottlerocket user data: TOML settings for the cluster, kubelet, labels and taints, merged into the
 * user's TOML as Karpenter merges them: kerf's keys replace the user's, the user's other keys and
 * tables stay, node labels add up, node taints are kerf's alone, and no table is written twice.
 */
import { clusterDNSFromCIDR, goDuration, type BootstrapOptions } from "./bootstrap.ts";
import { tomlSections, TomlSectionError, type TomlSection } from "../../../policies/ec2nodeclass/toml-sections.ts";
import { userDataProblem } from "../../../policies/ec2nodeclass/user-data.ts";

/** spec.userData that kerf cannot merge as Bottlerocket TOML (the EC2NodeClass reports it before any launch). */
export class BottlerocketUserDataError extends Error {
  constructor(message: string, cause: TomlSectionError) {
    super(message, { cause });
    this.name = "BottlerocketUserDataError";
  }
}

/** A table kerf writes: its keys, and whether the user's other keys of that table survive. */
interface KerfTable {
  readonly path: string;
  readonly entries: readonly (readonly [string, string])[];
  readonly keepUserKeys: boolean;
}

const str = (value: string): string => JSON.stringify(value);
const BARE_KEY = /^[A-Za-z0-9_-]+$/;
const key = (k: string): string => (BARE_KEY.test(k) ? k : str(k));

function entriesOf(values: Readonly<Record<string, string | readonly string[]>>): [string, string][] {
  return Object.keys(values)
    .sort()
    .map((k) => {
      const v = values[k] ?? "";
      return [k, typeof v === "string" ? str(v) : `[${v.map(str).join(", ")}]`];
    });
}

/**
 * spec.kubelet.clusterDNS, else the address derived from the discovered service CIDR (else
 * Bottlerocket detects it at boot).
 */
function clusterDNS(options: BootstrapOptions): readonly string[] {
  if (options.kubelet.clusterDNS !== undefined && options.kubelet.clusterDNS.length > 0)
    return options.kubelet.clusterDNS;
  const derived = clusterDNSFromCIDR(options.clusterCIDR);
  return derived === undefined ? [] : [derived];
}

function scalars(options: BootstrapOptions): [string, string][] {
  const k = options.kubelet;
  const out: [string, string][] = [
    ["api-server", str(options.clusterEndpoint)],
    ["cluster-name", str(options.clusterName)],
  ];
  if (options.caBundle !== undefined) out.push(["cluster-certificate", str(options.caBundle)]);
  if (k.maxPods !== undefined) out.push(["max-pods", String(k.maxPods)]);
  if (k.podsPerCore !== undefined) out.push(["pods-per-core", String(k.podsPerCore)]);
  // Karpenter writes the first address as a string, as Bottlerocket's cluster-dns-ip was first defined.
  const dns = clusterDNS(options)[0];
  if (dns !== undefined) out.push(["cluster-dns-ip", str(dns)]);
  if (k.cpuCFSQuota !== undefined) out.push(["cpu-cfs-quota-enforced", String(k.cpuCFSQuota)]);
  // Karpenter writes the image GC thresholds as strings (Bottlerocket's settings model).
  if (k.imageGCHighThresholdPercent !== undefined)
    out.push(["image-gc-high-threshold-percent", str(String(k.imageGCHighThresholdPercent))]);
  if (k.imageGCLowThresholdPercent !== undefined)
    out.push(["image-gc-low-threshold-percent", str(String(k.imageGCLowThresholdPercent))]);
  if (k.evictionMaxPodGracePeriod !== undefined)
    out.push(["eviction-max-pod-grace-period", String(k.evictionMaxPodGracePeriod)]);
  return out;
}

function taints(options: BootstrapOptions): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const t of options.taints) (out[t.key] ??= []).push(`${t.value ?? ""}:${t.effect}`);
  return out;
}

/** Bottlerocket's ephemeral-storage commands: format the instance-store disks as RAID-0 and bind the kubelet's dirs. */
const RAID0_COMMAND: KerfTable = {
  path: "settings.bootstrap-commands.000-mount-instance-storage",
  keepUserKeys: false,
  entries: [
    [
      "commands",
      '[["apiclient", "ephemeral-storage", "init"], ["apiclient", "ephemeral-storage", "bind", "--dirs", ' +
        '"/var/lib/containerd", "/var/lib/kubelet", "/var/log/pods"]]',
    ],
    ["essential", "true"],
    ["mode", str("always")],
  ],
};

/** The tables kerf writes; a kubelet map table only when spec.kubelet sets it (then it replaces the user's). */
function kerfTables(options: BootstrapOptions): KerfTable[] {
  const k = options.kubelet;
  const grace =
    k.evictionSoftGracePeriod === undefined
      ? undefined
      : Object.fromEntries(Object.entries(k.evictionSoftGracePeriod).map(([n, v]) => [n, goDuration(v)]));
  const maps: [string, Readonly<Record<string, string>> | undefined][] = [
    ["eviction-hard", k.evictionHard],
    ["eviction-soft", k.evictionSoft],
    ["eviction-soft-grace-period", grace],
    ["kube-reserved", k.kubeReserved],
    ["system-reserved", k.systemReserved],
  ];
  const tables: KerfTable[] = [
    { path: "settings.kubernetes", entries: scalars(options), keepUserKeys: true },
    { path: "settings.kubernetes.node-labels", entries: entriesOf(options.labels), keepUserKeys: true },
    { path: "settings.kubernetes.node-taints", entries: entriesOf(taints(options)), keepUserKeys: false },
  ];
  for (const [name, values] of maps) {
    if (values !== undefined)
      tables.push({ path: `settings.kubernetes.${name}`, entries: entriesOf(values), keepUserKeys: false });
  }
  if (options.instanceStorePolicy === "RAID0") tables.push(RAID0_COMMAND);
  return tables;
}

function parse(userData: string | undefined): TomlSection[] {
  try {
    return tomlSections(userData ?? "");
  } catch (error) {
    if (error instanceof TomlSectionError) {
      throw new BottlerocketUserDataError(userDataProblem("Bottlerocket", userData) ?? error.message, error);
    }
    throw error;
  }
}

/** A kerf table with the user's surviving statements of that table (from every place the user wrote it). */
function mergedTable(table: KerfTable, user: readonly TomlSection[]): string[] {
  const ours = new Set(table.entries.map(([k]) => k));
  const kept = table.keepUserKeys
    ? user.flatMap((s) => s.lines.filter((l) => (typeof l === "string" ? l.trim() !== "" : !ours.has(l.key))))
    : [];
  const header = user[0]?.header ?? `[${table.path.split(".").map(key).join(".")}]`;
  return [
    header,
    ...kept.map((l) => (typeof l === "string" ? l : l.text)),
    ...table.entries.map(([k, v]) => `${key(k)} = ${v}`),
  ];
}

/**
 * Bottlerocket user data: the user's TOML with kerf's tables merged in where the user wrote them, and
 * the remaining kerf tables after it. Throws BottlerocketUserDataError when spec.userData is not TOML.
 */
export function bottlerocketUserData(options: BootstrapOptions): string {
  const sections = parse(options.customUserData);
  const tables = kerfTables(options);
  const byPath = new Map(tables.map((t) => [t.path, t]));
  const blocks: string[][] = [];
  const written = new Set<string>();
  for (const section of sections) {
    const table = byPath.get(section.path);
    if (table === undefined) {
      const lines = section.lines.map((l) => (typeof l === "string" ? l : l.text));
      const block = section.header === "" ? lines : [section.header, ...lines];
      if (block.some((l) => l.trim() !== "")) blocks.push(trimBlank(block));
    } else if (!written.has(table.path)) {
      written.add(table.path);
      blocks.push(
        mergedTable(
          table,
          sections.filter((s) => s.path === table.path),
        ),
      );
    }
  }
  for (const table of tables) if (!written.has(table.path)) blocks.push(mergedTable(table, []));
  return `${blocks.map((b) => b.join("\n")).join("\n\n")}\n`;
}

function trimBlank(lines: readonly string[]): string[] {
  const out = [...lines];
  while (out.length > 0 && out[out.length - 1]?.trim() === "") out.pop();
  return out;
}
