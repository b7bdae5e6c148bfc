import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { expirationDecision } from "./expiration.ts";
import type { NodeClaim } from "./objects.ts";

const CREATED = "2026-11-01T00:00:00Z";
const claim = (
  expireAfter: string | undefined,
  extra: Partial<NonNullable<NodeClaim["metadata"]>> = {},
): NodeClaim => ({
  metadata: { name: "c", creationTimestamp: CREATED, ...extra },
  spec: expireAfter === undefined ? {} : { expireAfter },
});
const at = (iso: string): Date => new Date(iso);

void describe("NodeClaim expiration", () => {
  const cases: readonly { name: string; nc: NodeClaim; now: string; want: ReturnType<typeof expirationDecision> }[] = [
    {
      name: "wait until creation + expireAfter",
      nc: claim("1h"),
      now: "2026-11-01T00:20:00Z",
      want: { action: "wait", requeueAfterMs: 40 * 60_000 },
    },
    {
      name: "delete once expireAfter has passed",
      nc: claim("1h"),
      now: "2026-11-01T01:00:00Z",
      want: { action: "delete", expiredAt: Date.parse("2026-11-01T01:00:00Z") },
    },
    {
      name: "delete long after expiry too",
      nc: claim("30m"),
      now: "2026-11-05T00:00:00Z",
      want: { action: "delete", expiredAt: Date.parse("2026-11-01T00:30:00Z") },
    },
    {
      name: "use the CRD default of 720h when expireAfter is absent",
      nc: claim(undefined),
      now: "2026-12-01T00:00:00Z",
      want: { action: "delete", expiredAt: Date.parse("2026-12-01T00:00:00Z") },
    },
    { name: "never expire with Never", nc: claim("Never"), now: "2030-01-01T00:00:00Z", want: { action: "none" } },
    {
      name: "leave a NodeClaim that is already being deleted",
      nc: claim("1s", { deletionTimestamp: "2026-11-01T00:00:05Z" }),
      now: "2026-11-02T00:00:00Z",
      want: { action: "none" },
    },
    {
      name: "not guess at an unreadable duration",
      nc: claim("soon"),
      now: "2030-01-01T00:00:00Z",
      want: { action: "none" },
    },
  ];
  for (const c of cases) {
    void it(`should ${c.name}`, () => assert.deepEqual(expirationDecision(c.nc, at(c.now)), c.want));
  }
});
