/**
 * Pod events per node (Karpenter's podevents controller): a pod binding to a node, going terminal
 * or being deleted restarts that node's consolidateAfter clock; DaemonSet pods never do. Watch events carry no previous
 * object, so the tracker remembers each pod's node and phase and records transitions only; a pod
 * seen for the first time counts only when it was created within the last minute (an operator
 * that starts or takes over leadership must not restart every node's clock).
 */
import type { Pod } from "../../core/lifecycle/objects.ts";
import { timeMs } from "../../core/lifecycle/objects.ts";

const FRESH_MS = 60_000;
const MAX_NODES = 10_000;
const FORGET_MS = 24 * 3_600_000;

interface Seen {
  readonly node: string;
  readonly done: boolean;
}

const doneOf = (pod: Pod): boolean =>
  pod.metadata?.deletionTimestamp !== undefined || pod.status?.phase === "Succeeded" || pod.status?.phase === "Failed";

/**
 * Karpenter's podevents controller skips DaemonSet pods (IsOwnedByDaemonSet: any apps/v1 DaemonSet owner):
 * a DaemonSet rollout touches every node and would otherwise restart every consolidateAfter clock.
 */
const ownedByDaemonSet = (pod: Pod): boolean =>
  (pod.metadata?.ownerReferences ?? []).some((o) => o.apiVersion === "apps/v1" && o.kind === "DaemonSet");

const uidOf = (pod: Pod): string => pod.metadata?.uid ?? `${pod.metadata?.namespace ?? ""}/${pod.metadata?.name ?? ""}`;

/** A bind, a move or a phase end since the last sighting; a first sighting only for a fresh pod. */
function changed(pod: Pod, before: Seen | undefined, seen: Seen, now: number): boolean {
  if (before === undefined) return now - (timeMs(pod.metadata?.creationTimestamp) ?? 0) < FRESH_MS;
  return before.node !== seen.node || before.done !== seen.done;
}

export class PodEventTracker {
  private readonly pods = new Map<string, Seen>();
  private readonly lastByNode = new Map<string, number>();

  /** Records a watch event at `now`; answers the node whose clock it restarted, if any (never for a DaemonSet pod). */
  observe(pod: Pod, verb: "add" | "update" | "delete", now: number): string | undefined {
    if (ownedByDaemonSet(pod)) return undefined;
    const uid = uidOf(pod);
    const node = pod.spec?.nodeName ?? "";
    const before = this.pods.get(uid);
    if (verb === "delete") {
      this.pods.delete(uid);
      return this.record(node !== "" ? node : (before?.node ?? ""), now);
    }
    const seen = { node, done: doneOf(pod) };
    this.pods.set(uid, seen);
    return node !== "" && changed(pod, before, seen, now) ? this.record(node, now) : undefined;
  }

  /** When the node's last pod event happened (ms), if one was seen. */
  last(node: string): number | undefined {
    return this.lastByNode.get(node);
  }

  private record(node: string, now: number): string | undefined {
    if (node === "") return undefined;
    this.lastByNode.set(node, now);
    // Nodes come and go; an event older than any consolidateAfter worth waiting for is no longer needed.
    if (this.lastByNode.size > MAX_NODES)
      for (const [n, at] of this.lastByNode) if (now - at > FORGET_MS) this.lastByNode.delete(n);
    return node;
  }
}
