import { describe, it } from "node:test";
import assert from "node:assert/strict";
import {
  describeAwsError,
  errorCode,
  isAlreadyExists,
  isLaunchTemplateNotFound,
  isNotFound,
  isUnfulfillableCapacity,
} from "./errors.ts";

function sdkError(name: string, message = "boom"): Error {
  const e = new Error(message);
  e.name = name;
  return e;
}

void describe("AWS error classification", () => {
  const capacity: [string, boolean][] = [
    ["InsufficientInstanceCapacity", true],
    ["MaxSpotInstanceCountExceeded", true],
    ["VcpuLimitExceeded", true],
    ["UnfulfillableCapacity", true],
    ["Unsupported", true],
    ["InsufficientFreeAddressesInSubnet", true],
    ["MaxFleetCountExceeded", true],
    ["UnauthorizedOperation", false],
    ["RequestLimitExceeded", false],
  ];
  for (const [code, want] of capacity) {
    void it(`should ${want ? "" : "not "}treat ${code} as unfulfillable capacity`, () =>
      assert.equal(isUnfulfillableCapacity(code), want));
  }

  void it("should read the code from an SDK exception's name", () => {
    assert.equal(errorCode(sdkError("InvalidInstanceID.NotFound")), "InvalidInstanceID.NotFound");
    assert.equal(errorCode(new Error("plain")), undefined);
    assert.equal(errorCode("text"), undefined);
  });

  void it("should recognise not-found, already-exists and stale launch templates", () => {
    assert.ok(isNotFound(sdkError("InvalidInstanceID.NotFound")));
    assert.ok(isNotFound(sdkError("ParameterNotFound")));
    assert.ok(!isNotFound(sdkError("UnauthorizedOperation")));
    assert.ok(isAlreadyExists(sdkError("InvalidLaunchTemplateName.AlreadyExistsException")));
    assert.ok(isLaunchTemplateNotFound("InvalidLaunchTemplateId.NotFound"));
    assert.ok(!isLaunchTemplateNotFound("InsufficientInstanceCapacity"));
  });

  void it("should recognise IAM's NoSuchEntity and EntityAlreadyExists", () => {
    assert.ok(isNotFound(sdkError("NoSuchEntityException")));
    assert.ok(isNotFound({ Code: "NoSuchEntity", name: "NoSuchEntityException" }));
    assert.ok(isAlreadyExists(sdkError("EntityAlreadyExistsException")));
    assert.ok(!isAlreadyExists(sdkError("LimitExceededException")));
  });

  void it("should phrase messages as doing X: code: cause", () => {
    assert.equal(
      describeAwsError("creating fleet", sdkError("UnauthorizedOperation", "not allowed")),
      "creating fleet: UnauthorizedOperation: not allowed",
    );
  });
});
