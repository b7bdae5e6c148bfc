/**
 * Reads PersistentVolumeClaim, PersistentVolume, StorageClass and CSINode objects (plain JSON, from
 * the informer caches or a `kerf simulate` scenario) into the VolumeIndex the scheduler reads
 * (volumes.ts). Pure. A malformed object throws an Error naming the field; callers add which
 * object it was (scenario.ts its document index).
 */
import { Requirement, type NodeSelectorRequirement } from "../../../policies/domain/requirements.ts";
import {
  csiDriverOf,
  EBS_CSI_DRIVER,
  type ClaimInfo,
  type ClassInfo,
  type VolumeIndex,
  type VolumeInfo,
} from "./volumes.ts";

type Obj = Readonly<Record<string, unknown>>;

const o = (v: unknown): Obj => (typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Obj) : {});

/** The kinds this module reads. */
export const VOLUME_KINDS: ReadonlySet<string> = new Set([
  "PersistentVolumeClaim",
  "PersistentVolume",
  "StorageClass",
  "CSINode",
]);

/** The annotation the PersistentVolume controller puts on a claim once it is bound. */
const BIND_COMPLETED = "pv.kubernetes.io/bind-completed";

/** The annotation that makes a StorageClass the default for claims that name none (DefaultStorageClass admission). */
const DEFAULT_CLASS = "storageclass.kubernetes.io/is-default-class";

function list(value: unknown, field: string): Obj[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new Error(`${field} must be a list`);
  return value.map((v, i) => {
    if (typeof v !== "object" || v === null || Array.isArray(v)) throw new Error(`${field}[${i}] must be an object`);
    return v as Obj;
  });
}

function optionalString(value: unknown, field: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string") throw new Error(`${field} must be a string`);
  return value;
}

function strings(value: unknown, field: string): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || value.some((v) => typeof v !== "string"))
    throw new Error(`${field} must be a list of strings`);
  return value as string[];
}

const meta = (doc: Obj): Obj => o(doc["metadata"]);
const nameOf = (doc: Obj): string => String(meta(doc)["name"] ?? "");
const deleting = (doc: Obj): boolean =>
  meta(doc)["deletionTimestamp"] !== undefined && meta(doc)["deletionTimestamp"] !== null;

