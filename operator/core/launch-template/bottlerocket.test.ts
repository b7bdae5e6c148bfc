import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { BootstrapOptions } from "./bootstrap.ts";
import { BottlerocketUserDataError, bottlerocketUserData } from "./bottlerocket.ts";
import { tomlSections } from "../../../policies/ec2nodeclass/toml-sections.ts";

// Karpenter's testdata/br_userdata_input.golden (the node pool label filled in as "karpenter.sh/nodepool").
const INPUT = `[settings.kubernetes]
"unknown-setting" = "unknown"
api-server = 'replaceme'
cloud-provider = 'external'
cluster-certificate = "replaceme"
cluster-name = 'replaceme'
max-pods = 9999999999 # replaceme

[settings.kubernetes.eviction-hard]
"memory.available" = "12%"

[settings.kubernetes.node-labels]
"custom-node-label" = "custom"
"karpenter.sh/nodepool" = "should-be-overridden"

[settings.kubernetes.node-taints]
"replace" = ["me:Schedule"]

[settings.network]
hostname = "test.local"
https-proxy = "1.2.3.4:8080"
no-proxy = ["localhost", "127.0.0.1"]
hosts = [["10.0.0.0", ["test.example.com", "test1.example.com"]]]

[settings.ntp]
time-servers = ["169.254.169.123"]
`;

function options(overrides: Partial<BootstrapOptions> = {}): BootstrapOptions {
  return {
    clusterName: "test-cluster",
    clusterEndpoint: "https://test-cluster",
    caBundle: "Y2EtYnVuZGxlCg==",
    clusterCIDR: "10.100.0.0/16",
    kubelet: { maxPods: 110, clusterDNS: ["10.0.100.10"] },
    labels: { "karpenter.sh/nodepool": "default" },
    taints: [
      { key: "foo", value: "bar", effect: "NoExecute" },
      { key: "karpenter.sh/unregistered", effect: "NoExecute" },
    ],
    ...overrides,
  };
}

