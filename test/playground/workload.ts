/**
 * What the playground puts into the cluster: the example NodePool and EC2NodeClass, and the
 * `inflate` Deployment it scales.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { AppsV1Api, CustomObjectsApi, type KubeConfig } from "@kubernetes/client-node";
import { parseAllDocuments } from "yaml";

const root = path.resolve(import.meta.dirname, "..", "..");
export const EXAMPLES = path.join(root, "manifests", "examples", "playground", "playground.yaml");
export const NAMESPACE = "default";
export const INFLATE = "inflate";

const plurals: Readonly<Record<string, string>> = { NodePool: "nodepools", EC2NodeClass: "ec2nodeclasses" };

interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string };
}

/** Creates every object of the playground example file through the apiserver (and so through the kerf webhook). */
export async function applyExamples(kc: KubeConfig, file = EXAMPLES): Promise<string[]> {
  const custom = kc.makeApiClient(CustomObjectsApi);
  const docs = parseAllDocuments(readFileSync(file, "utf8"))
    .map((d) => d.toJS() as Manifest)
    .filter((d) => d !== null);
  const applied: string[] = [];
  for (const doc of docs) {
    const plural = plurals[doc.kind];
    if (plural === undefined) throw new Error(`applying ${file}: unexpected kind ${doc.kind}`);
    const [group = "", version = ""] = doc.apiVersion.split("/");
    try {
      await custom.createClusterCustomObject({ group, version, plural, body: doc });
    } catch (error) {
      const body = (error as { body?: unknown }).body;
      throw new Error(
        `applying ${doc.kind} ${doc.metadata.name}: ${typeof body === "string" ? body : (error as Error).message}`,
        { cause: error },
      );
    }
    applied.push(`${doc.kind}/${doc.metadata.name}`);
  }
  return applied;
}

/** Creates the inflate Deployment with 0 replicas: pause containers requesting 1Gi of memory each. */
export async function createInflate(kc: KubeConfig): Promise<void> {
  const labels = { app: INFLATE };
  await kc.makeApiClient(AppsV1Api).createNamespacedDeployment({
    namespace: NAMESPACE,
    body: {
      metadata: { name: INFLATE, labels },
      spec: {
        replicas: 0,
        selector: { matchLabels: labels },
        template: {
          metadata: { labels },
          spec: {
            terminationGracePeriodSeconds: 0,
            containers: [
              {
                name: INFLATE,
                image: "public.ecr.aws/eks-distro/kubernetes/pause:3.7",
                resources: { requests: { memory: "1Gi" } },
              },
            ],
          },
        },
      },
    },
  });
}

/** Sets inflate's replica count. */
export async function scaleInflate(kc: KubeConfig, replicas: number): Promise<void> {
  const apps = kc.makeApiClient(AppsV1Api);
  await apps.patchNamespacedDeploymentScale({
    name: INFLATE,
    namespace: NAMESPACE,
    body: [{ op: "replace", path: "/spec/replicas", value: replicas }],
  });
}
