/**
 * The corpus states what Karpenter v1.14.1's CRDs answer (the API release `kerf check` judges against by default:
 * policies/api/releases DEFAULT_KARPENTER_VERSION). The CRDs kerf installs serve v1.15.1's API, which answers a
 * few cases otherwise; each is listed here with why, so the run against the installed CRDs expects v1.15.1's
 * answer for them and the corpus's for every other case.
 */
const KUBELET_FREE_FORM =
  "v1.15 makes spec.kubelet a free-form KubeletConfiguration the CRD no longer validates " +
  "(Karpenter reports it on the EC2NodeClass instead; kerf: ValidationSucceeded=False, InvalidKubeletConfiguration)";
const CONSOLIDATE_AFTER_DEFAULT = "v1.15 defaults spec.disruption.consolidateAfter to 0s on its own";

export const INSTALLED_RELEASE_ANSWERS: Readonly<
  Record<string, { readonly apiserver: "accept" | "reject"; readonly why: string }>
> = {
  "NodePool: rejects a disruption block with only consolidationPolicy, which kerf's mutation would fix": {
    apiserver: "accept",
    why: CONSOLIDATE_AFTER_DEFAULT,
  },
  "NodePool: rejects an empty disruption block, which kerf's mutation would fix": {
    apiserver: "accept",
    why: CONSOLIDATE_AFTER_DEFAULT,
  },
  "NodePool: rejects a null consolidateAfter, which kerf's mutation would fix": {
    apiserver: "accept",
    why: CONSOLIDATE_AFTER_DEFAULT,
  },
  ...Object.fromEntries(
    [
      "rejects imageGC high below low",
      "rejects evictionSoft without a grace period",
      "rejects a grace period without evictionSoft",
      "rejects an unknown evictionHard key",
      "rejects an unknown evictionSoft key",
      "rejects an unknown evictionSoftGracePeriod key",
      "rejects an unknown kubeReserved key",
      "rejects a negative kubeReserved value",
      "rejects an unknown systemReserved key",
      "rejects a negative systemReserved value",
    ].map((name) => [`EC2NodeClass: ${name}`, { apiserver: "accept" as const, why: KUBELET_FREE_FORM }]),
  ),
};
