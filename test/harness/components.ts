/**
 * Start functions for each real component: etcd, kube-apiserver, kube-scheduler,
 * kube-controller-manager, kwok, moto.
 */
import { readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Binaries } from "./binaries.ts";
import type { Pki } from "./certs.ts";
import { freePort, freePorts } from "./ports.ts";
import { ManagedProcess } from "./process.ts";
import { answers200, get } from "./probes.ts";

/** Where a component writes its log and data. */
export interface Workspace {
  readonly dir: string;
  readonly binaries: Binaries;
}

/** A started component and the address it serves. */
export interface Started {
  readonly process: ManagedProcess;
  readonly url: string;
}

/**
 * The apiserver must advertise a non-loopback address; on a host without a default route it
 * cannot pick one itself. The address is only advertised, never bound.
 */
function advertiseAddress(): string {
  for (const addresses of Object.values(os.networkInterfaces())) {
    const v4 = addresses?.find((a) => a.family === "IPv4" && !a.internal);
    if (v4 !== undefined) return v4.address;
  }
  return "192.0.2.10";
}

/** etcd, single member, data on tmpfs when available. */
export async function startEtcd(ws: Workspace): Promise<Started> {
  const [client, peer] = await freePorts(2);
  const url = `http://127.0.0.1:${client}`;
  const dataRoot = process.platform === "linux" ? "/dev/shm" : ws.dir;
  const dataDir = path.join(dataRoot, `kerf-etcd-${path.basename(ws.dir)}`);
  const proc = new ManagedProcess({
    name: "etcd",
    command: ws.binaries.etcd,
    logDir: ws.dir,
    args: [
      `--name=kerf`,
      `--data-dir=${dataDir}`,
      `--listen-client-urls=${url}`,
      `--advertise-client-urls=${url}`,
      `--listen-peer-urls=http://127.0.0.1:${peer}`,
      `--initial-advertise-peer-urls=http://127.0.0.1:${peer}`,
      `--initial-cluster=kerf=http://127.0.0.1:${peer}`,
      "--unsafe-no-fsync",
      "--log-level=warn",
    ],
  });
  await proc.waitReady(async () => (await get(`${url}/health`)).body.includes('"health":"true"'), 30_000);
  return { process: proc, url };
}

/** kube-apiserver flags, envtest's plus the additions test-environment.md §6.2 explains. */
function apiserverArgs(ws: Workspace, pki: Pki, etcdUrl: string, port: number): string[] {
  return [
    `--etcd-servers=${etcdUrl}`,
    `--secure-port=${port}`,
    "--bind-address=127.0.0.1",
    `--advertise-address=${advertiseAddress()}`,
    `--cert-dir=${ws.dir}`,
    `--tls-cert-file=${pki.apiserver.cert}`,
    `--tls-private-key-file=${pki.apiserver.key}`,
    "--service-cluster-ip-range=10.0.0.0/24",
    "--allow-privileged=true",
    "--disable-admission-plugins=ServiceAccount,TaintNodesByCondition",
    "--authorization-mode=RBAC",
    `--client-ca-file=${pki.ca.cert}`,
    `--service-account-issuer=https://127.0.0.1:${port}/`,
    `--service-account-key-file=${pki.serviceAccount.publicKey}`,
    `--service-account-signing-key-file=${pki.serviceAccount.privateKey}`,
    "--endpoint-reconciler-type=none",
    "--enable-priority-and-fairness=false",
    "--profiling=false",
  ];
}

/** kube-apiserver on a free port (or `port`, to restart on the same address). */
export async function startApiserver(ws: Workspace, pki: Pki, etcdUrl: string, port?: number): Promise<Started> {
  const securePort = port ?? (await freePort());
  const url = `https://127.0.0.1:${securePort}`;
  const proc = new ManagedProcess({
    name: "kube-apiserver",
    command: ws.binaries.kubeApiserver,
    logDir: ws.dir,
    args: apiserverArgs(ws, pki, etcdUrl, securePort),
  });
  await proc.waitReady(answers200(`${url}/readyz`, { ca: readFileSync(pki.ca.cert) }), 90_000);
  return { process: proc, url };
}

/**
 * kube-scheduler, no leader election. Its client is allowed 500 requests/s (default 50): at the
 * default, marking a burst of 1,000 pods Unschedulable alone takes 20 s, which would measure the
 * scheduler's client throttle instead of kerf (managed control planes raise it too).
 */