/** Each table's keys → values as written, and how often each table appears. */
function tables(toml: string): { values: Map<string, Map<string, string>>; counts: Map<string, number> } {
  const values = new Map<string, Map<string, string>>();
  const counts = new Map<string, number>();
  for (const s of tomlSections(toml)) {
    if (s.path !== "") counts.set(s.path, (counts.get(s.path) ?? 0) + 1);
    const table = values.get(s.path) ?? new Map<string, string>();
    for (const e of s.entries)
      table.set(
        e.key,
        e.text
          .slice(e.text.indexOf("=") + 1)
          .replace(/#.*$/, "")
          .trim(),
      );
    values.set(s.path, table);
  }
  return { values, counts };
}

void describe("Bottlerocket user data merged with custom TOML", () => {
  const merged = tables(bottlerocketUserData(options({ customUserData: INPUT })));
  const table = (path: string): Record<string, string> => Object.fromEntries(merged.values.get(path) ?? []);

  void it("should write each table once", () => {
    for (const [path, count] of merged.counts) assert.equal(count, 1, path);
  });

  void it("should replace the user's cluster settings with kerf's and keep the user's other kubernetes settings", () => {
    const k = table("settings.kubernetes");
    assert.equal(k["api-server"], '"https://test-cluster"');
    assert.equal(k["cluster-name"], '"test-cluster"');
    assert.equal(k["cluster-certificate"], '"Y2EtYnVuZGxlCg=="');
    assert.equal(k["max-pods"], "110");
    assert.equal(k["cluster-dns-ip"], '"10.0.100.10"');
    assert.equal(k["cloud-provider"], "'external'");
  });

  void it("should add kerf's labels to the user's, kerf's value winning", () => {
    assert.deepEqual(table("settings.kubernetes.node-labels"), {
      "custom-node-label": '"custom"',
      "karpenter.sh/nodepool": '"default"',
    });
  });

  void it("should register with kerf's taints only", () => {
    assert.deepEqual(table("settings.kubernetes.node-taints"), {
      foo: '["bar:NoExecute"]',
      "karpenter.sh/unregistered": '[":NoExecute"]',
    });
  });

  void it("should keep the user's eviction thresholds and other settings tables when spec.kubelet does not set them", () => {
    assert.deepEqual(table("settings.kubernetes.eviction-hard"), { "memory.available": '"12%"' });
    assert.equal(table("settings.network")["hosts"], '[["10.0.0.0", ["test.example.com", "test1.example.com"]]]');
    assert.equal(table("settings.ntp")["time-servers"], '["169.254.169.123"]');
  });

  void it("should replace the user's eviction thresholds when spec.kubelet sets them", () => {
    const out = tables(
      bottlerocketUserData(
        options({ customUserData: INPUT, kubelet: { evictionHard: { "nodefs.available": "10%" } } }),
      ),
    );
    assert.deepEqual(Object.fromEntries(out.values.get("settings.kubernetes.eviction-hard") ?? []), {
      "nodefs.available": '"10%"',
    });
  });
});

void describe("Bottlerocket settings kerf writes", () => {
  void it("should write kubelet settings as Karpenter does: GC thresholds as strings, grace periods as Go durations", () => {
    const kubelet = {
      evictionSoft: { "memory.available": "10%" },
      evictionSoftGracePeriod: { "memory.available": "60s" },
      imageGCHighThresholdPercent: 50,
      evictionMaxPodGracePeriod: 10,
      cpuCFSQuota: false,
    };
    const out = bottlerocketUserData(options({ kubelet }));
    assert.ok(out.includes('[settings.kubernetes.eviction-soft]\n"memory.available" = "10%"\n'), out);
    assert.ok(out.includes('[settings.kubernetes.eviction-soft-grace-period]\n"memory.available" = "1m0s"\n'), out);
    assert.match(out, /^image-gc-high-threshold-percent = "50"$/m);
    assert.match(out, /^eviction-max-pod-grace-period = 10$/m);
    assert.match(out, /^cpu-cfs-quota-enforced = false$/m);
  });

  void it("should add Karpenter's ephemeral-storage bootstrap command for RAID0", () => {
    const out = tables(bottlerocketUserData(options({ instanceStorePolicy: "RAID0" })));
    assert.deepEqual(
      Object.fromEntries(out.values.get("settings.bootstrap-commands.000-mount-instance-storage") ?? []),
      {
        commands:
          '[["apiclient", "ephemeral-storage", "init"], ["apiclient", "ephemeral-storage", "bind", "--dirs", ' +
          '"/var/lib/containerd", "/var/lib/kubelet", "/var/log/pods"]]',
        essential: "true",
        mode: '"always"',
      },
    );
    assert.equal(
      tables(bottlerocketUserData(options())).values.has("settings.bootstrap-commands.000-mount-instance-storage"),
      false,
    );
  });
});

void describe("Bottlerocket custom user data kerf cannot merge", () => {
  const cases = [
    { name: "an unterminated string", userData: '[settings.ntp]\ntime-servers = ["169.254.169.123]\n', line: "line 2" },
    { name: "an unclosed array", userData: "[settings.ntp]\ntime-servers = [\n", line: "line 2" },
    { name: "a line that is neither a table nor a key", userData: "[settings]\nnot toml\n", line: "line 2" },
    { name: "an array of tables", userData: "[[settings.x]]\na = 1\n", line: "line 1" },
  ];
  for (const c of cases) {
    void it(`should reject ${c.name} naming spec.userData and the line`, () => {
      assert.throws(
        () => bottlerocketUserData(options({ customUserData: c.userData })),
        (error: unknown) => {
          assert.ok(error instanceof BottlerocketUserDataError);
          assert.match(
            error.message,
            new RegExp(
              `^spec\\.userData \\(Bottlerocket\\): not TOML kerf can merge with Bottlerocket's settings: ${c.line}: `,
            ),
          );
          return true;
        },
      );
    });
  }
});
