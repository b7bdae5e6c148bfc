// The 54 EC2NodeClass CEL rules (v1.14.1) as predicates: spec-level and AMI rules here, terms/tags/kubelet below.
import { celRule, EC2NODECLASS_CEL_RULES } from "../api/cel-rules.ts";
import { celPolicy, find, has, items, listLiteral, sel, type CelPredicate } from "../cel.ts";
import { re2RegExp } from "../re2.ts";
import type { Policy } from "../types.ts";
import { KUBELET_PREDICATES, NETWORK_PREDICATES, TERM_PREDICATES } from "./parity-terms.ts";

const ALIAS_FAMILIES = listLiteral(celRule(EC2NODECLASS_CEL_RULES, "EC2NodeClass/14"));
const WINDOWS_FAMILIES = listLiteral(celRule(EC2NODECLASS_CEL_RULES, "EC2NodeClass/15"));

/** Rules 2–7: when amiFamily is set and an alias of `alias` family is used, amiFamily must be `family` or Custom. */
function aliasMatchesFamily(alias: string, family: string): CelPredicate {
  return (self) => {
    if (!has(self, "amiFamily")) return true;
    const usesAlias = items(sel(self, "amiSelectorTerms")).some((x) => has(x, "alias") && find(sel(x, "alias"), /^[^@]+/) === alias);
    if (!usesAlias) return true;
    const amiFamily = sel(self, "amiFamily");
    return amiFamily === "Custom" || amiFamily === family;
  };
}

const anyOf = (x: unknown, fields: readonly string[]): boolean => fields.some((f) => has(x, f));
const split = (value: unknown): string[] => String(value).split("@");

/** Predicates for .spec and .spec.amiSelectorTerms rules (1–16). */
/** The rule's `self.matches('^[a-zA-Z0-9]+@.+$')`, with RE2's `.` (a \r or U+2028 in the version matches). */
const ALIAS_FORMAT = re2RegExp("^[a-zA-Z0-9]+@.+$");

const SPEC_PREDICATES: Readonly<Record<string, CelPredicate>> = {
  "EC2NodeClass/1": (self) => has(self, "role") !== has(self, "instanceProfile"),
  "EC2NodeClass/2": aliasMatchesFamily("al2", "AL2"),
  "EC2NodeClass/3": aliasMatchesFamily("al2023", "AL2023"),
  "EC2NodeClass/4": aliasMatchesFamily("bottlerocket", "Bottlerocket"),
  "EC2NodeClass/5": aliasMatchesFamily("windows2019", "Windows2019"),
  "EC2NodeClass/6": aliasMatchesFamily("windows2022", "Windows2022"),
  "EC2NodeClass/7": aliasMatchesFamily("windows2025", "Windows2025"),
  "EC2NodeClass/8": (self) => items(sel(self, "amiSelectorTerms")).some((x) => has(x, "alias")) || has(self, "amiFamily"),
  "EC2NodeClass/9": (self) => items(self).every((x) => anyOf(x, ["tags", "id", "name", "alias", "ssmParameter"])),
  "EC2NodeClass/10": (self) => !items(self).some((x) => has(x, "id") && anyOf(x, ["alias", "tags", "name", "owner"])),
  "EC2NodeClass/11": (self) => !items(self).some((x) => has(x, "alias") && anyOf(x, ["id", "tags", "name", "owner"])),
  "EC2NodeClass/12": (self) => !(items(self).some((x) => has(x, "alias")) && items(self).length !== 1),
  "EC2NodeClass/13": (self) => ALIAS_FORMAT.test(String(self)),
  "EC2NodeClass/14": (self) => ALIAS_FAMILIES.has(split(self)[0] ?? ""),
  "EC2NodeClass/15": (self) => {
    const parts = split(self);
    if (!WINDOWS_FAMILIES.has(parts[0] ?? "")) return true;
    if (parts.length < 2) throw new TypeError("index out of range");
    return parts[1] === "latest";
  },
  "EC2NodeClass/16": TERM_PREDICATES.tagsNotEmpty,
};

/** Predicates by EC2NodeClass rule id. */
export const EC2NODECLASS_PREDICATES: Readonly<Record<string, CelPredicate>> = {
  ...SPEC_PREDICATES,
  ...TERM_PREDICATES.byId,
  ...KUBELET_PREDICATES,
  ...NETWORK_PREDICATES,
};

/** The EC2NodeClass "cel" policy. */
export const EC2NODECLASS_CEL_POLICY: Policy = celPolicy("EC2NodeClass", EC2NODECLASS_CEL_RULES, EC2NODECLASS_PREDICATES);
