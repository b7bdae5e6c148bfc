import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { defaultPolicyConfig } from "../config.ts";
import { builtinCatalog } from "../domain/catalog/builtin.ts";
import { evaluate } from "../evaluate.ts";
import { userDataProblem } from "./user-data.ts";

const CONTEXT = { catalog: builtinCatalog(), config: defaultPolicyConfig() };
const MIME = (type: string, body: string): string => `MIME-Version: 1.0\nContent-Type: ${type}\n\n${body}`;

void describe("user data the AMI family can merge", () => {
  const cases: { name: string; family: string; userData: string | undefined; problem: RegExp | undefined }[] = [
    { name: "no user data", family: "Bottlerocket", userData: undefined, problem: undefined },
    {
      name: "Bottlerocket TOML",
      family: "Bottlerocket",
      userData: '[settings.ntp]\ntime-servers = ["169.254.169.123"]\n',
      problem: undefined,
    },
    {
      name: "Bottlerocket TOML with an unterminated string",
      family: "Bottlerocket",
      userData: '[settings]\na = "x\n',
      problem: new RegExp(
        "^spec\\.userData \\(Bottlerocket\\): not TOML kerf can merge with Bottlerocket's settings: " +
          "line 2: unterminated string$",
      ),
    },
    { name: "a shell script for AL2", family: "AL2", userData: "#!/bin/bash\necho hi\n", problem: undefined },
    {
      name: "a NodeConfig for AL2023",
      family: "AL2023",
      userData: "apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\n",
      problem: undefined,
    },
    {
      name: "multipart MIME for AL2023",
      family: "AL2023",
      userData: MIME('multipart/mixed; boundary="B"', "--B\nContent-Type: text/x-shellscript\n\necho hi\n--B--\n"),
      problem: undefined,
    },
    {
      name: "MIME that is not multipart",
      family: "AL2",
      userData: MIME("text/x-shellscript", "echo hi\n"),
      problem: /^spec\.userData \(AL2\): MIME user data must be multipart, found Content-Type text\/x-shellscript$/,
    },
    {
      name: "multipart MIME without a boundary",
      family: "AL2023",
      userData: MIME("multipart/mixed", "--B\n\necho\n--B--\n"),
      problem: /names no boundary/,
    },
    {
      name: "multipart MIME whose parts use another boundary",
      family: "AL2",
      userData: MIME('multipart/mixed; boundary="B"', "--C\n\necho\n--C--\n"),
      problem: /no part starts with the boundary --B$/,
    },
    {
      name: "MIME headers without a body",
      family: "AL2",
      userData: "MIME-Version: 1.0\nContent-Type: multipart/mixed",
      problem: /no blank line/,
    },
    { name: "anything for Windows", family: "Windows2022", userData: "[not toml", problem: undefined },
    { name: "anything for Custom", family: "Custom", userData: "MIME-Version: 1.0\n", problem: undefined },
  ];
  for (const c of cases) {
    void it(`should ${c.problem === undefined ? "accept" : "reject"} ${c.name}`, () => {
      const problem = userDataProblem(c.family, c.userData);
      if (c.problem === undefined) assert.equal(problem, undefined);
      else assert.match(problem ?? "", c.problem);
    });
  }

  void it("should deny such user data in kerf check and the webhook as a runtime finding on spec.userData", () => {
    const object = {
      apiVersion: "karpenter.k8s.aws/v1",
      kind: "EC2NodeClass",
      metadata: { name: "br" },
      spec: {
        role: "R",
        amiSelectorTerms: [{ alias: "bottlerocket@latest" }],
        subnetSelectorTerms: [{ id: "subnet-1" }],
        securityGroupSelectorTerms: [{ id: "sg-1" }],
        userData: "[settings\n",
      },
    };
    const verdict = evaluate({ kind: "EC2NodeClass", operation: "CREATE", object, context: CONTEXT });
    const finding = verdict.findings.find((f) => f.path === "spec.userData");
    assert.equal(finding?.policy, "runtime");
    assert.equal(finding?.severity, "deny");
    assert.equal(verdict.allowed, false);
  });
});
