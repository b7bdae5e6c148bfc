/** Chooses the user-data generator by AMI family; AL2 uses bootstrap.sh, Custom passes spec.userData through. */
import { labelFlag, mimeDocument, taintFlag, userParts, type BootstrapOptions } from "./bootstrap.ts";
import { bottlerocketUserData } from "./bottlerocket.ts";
import { al2023UserData } from "./nodeadm.ts";

function quote(value: string): string {
  return `'${value.replaceAll("'", "'\\''")}'`;
}

/** AL2: the user's parts, then a shell part running /etc/eks/bootstrap.sh with labels and taints as kubelet flags. */
export function al2UserData(options: BootstrapOptions): string {
  const extra = [`--node-labels=${labelFlag(options.labels)}`];
  if (options.taints.length > 0) extra.push(`--register-with-taints=${taintFlag(options.taints)}`);
  if (options.kubelet.maxPods !== undefined) extra.push(`--max-pods=${options.kubelet.maxPods}`);
  const args = [`/etc/eks/bootstrap.sh ${quote(options.clusterName)}`, `--apiserver-endpoint ${quote(options.clusterEndpoint)}`];
  if (options.caBundle !== undefined) args.push(`--b64-cluster-ca ${quote(options.caBundle)}`);
  if (options.kubelet.maxPods !== undefined) args.push("--use-max-pods false");
  const dns = options.kubelet.clusterDNS?.[0];
  if (dns !== undefined) args.push(`--dns-cluster-ip ${quote(dns)}`);
  args.push(`--kubelet-extra-args ${quote(extra.join(" "))}`);
  const script = `#!/bin/bash -xe\nexec > >(tee /var/log/user-data.log|logger -t user-data -s 2>/dev/console) 2>&1\n${args.join(" \\\n")}\n`;
  return mimeDocument([...userParts(options.customUserData, "text/x-shellscript; charset=\"us-ascii\""), { contentType: "text/x-shellscript; charset=\"us-ascii\"", body: script }]);
}

/** User data for an AMI family (as named by amiFamilyOf); unknown and Windows families pass spec.userData through. */
export function userDataFor(family: string, options: BootstrapOptions): string {
  switch (family) {
    case "AL2023": return al2023UserData(options);
    case "Bottlerocket": return bottlerocketUserData(options);
    case "AL2": return al2UserData(options);
    default: return options.customUserData ?? "";
  }
}
