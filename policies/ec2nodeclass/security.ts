// kerf security policies for EC2NodeClass: imdsv2-required and ebs-encrypted (both warn by default).
import { asString, get, objects } from "../object.ts";
import type { Issue, Policy, PolicyInput } from "../types.ts";

function imdsIssues(input: PolicyInput): Issue[] {
  // metadataOptions.httpTokens defaults to "required"; only an explicit "optional" allows IMDSv1.
  const tokens = asString(get(input.object, "spec", "metadataOptions", "httpTokens"));
  if (tokens !== "optional") return [];
  return [
    {
      path: "spec.metadataOptions.httpTokens",
      message: 'httpTokens is "optional": nodes accept IMDSv1 requests; set it to "required" (IMDSv2)',
    },
  ];
}

function ebsIssues(input: PolicyInput): Issue[] {
  // Without blockDeviceMappings Karpenter's per-family default volumes are encrypted.
  return objects(get(input.object, "spec", "blockDeviceMappings")).flatMap((mapping, i) => {
    const ebs = get(mapping, "ebs");
    if (ebs === undefined || get(ebs, "encrypted") === true) return [];
    const device = asString(mapping["deviceName"]) ?? `#${i}`;
    return [
      {
        path: `spec.blockDeviceMappings[${i}].ebs.encrypted`,
        message: `EBS volume ${device} is not encrypted; set ebs.encrypted: true`,
      },
    ];
  });
}

/** imdsv2-required: the instance metadata service requires session tokens. */
export const IMDSV2_POLICY: Policy = {
  id: "imdsv2-required",
  kinds: ["EC2NodeClass"],
  defaultSeverity: "warn",
  description: "metadataOptions.httpTokens must be required (IMDSv2 only)",
  check: imdsIssues,
};

/** ebs-encrypted: every EBS block device mapping sets encrypted: true. */
export const EBS_ENCRYPTED_POLICY: Policy = {
  id: "ebs-encrypted",
  kinds: ["EC2NodeClass"],
  defaultSeverity: "warn",
  description: "every blockDeviceMappings[].ebs sets encrypted: true",
  check: ebsIssues,
};