export async function startScheduler(ws: Workspace, kubeconfig: string): Promise<Started> {
  const port = await freePort();
  const proc = new ManagedProcess({
    name: "kube-scheduler",
    command: ws.binaries.kubeScheduler,
    logDir: ws.dir,
    args: [
      `--kubeconfig=${kubeconfig}`,
      `--authentication-kubeconfig=${kubeconfig}`,
      `--authorization-kubeconfig=${kubeconfig}`,
      "--leader-elect=false",
      "--bind-address=127.0.0.1",
      `--secure-port=${port}`,
      "--kube-api-qps=500",
      "--kube-api-burst=1000",
    ],
  });
  const url = `https://127.0.0.1:${port}`;
  await proc.waitReady(answers200(`${url}/healthz`, { insecure: true }), 60_000);
  return { process: proc, url };
}

/**
 * The controllers tests rely on: workloads (StatefulSets too), PDB status, garbage collection,
 * namespaces, and the PersistentVolume binder (a pre-bound claim becomes Bound, as kube-scheduler's
 * volume binding needs: operator-volumes.test.ts).
 */
const controllers = [
  "deployment-controller",
  "replicaset-controller",
  "daemonset-controller",
  "statefulset-controller",
  "disruption-controller",
  "garbage-collector-controller",
  "namespace-controller",
  "pod-garbage-collector-controller",
  "persistentvolume-binder-controller",
];

/** kube-controller-manager with the subset of controllers above. */
export async function startControllerManager(ws: Workspace, kubeconfig: string): Promise<Started> {
  const port = await freePort();
  const proc = new ManagedProcess({
    name: "kube-controller-manager",
    command: ws.binaries.kubeControllerManager,
    logDir: ws.dir,
    args: [
      `--kubeconfig=${kubeconfig}`,
      `--authentication-kubeconfig=${kubeconfig}`,
      `--authorization-kubeconfig=${kubeconfig}`,
      "--leader-elect=false",
      "--bind-address=127.0.0.1",
      `--secure-port=${port}`,
      `--controllers=${controllers.join(",")}`,
      "--use-service-account-credentials=false",
    ],
  });
  const url = `https://127.0.0.1:${port}`;
  await proc.waitReady(answers200(`${url}/healthz`, { insecure: true }), 60_000);
  return { process: proc, url };
}

/** kwok, managing the Nodes annotated kwok.x-k8s.io/node=fake: it makes them Ready and runs their pods. */
export async function startKwok(ws: Workspace, kubeconfig: string): Promise<Started> {
  const port = await freePort();
  const proc = new ManagedProcess({
    name: "kwok",
    command: ws.binaries.kwok,
    logDir: ws.dir,
    args: [
      `--kubeconfig=${kubeconfig}`,
      `--config=${ws.binaries.kwokStages}`,
      "--manage-all-nodes=false",
      "--manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake",
      `--server-address=127.0.0.1:${port}`,
      "--cidr=10.0.0.1/16",
      "--node-ip=10.0.0.1",
    ],
  });
  const url = `http://127.0.0.1:${port}`;
  await proc.waitReady(answers200(`${url}/healthz`), 30_000);
  return { process: proc, url };
}

/** moto_server serving EC2, SQS and SSM on one endpoint. */
/**
 * The price proxy in front of moto (price-proxy-main.ts): every AWS client of the environment talks to it, so
 * catalog discovery sees per-type spot prices and a Pricing API (see price-bridge.ts).
 */
export async function startPriceProxy(ws: Workspace, motoUrl: string): Promise<Started> {
  const port = await freePort();
  const script = path.join(import.meta.dirname, "price-proxy-main.ts");
  const proc = new ManagedProcess({
    name: "price-proxy",
    command: process.execPath,
    logDir: ws.dir,
    args: [script, motoUrl, String(port)],
  });
  const url = `http://127.0.0.1:${port}`;
  await proc.waitReady(answers200(`${url}/moto-api/`), 60_000);
  return { process: proc, url };
}

export async function startMoto(ws: Workspace): Promise<Started> {
  const port = await freePort();
  const proc = new ManagedProcess({
    name: "moto",
    command: ws.binaries.motoServer,
    logDir: ws.dir,
    args: ["-H", "127.0.0.1", "-p", String(port)],
  });
  const url = `http://127.0.0.1:${port}`;
  await proc.waitReady(answers200(`${url}/moto-api/`), 60_000);
  return { process: proc, url };
}
