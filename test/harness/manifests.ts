/**
 * Reading shipped manifests (the rendered Helm chart, see chart.ts) as a cluster would see them: the
 * objects of a multi-document YAML text, the environment of a Deployment's container resolved the way
 * the kubelet resolves it (literal values, ConfigMap keys, the downward API), and how a container
 * starts kerf.
 */
import type { KubernetesObject, V1ConfigMap, V1Container, V1Deployment } from "@kubernetes/client-node";
import { parseAllDocuments } from "yaml";

/** A parsed manifest object, with the fields the helpers read. */
export interface ManifestObject extends KubernetesObject {
  readonly apiVersion: string;
  readonly kind: string;
  metadata: { name: string; namespace?: string; [key: string]: unknown };
  [key: string]: unknown;
}

/** Every object of a multi-document YAML text (`source` names it in errors), empty documents skipped. */
export function parseManifests(text: string, source: string): ManifestObject[] {
  return parseAllDocuments(text)
    .map((doc) => {
      if (doc.errors.length > 0) throw new Error(`${source}: ${doc.errors.map((e) => e.message).join("; ")}`);
      return doc.toJS() as ManifestObject | null;
    })
    .filter((o): o is ManifestObject => o !== null);
}

/** The one object of `kind` (and `name`, when given); throws when absent or ambiguous. */
export function only<T = ManifestObject>(objects: readonly ManifestObject[], kind: string, name?: string): T {
  const found = objects.filter((o) => o.kind === kind && (name === undefined || o.metadata.name === name));
  if (found.length !== 1)
    throw new Error(`expected one ${kind}${name === undefined ? "" : ` ${name}`}, found ${found.length}`);
  return found[0] as T;
}

/** The pod a container runs in, for the downward API. */
export interface PodIdentity {
  readonly name: string;
  readonly namespace: string;
}

function fieldValue(fieldPath: string, pod: PodIdentity): string {
  if (fieldPath === "metadata.name") return pod.name;
  if (fieldPath === "metadata.namespace") return pod.namespace;
  throw new Error(`downward API field ${fieldPath} is not modelled by this helper`);
}

/**
 * The container's environment as the kubelet builds it: `value`, `configMapKeyRef` (from
 * `configMaps`; a missing key is an error unless the ref is optional, as for the kubelet) and
 * `fieldRef` (metadata.name / metadata.namespace). Any other source throws, so a manifest change the
 * tests cannot resolve fails loudly instead of being skipped.
 */
export function containerEnvironment(
  container: V1Container,
  configMaps: readonly V1ConfigMap[],
  pod: PodIdentity,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const variable of container.env ?? []) {
    const from = variable.valueFrom;
    if (from === undefined) {
      env[variable.name] = variable.value ?? "";
      continue;
    }
    if (from.fieldRef !== undefined) {
      env[variable.name] = fieldValue(from.fieldRef.fieldPath, pod);
      continue;
    }
    const ref = from.configMapKeyRef;
    if (ref === undefined)
      throw new Error(`env ${variable.name}: only value, configMapKeyRef and fieldRef are modelled`);
    const value = configMaps.find((c) => c.metadata?.name === ref.name)?.data?.[ref.key];
    if (value === undefined && ref.optional !== true)
      throw new Error(`env ${variable.name}: ConfigMap ${ref.name} has no key ${ref.key}`);
    if (value !== undefined) env[variable.name] = value;
  }
  return env;
}

/** The Deployment's one container named `name`. */
export function deploymentContainer(deployment: V1Deployment, name: string): V1Container {
  const container = deployment.spec?.template.spec?.containers.find((c) => c.name === name);
  if (container === undefined)
    throw new Error(`Deployment ${deployment.metadata?.name ?? ""} has no container ${name}`);
  return container;
}

/**
 * How a container starts kerf: Node's command-line flags (none when it runs the `kerf` executable),
 * the kerf subcommand and its argv.
 */
export interface KerfInvocation {
  readonly nodeFlags: readonly string[];
  readonly subcommand: string;
  readonly argv: readonly string[];
}

/**
 * Reads `command` + `args` of a container that runs kerf, either as `kerf SUB …` or as
 * `node [FLAGS] …/webhook/cli/kerf.mjs SUB …` (the form that can pass V8 flags Node refuses in
 * NODE_OPTIONS, such as --optimize-for-size). Throws on anything else.
 */
export function kerfInvocation(container: V1Container): KerfInvocation {
  const words = [...(container.command ?? []), ...(container.args ?? [])];
  if (words[0] === "kerf") return { nodeFlags: [], subcommand: words[1] ?? "", argv: words.slice(2) };
  if (words[0] !== "node") throw new Error(`container ${container.name} runs ${words[0] ?? "nothing"}, not kerf`);
  const script = words.findIndex((w, i) => i > 0 && !w.startsWith("-"));
  if (script < 0 || !(words[script] ?? "").endsWith("/webhook/cli/kerf.mjs"))
    throw new Error(`container ${container.name}: node runs ${words[script] ?? "no script"}, not webhook/cli/kerf.mjs`);
  return { nodeFlags: words.slice(1, script), subcommand: words[script + 1] ?? "", argv: words.slice(script + 2) };
}