/** A node selector term's expressions, each checked as a requirement (operator, values). */
function selectorTerm(term: Obj, field: string): NodeSelectorRequirement[] {
  return list(term["matchExpressions"], `${field}.matchExpressions`).map((e, i) => {
    const at = `${field}.matchExpressions[${i}]`;
    const key = optionalString(e["key"], `${at}.key`);
    if (key === undefined || key === "") throw new Error(`${at}.key is required`);
    const r = { key, operator: String(e["operator"] ?? ""), values: strings(e["values"], `${at}.values`) };
    try {
      Requirement.fromSelector(r);
    } catch (error) {
      throw new Error(`${at}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
    return r;
  });
}

/** A PersistentVolumeClaim; `defaultClass` stands in for a missing `spec.storageClassName`, as admission sets it. */
export function claimInfo(doc: Obj, defaultClass?: string): ClaimInfo {
  const spec = o(doc["spec"]);
  const className = optionalString(spec["storageClassName"], "spec.storageClassName");
  const volumeName = optionalString(spec["volumeName"], "spec.volumeName");
  const annotations = o(meta(doc)["annotations"]);
  return {
    ...(volumeName === undefined ? {} : { volumeName, bindCompleted: BIND_COMPLETED in annotations }),
    ...((className ?? defaultClass) === undefined ? {} : { storageClassName: className ?? defaultClass }),
    deleting: deleting(doc),
    lost: o(doc["status"])["phase"] === "Lost",
  };
}

/** A PersistentVolume: its node affinity terms and the driver attaching it. */
export function volumeInfo(doc: Obj): VolumeInfo {
  const spec = o(doc["spec"]);
  const required = o(o(spec["nodeAffinity"])["required"]);
  const field = "spec.nodeAffinity.required.nodeSelectorTerms";
  const terms = list(required["nodeSelectorTerms"], field).map((t, i) => selectorTerm(t, `${field}[${i}]`));
  const csi = spec["csi"] === undefined ? undefined : optionalString(o(spec["csi"])["driver"], "spec.csi.driver");
  const driver = csi ?? (spec["awsElasticBlockStore"] === undefined ? undefined : EBS_CSI_DRIVER);
  const local = spec["local"] !== undefined || spec["hostPath"] !== undefined;
  return { terms, ...(driver === undefined ? {} : { driver }), local, deleting: deleting(doc) };
}

/** A StorageClass: provisioner, binding mode and allowed topologies (each term's expressions as In). */
export function classInfo(doc: Obj): ClassInfo {
  const provisioner = optionalString(doc["provisioner"], "provisioner");
  if (provisioner === undefined || provisioner === "") throw new Error("provisioner is required");
  const mode = optionalString(doc["volumeBindingMode"], "volumeBindingMode") ?? "Immediate";
  if (mode !== "Immediate" && mode !== "WaitForFirstConsumer") {
    throw new Error(`volumeBindingMode must be Immediate or WaitForFirstConsumer, not ${mode}`);
  }
  const allowedTopologies = list(doc["allowedTopologies"], "allowedTopologies")
    .map((term, i) =>
      list(term["matchLabelExpressions"], `allowedTopologies[${i}].matchLabelExpressions`).map((e, j) => {
        const at = `allowedTopologies[${i}].matchLabelExpressions[${j}]`;
        const key = optionalString(e["key"], `${at}.key`);
        const values = strings(e["values"], `${at}.values`);
        if (key === undefined || key === "" || values.length === 0) throw new Error(`${at} needs a key and values`);
        return { key, operator: "In", values };
      }),
    )
    .filter((term) => term.length > 0);
  return {
    provisioner: csiDriverOf(provisioner),
    waitForFirstConsumer: mode === "WaitForFirstConsumer",
    allowedTopologies,
  };
}

/** A CSINode's attachable volumes per driver (null: the driver reports no count, unbounded). */
export function csiNodeLimits(doc: Obj): Map<string, number | null> {
  const out = new Map<string, number | null>();
  list(o(doc["spec"])["drivers"], "spec.drivers").forEach((d, i) => {
    const name = optionalString(d["name"], `spec.drivers[${i}].name`);
    if (name === undefined || name === "") throw new Error(`spec.drivers[${i}].name is required`);
    const count = o(d["allocatable"])["count"];
    if (count !== undefined && count !== null && (typeof count !== "number" || !Number.isInteger(count) || count < 0)) {
      throw new Error(`spec.drivers[${i}].allocatable.count must be a non-negative integer`);
    }
    out.set(name, typeof count === "number" ? count : null);
  });
  return out;
}

/** The objects of each kind, as plain JSON. */
export interface VolumeObjects {
  readonly claims?: readonly unknown[] | undefined;
  readonly volumes?: readonly unknown[] | undefined;
  readonly classes?: readonly unknown[] | undefined;
  readonly csiNodes?: readonly unknown[] | undefined;
}

/**
 * The default StorageClass: annotated `storageclass.kubernetes.io/is-default-class: "true"`, the newest
 * by creationTimestamp when several are (the apiserver's DefaultStorageClass admission, Kubernetes 1.26+;
 * Karpenter's 'should launch nodes for pods with ephemeral volume using the newest storage class').
 */
function newestDefault(classes: readonly Obj[]): string | undefined {
  const defaults = classes.filter((c) => o(meta(c)["annotations"])[DEFAULT_CLASS] === "true");
  const created = (c: Obj): string => String(meta(c)["creationTimestamp"] ?? "");
  const newest = defaults.reduce<Obj | undefined>(
    (best, c) => (best === undefined || created(c) > created(best) ? c : best),
    undefined,
  );
  return newest === undefined ? undefined : nameOf(newest);
}

/**
 * The VolumeIndex of the objects; `at(kind, i, fn)` runs each read (scenario.ts wraps it to name the
 * document). Claims without a class get the default StorageClass, as the apiserver's admission does.
 */
export function volumeIndexOf(
  objects: VolumeObjects,
  at: <T>(kind: string, index: number, doc: Obj, fn: () => T) => T = (_k, _i, _d, fn) => fn(),
): VolumeIndex {
  const docs = (xs: readonly unknown[] | undefined): Obj[] => (xs ?? []).map(o);
  const classDocs = docs(objects.classes);
  const defaultClass = newestDefault(classDocs);
  const claims = new Map(
    docs(objects.claims).map((d, i) => {
      const ns = String(meta(d)["namespace"] ?? "default");
      return [`${ns}/${nameOf(d)}`, at("PersistentVolumeClaim", i, d, () => claimInfo(d, defaultClass))] as const;
    }),
  );
  const volumes = new Map(
    docs(objects.volumes).map((d, i) => [nameOf(d), at("PersistentVolume", i, d, () => volumeInfo(d))] as const),
  );
  const classes = new Map(classDocs.map((d, i) => [nameOf(d), at("StorageClass", i, d, () => classInfo(d))] as const));
  const nodeLimits = new Map(
    docs(objects.csiNodes).map((d, i) => [nameOf(d), at("CSINode", i, d, () => csiNodeLimits(d))] as const),
  );
  return { claims, volumes, classes, nodeLimits, ...(defaultClass === undefined ? {} : { defaultClass }) };
}

/** Whether a scenario or view holds any volume object (without any, pods' claims are not checked). */
export function hasVolumeObjects(objects: VolumeObjects): boolean {
  return [objects.claims, objects.volumes, objects.classes, objects.csiNodes].some((xs) => (xs?.length ?? 0) > 0);
}

/** Checks one volume object of a scenario (throws naming the field); `kind` is one of VOLUME_KINDS. */
export function checkVolumeObject(doc: Obj): void {
  switch (doc["kind"]) {
    case "PersistentVolumeClaim":
      claimInfo(doc);
      return;
    case "PersistentVolume":
      volumeInfo(doc);
      return;
    case "StorageClass":
      classInfo(doc);
      return;
    case "CSINode":
      csiNodeLimits(doc);
      return;
    default:
      throw new Error(`not a volume object: ${String(doc["kind"])}`);
  }
}

/**
 * A scenario claim as a healthy cluster has it: one naming a volume carries the bind-completed
 * annotation the PersistentVolume controller adds, unless its `status.phase` says it is not Bound.
 */
function scenarioClaim(doc: Obj): Obj {
  const m = meta(doc);
  const annotations = o(m["annotations"]);
  const phase = o(doc["status"])["phase"];
  if (typeof o(doc["spec"])["volumeName"] !== "string" || BIND_COMPLETED in annotations) return doc;
  if (phase !== undefined && phase !== "Bound") return doc;
  return { ...doc, metadata: { ...m, annotations: { ...annotations, [BIND_COMPLETED]: "yes" } } };
}

/** The cluster view's volume fields (ClusterView) from a scenario's volume objects; always set, maybe empty. */
export function volumeView(docs: readonly Obj[]): {
  persistentVolumeClaims: Obj[];
  persistentVolumes: Obj[];
  storageClasses: Obj[];
  csiNodes: Obj[];
} {
  const of = (kind: string): Obj[] => docs.filter((d) => d["kind"] === kind);
  return {
    persistentVolumeClaims: of("PersistentVolumeClaim").map(scenarioClaim),
    persistentVolumes: of("PersistentVolume"),
    storageClasses: of("StorageClass"),
    csiNodes: of("CSINode"),
  };
}

/** A StatefulSet's volumeClaimTemplates (name and spec). */
function claimTemplates(sts: Obj): { name: string; spec: Obj }[] {
  return list(o(sts["spec"])["volumeClaimTemplates"], "spec.volumeClaimTemplates").map((t) => ({
    name: nameOf(t),
    spec: o(t["spec"]),
  }));
}

const claimName = (template: string, sts: Obj, ordinal: number): string => `${template}-${nameOf(sts)}-${ordinal}`;

/**
 * A StatefulSet replica's pod spec as its controller writes it: each volumeClaimTemplate becomes the
 * pod volume of the same name, using claim `<template>-<statefulset>-<ordinal>`.
 */
export function withClaimTemplates(sts: Obj, ordinal: number, podSpec: unknown): unknown {
  const templates = claimTemplates(sts);
  if (templates.length === 0) return podSpec;
  const spec = o(podSpec);
  const names = new Set(templates.map((t) => t.name));
  const own = (Array.isArray(spec["volumes"]) ? (spec["volumes"] as unknown[]) : []).filter(
    (v) => !names.has(String(o(v)["name"])),
  );
  const volumes = templates.map((t) => ({
    name: t.name,
    persistentVolumeClaim: { claimName: claimName(t.name, sts, ordinal) },
  }));
  return { ...spec, volumes: [...own, ...volumes] };
}

/**
 * The claims the StatefulSet controller would create for `replicas` replicas of each StatefulSet in
 * `docs` that the documents do not hold: unbound, with the template's spec (its class, or none: the
 * default class then applies).
 */
export function templateClaims(docs: readonly Obj[]): Obj[] {
  const held = new Set(
    docs
      .filter((d) => d["kind"] === "PersistentVolumeClaim")
      .map((d) => `${String(meta(d)["namespace"] ?? "default")}/${nameOf(d)}`),
  );
  return docs
    .filter((d) => d["kind"] === "StatefulSet")
    .flatMap((sts) => {
      const namespace = String(meta(sts)["namespace"] ?? "default");
      const count = Number(o(sts["spec"])["replicas"] ?? 1);
      return claimTemplates(sts).flatMap((t) =>
        Array.from({ length: count }, (_, i) => claimName(t.name, sts, i))
          .filter((name) => !held.has(`${namespace}/${name}`))
          .map((name) => ({
            apiVersion: "v1",
            kind: "PersistentVolumeClaim",
            metadata: { name, namespace },
            spec: t.spec,
          })),
      );
    });
}
