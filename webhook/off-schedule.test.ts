// kerf.dev/off-schedule (scheduled capacity) through both front doors: `kerf check` names the annotation and its
// file:line, the admission webhook denies with the annotation's path; both run the one kerf-annotations policy.
import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { pino } from "pino";
import { Registry } from "prom-client";
import { runCheck } from "./cli/check.ts";
import { capture } from "./cli/captured-io.ts";
import { loadEngine, type Engine } from "./engine.ts";
import { createAdmissionMetrics } from "./plugins/metrics.ts";
import { buildServer } from "./server.ts";

const ANNOTATION = "kerf.dev/off-schedule";

/** A NodePool manifest whose annotation block sits on lines 5–7 (the annotation itself on line 6). */
const poolYaml = (value: string, timeZone?: string): string => `apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: dev
  annotations:
    ${ANNOTATION}: '${value}'
${timeZone === undefined ? "" : `    kerf.dev/budget-timezone: ${timeZone}\n`}spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
        - key: kubernetes.io/arch
          operator: In
          values: ["amd64"]
  limits: {cpu: "100", memory: 400Gi}
`;

// [title, annotation value, time zone, message fragment or undefined when allowed]
const CASES: [string, string, string | undefined, string | undefined][] = [
  [
    "allows weeknight and weekend windows",
    '[{"schedule": "0 20 * * 1-5", "duration": "12h"}, {"schedule": "@weekly", "duration": "48h"}]',
    undefined,
    undefined,
  ],
  [
    "allows a window in a budget time zone",
    '[{"schedule": "0 22 * * *", "duration": "8h"}]',
    "Europe/Berlin",
    undefined,
  ],
  [
    "denies a bad cron expression",
    '[{"schedule": "0 24 * * *", "duration": "8h"}]',
    undefined,
    'parsing schedule "0 24 * * *"',
  ],
  ["denies a bad duration", '[{"schedule": "0 20 * * *", "duration": "8 hours"}]', undefined, 'duration "8 hours"'],
  ["denies a value that is not JSON", "0 20 * * * 8h", undefined, "not JSON"],
  [
    "denies an unknown time zone",
    '[{"schedule": "0 20 * * *", "duration": "8h"}]',
    "Europe/Berln",
    'time zone "Europe/Berln"',
  ],
];

void describe("kerf check on kerf.dev/off-schedule", () => {
  let dir = "";
  before(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), "kerf-off-"));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  for (const [title, value, zone, message] of CASES) {
    void it(`${title}, naming the annotation at file:line when it denies`, async () => {
      const file = path.join(dir, `${title.replace(/\W+/g, "-")}.yaml`);
      writeFileSync(file, poolYaml(value, zone));
      const c = capture();
      const code = await runCheck([file], c.io);
      const out = c.out() + c.err();
      const lines = out.split("\n").filter((l) => l.includes(ANNOTATION) && l.includes(": deny "));
      if (message === undefined) {
        assert.deepEqual([code, lines], [0, []], out);
        return;
      }
      assert.equal(code, 1, out);
      assert.equal(lines.length, 1, out);
      const escaped = file.replace(/[.\\]/g, "\\$&");
      assert.match(
        lines[0] ?? "",
        new RegExp(`^${escaped}:6:\\d+: deny NodePool/dev metadata\\.annotations\\.kerf\\.dev/off-schedule: `),
      );
      assert.ok(lines[0]?.includes(`annotation ${ANNOTATION}: `) && lines[0].includes(message), lines[0]);
      assert.doesNotMatch(out, /\n\s+at /, "no stack trace");
    });
  }
});

void describe("the admission webhook on kerf.dev/off-schedule", () => {
  let engine: Engine;
  before(async () => {
    engine = await loadEngine();
  });

  for (const [title, value, zone, message] of CASES) {
    void it(`${title} on /validate`, async () => {
      const annotations = { [ANNOTATION]: value, ...(zone === undefined ? {} : { "kerf.dev/budget-timezone": zone }) };
      const object = {
        apiVersion: "karpenter.sh/v1",
        kind: "NodePool",
        metadata: { name: "dev", annotations },
        spec: {
          template: {
            spec: {
              nodeClassRef: { group: "karpenter.k8s.aws", kind: "EC2NodeClass", name: "default" },
              requirements: [{ key: "kubernetes.io/arch", operator: "In", values: ["amd64"] }],
            },
          },
          limits: { cpu: "100", memory: "400Gi" },
        },
      };
      const app = buildServer({
        engine,
        metrics: createAdmissionMetrics(new Registry()),
        logger: pino({ level: "silent" }),
        readiness: { certificates: () => true },
        skipUsernames: new Set(),
      });
      const request = {
        uid: "u1",
        kind: { group: "karpenter.sh", version: "v1", kind: "NodePool" },
        resource: { group: "karpenter.sh", version: "v1", resource: "nodepools" },
        operation: "CREATE",
        userInfo: { username: "alice" },
        object,
        dryRun: false,
      };
      const res = await app.inject({
        method: "POST",
        url: "/validate",
        payload: { apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", request },
      });
      const answer = (JSON.parse(res.body) as { response: { allowed: boolean; status?: { message: string } } })
        .response;
      const lines = (answer.status?.message ?? "").split("\n").filter((l) => l.includes(ANNOTATION));
      if (message === undefined) {
        assert.deepEqual([answer.allowed, lines], [true, []], answer.status?.message);
        return;
      }
      assert.equal(answer.allowed, false);
      assert.equal(lines.length, 1, answer.status?.message);
      assert.ok(lines[0]?.startsWith(`metadata.annotations.${ANNOTATION}: annotation ${ANNOTATION}: `), lines[0]);
      assert.ok(lines[0]?.includes(message), lines[0]);
    });
  }
});
