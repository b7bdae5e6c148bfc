/** The test environment's throwaway PKI (test/harness/certs.ts), minted with the real openssl. */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createPki, issueServingCertificate } from "../harness/certs.ts";

void describe("the test environment's PKI", () => {
  void it("should issue many certificates from one CA at once, each with its own serial and verifying against the CA", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "kerf-pki-"));
    try {
      const pki = await createPki(dir);
      const certs = await Promise.all(
        Array.from({ length: 8 }, (_, i) => issueServingCertificate(pki.ca, dir, `serving-${i}`)),
      );
      const all = [pki.apiserver, pki.admin, ...certs];
      const serials = all.map((c) =>
        execFileSync("openssl", ["x509", "-in", c.cert, "-noout", "-serial"], { encoding: "utf8" }).trim(),
      );
      assert.equal(new Set(serials).size, all.length, serials.join(", "));
      for (const c of all)
        assert.match(execFileSync("openssl", ["verify", "-CAfile", pki.ca.cert, c.cert], { encoding: "utf8" }), /: OK/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
