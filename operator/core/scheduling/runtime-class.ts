/**
 * What the apiserver's RuntimeClass admission plugin does to a pod that names a RuntimeClass (pure):
 * `overhead.podFixed` becomes the pod's `spec.overhead` (podRequests adds it to every pod of that
 * class), `scheduling.nodeSelector` joins the pod's nodeSelector and `scheduling.tolerations` its
 * tolerations. Pods read from the API have been through it; `kerf simulate` scenarios have not, so
 * the scenario builder applies it to their Pods and pod templates. Like the apiserver, it rejects
 * (throws) a pod whose RuntimeClass does not exist, whose own overhead differs from the class's, or
 * whose nodeSelector gives a key of the class's another value. A pod setting `spec.overhead`
 * without a RuntimeClass keeps it (scenarios may state overhead directly).
 */
import { parseResourceList } from "../../../policies/domain/quantity.ts";

type Obj = Readonly<Record<string, unknown>>;

const o = (v: unknown): Obj => (typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Obj) : {});

/** RuntimeClass objects by `metadata.name`. */
export type RuntimeClasses = ReadonlyMap<string, Obj>;

/** RuntimeClass documents by name (other kinds ignored). */
export function runtimeClassesOf(documents: readonly Obj[]): RuntimeClasses {
  const out = new Map<string, Obj>();
  for (const d of documents) if (d["kind"] === "RuntimeClass") out.set(String(o(d["metadata"])["name"] ?? ""), d);
  return out;
}

function sameResources(a: Obj, b: Obj): boolean {
  const x = parseResourceList(a);
  const y = parseResourceList(b);
  const keys = new Set([...Object.keys(x), ...Object.keys(y)]);
  for (const k of keys) if (x[k] !== y[k]) return false;
  return true;
}

/** The pod spec as the RuntimeClass admission plugin leaves it; the same object when it names no RuntimeClass. */
export function admitRuntimeClass(podSpec: unknown, classes: RuntimeClasses): Obj {
  const spec = o(podSpec);
  const name = spec["runtimeClassName"];
  if (typeof name !== "string" || name === "") return spec;
  const rc = classes.get(name);
  if (rc === undefined) throw new Error(`pod rejected: RuntimeClass "${name}" not found`);
  const scheduling = o(rc["scheduling"]);
  return { ...spec, ...overhead(spec, rc, name), ...nodeSelector(spec, scheduling), ...tolerations(spec, scheduling) };
}

/** setOverhead: the class's podFixed overhead, which a pod may repeat but not contradict. */
function overhead(spec: Obj, rc: Obj, name: string): Obj {
  const podFixed = o(rc["overhead"])["podFixed"];
  if (podFixed === undefined) return {};
  const own = o(spec["overhead"]);
  if (Object.keys(own).length > 0 && !sameResources(own, o(podFixed))) {
    throw new Error(`pod rejected: Pod's Overhead doesn't match RuntimeClass "${name}"'s defined Overhead`);
  }
  return { overhead: podFixed };
}

/** setScheduling: the class's nodeSelector joins the pod's; a key the pod gives another value is a conflict. */
function nodeSelector(spec: Obj, scheduling: Obj): Obj {
  const selector = o(scheduling["nodeSelector"]);
  if (Object.keys(selector).length === 0) return {};
  const podSelector = o(spec["nodeSelector"]);
  for (const [key, value] of Object.entries(selector)) {
    const own = podSelector[key];
    if (own !== undefined && String(own) !== String(value)) {
      throw new Error(
        `pod rejected: conflict: runtimeClass.scheduling.nodeSelector[${key}] = ${String(value)}; ` +
          `pod.spec.nodeSelector[${key}] = ${String(own)}`,
      );
    }
  }
  return { nodeSelector: { ...podSelector, ...selector } };
}

/** setScheduling: the class's tolerations the pod does not already have are added. */
function tolerations(spec: Obj, scheduling: Obj): Obj {
  const extra = Array.isArray(scheduling["tolerations"]) ? scheduling["tolerations"] : [];
  if (extra.length === 0) return {};
  const own = Array.isArray(spec["tolerations"]) ? spec["tolerations"] : [];
  const seen = new Set(own.map((t) => JSON.stringify(t)));
  return { tolerations: [...own, ...extra.filter((t) => !seen.has(JSON.stringify(t)))] };
}
