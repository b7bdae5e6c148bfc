// EC2NodeClass CEL predicates for selector terms, block devices, tags, kubelet and networking (rules 17–54).
import { celRule, EC2NODECLASS_CEL_RULES } from "../api/cel-rules.ts";
import { celInt, has, items, listLiteral, sel, type CelPredicate } from "../cel.ts";
import { isObject } from "../object.ts";

const anyOf = (x: unknown, fields: readonly string[]): boolean => fields.some((f) => has(x, f));
const all = (list: unknown, fn: (x: unknown) => boolean): boolean => items(list).every(fn);
const mapValue = (map: unknown, key: unknown): unknown => (isObject(map) ? map[String(key)] : undefined);
const tagsNotEmpty: CelPredicate = (self) => all(self, (k) => k !== "" && mapValue(self, k) !== "");
const keysIn = (id: string): CelPredicate => {
  const allowed = listLiteral(celRule(EC2NODECLASS_CEL_RULES, id));
  return (self) => all(self, (k) => allowed.has(String(k)));
};
const RESERVED_KEYS = new Set(["cpu", "memory", "ephemeral-storage", "pid"]);
const notNegative: CelPredicate = (self) => all(self, (k) => !String(mapValue(self, k)).startsWith("-"));
const noTag = (tag: string): CelPredicate => (self) => all(self, (k) => k !== tag);

/** Selector-term, block-device and tag predicates. `.all()` is kept where upstream wrote it (quirk §10.1). */
export const TERM_PREDICATES = {
  tagsNotEmpty,
  byId: {
    "EC2NodeClass/17": (self) => items(self).filter((x) => (has(x, "rootVolume") ? sel(x, "rootVolume") === true : false)).length <= 1,
    "EC2NodeClass/18": (self) => has(self, "snapshotID") || has(self, "volumeSize"),
    "EC2NodeClass/19": (self) => !has(self, "volumeInitializationRate") || (has(self, "snapshotID") && sel(self, "snapshotID") !== ""),
    "EC2NodeClass/20": (self) => all(self, (x) => anyOf(x, ["tags", "id", "instanceMatchCriteria"])),
    "EC2NodeClass/21": (self) => !all(self, (x) => has(x, "id") && anyOf(x, ["tags", "ownerID", "instanceMatchCriteria"])),
    "EC2NodeClass/22": tagsNotEmpty,
    "EC2NodeClass/24": (self) => self !== "",
    "EC2NodeClass/39": (self) => self !== "",
    "EC2NodeClass/40": (self) => items(self).length !== 0,
    "EC2NodeClass/41": (self) => all(self, (x) => anyOf(x, ["tags", "id", "name"])),
    "EC2NodeClass/42": (self) => !all(self, (x) => has(x, "id") && anyOf(x, ["tags", "name"])),
    "EC2NodeClass/43": (self) => !all(self, (x) => has(x, "name") && anyOf(x, ["tags", "id"])),
    "EC2NodeClass/44": tagsNotEmpty,
    "EC2NodeClass/45": (self) => items(self).length !== 0,
    "EC2NodeClass/46": (self) => all(self, (x) => anyOf(x, ["tags", "id"])),
    "EC2NodeClass/47": (self) => !all(self, (x) => has(x, "id") && has(x, "tags")),
    "EC2NodeClass/48": tagsNotEmpty,
    "EC2NodeClass/49": (self) => all(self, (k) => k !== ""),
    "EC2NodeClass/50": noTag("eks:eks-cluster-name"),
    "EC2NodeClass/51": (self) => all(self, (k) => !String(k).startsWith("kubernetes.io/cluster")),
    "EC2NodeClass/52": noTag("karpenter.sh/nodepool"),
    "EC2NodeClass/53": noTag("karpenter.sh/nodeclaim"),
    "EC2NodeClass/54": noTag("karpenter.k8s.aws/ec2nodeclass"),
  } as Readonly<Record<string, CelPredicate>>,
};

/** Kubelet predicates (rules 25–34; gone at HEAD where kubelet is schemaless). */
export const KUBELET_PREDICATES: Readonly<Record<string, CelPredicate>> = {
  "EC2NodeClass/25": (self) =>
    has(self, "imageGCHighThresholdPercent") && has(self, "imageGCLowThresholdPercent")
      ? celInt(sel(self, "imageGCHighThresholdPercent")) > celInt(sel(self, "imageGCLowThresholdPercent"))
      : true,
  "EC2NodeClass/26": (self) => (has(self, "evictionSoft") ? all(sel(self, "evictionSoft"), (e) => items(sel(self, "evictionSoftGracePeriod")).includes(e)) : true),
  "EC2NodeClass/27": (self) => (has(self, "evictionSoftGracePeriod") ? all(sel(self, "evictionSoftGracePeriod"), (e) => items(sel(self, "evictionSoft")).includes(e)) : true),
  "EC2NodeClass/28": keysIn("EC2NodeClass/28"),
  "EC2NodeClass/29": keysIn("EC2NodeClass/29"),
  "EC2NodeClass/30": keysIn("EC2NodeClass/30"),
  "EC2NodeClass/31": (self) => all(self, (k) => RESERVED_KEYS.has(String(k))),
  "EC2NodeClass/32": notNegative,
  "EC2NodeClass/33": (self) => all(self, (k) => RESERVED_KEYS.has(String(k))),
  "EC2NodeClass/34": notNegative,
};

const sameSlot = (x: unknown, y: unknown): boolean =>
  sel(x, "networkCardIndex") === sel(y, "networkCardIndex") && sel(x, "deviceIndex") === sel(y, "deviceIndex");
const efaOnCard = (x: unknown, y: unknown): boolean => sel(x, "networkCardIndex") === sel(y, "networkCardIndex") && sel(y, "interfaceType") === "efa-only";

/** connectionTracking, networkInterfaces and placementGroupSelector predicates (23, 35–38). */
export const NETWORK_PREDICATES: Readonly<Record<string, CelPredicate>> = {
  "EC2NodeClass/23": (self) => has(self, "tcpEstablishedTimeout") || has(self, "udpStreamTimeout") || has(self, "udpTimeout"),
  "EC2NodeClass/35": (self) =>
    items(self).length === 0 ||
    items(self).some((x) => sel(x, "deviceIndex") === 0 && sel(x, "networkCardIndex") === 0 && sel(x, "interfaceType") === "interface"),
  "EC2NodeClass/36": (self) => {
    const list = items(self);
    return list.every(
      (x) => list.filter((y) => sameSlot(x, y)).length === 1 && (sel(x, "interfaceType") !== "efa-only" || list.filter((y) => efaOnCard(x, y)).length === 1),
    );
  },
  "EC2NodeClass/37": (self) => has(self, "name") || has(self, "id"),
  "EC2NodeClass/38": (self) => !(has(self, "name") && has(self, "id")),
};
