import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { parseDpkg } from "../../scripts/release/sbom.ts";

void describe("the release SBOM's Debian packages", () => {
  void it("reads dpkg-query lines, taking the package itself as its source when dpkg gives none", () => {
    const text = "libc6\t2.36-9+deb12u14\tamd64\tglibc\ngit\t1:2.39.5-0+deb12u3\tamd64\t\n";
    assert.deepEqual(parseDpkg(text), [
      { name: "libc6", version: "2.36-9+deb12u14", arch: "amd64", source: "glibc" },
      { name: "git", version: "1:2.39.5-0+deb12u3", arch: "amd64", source: "git" },
    ]);
  });

  void it("names the line of an entry without a version", () => {
    assert.throws(() => parseDpkg("bash\t5.2\tamd64\tbash\nbroken\n"), /line 2: no package or version/);
  });
});
