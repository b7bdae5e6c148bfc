/** AWS error codes sorted into the cases kerf handles (Karpenter's aws pkg/errors): capacity, not-found, exists. */

/** CreateFleet error codes that mean "this offering has no capacity now": mark it unavailable and try others. */
export const UNFULFILLABLE_CAPACITY_CODES: ReadonlySet<string> = new Set([
  "InsufficientInstanceCapacity",
  "MaxSpotInstanceCountExceeded",
  "VcpuLimitExceeded",
  "UnfulfillableCapacity",
  "Unsupported",
  "InsufficientFreeAddressesInSubnet",
  "MaxFleetCountExceeded",
  "ReservationCapacityExceeded",
  "InsufficientCapacityOnHost",
]);

/** Codes meaning the resource does not exist (any more). */
export const NOT_FOUND_CODES: ReadonlySet<string> = new Set([
  "InvalidInstanceID.NotFound",
  "InvalidLaunchTemplateName.NotFoundException",
  "InvalidLaunchTemplateId.NotFound",
  "InvalidLaunchTemplateId.Malformed",
  "ParameterNotFound",
  "InvalidAMIID.NotFound",
  "InvalidSubnetID.NotFound",
  "InvalidGroup.NotFound",
  "NoSuchEntity",
  "NoSuchEntityException",
]);

/** Codes meaning the resource to create exists already. */
export const ALREADY_EXISTS_CODES: ReadonlySet<string> = new Set([
  "InvalidLaunchTemplateName.AlreadyExistsException",
  "EntityAlreadyExists",
  "EntityAlreadyExistsException",
]);

/** Codes meaning a launch template the request named is gone: the cache is stale, retry once. */
export const LAUNCH_TEMPLATE_NOT_FOUND_CODES: ReadonlySet<string> = new Set([
  "InvalidLaunchTemplateName.NotFoundException",
  "InvalidLaunchTemplateId.NotFound",
  "InvalidLaunchTemplateId.VersionNotFound",
]);

/** The AWS error code of an SDK exception (`name` in SDK v3, `Code` in raw bodies). */
export function errorCode(error: unknown): string | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const e = error as { name?: unknown; Code?: unknown; code?: unknown };
  for (const v of [e.Code, e.code, e.name]) if (typeof v === "string" && v !== "Error") return v;
  return undefined;
}

export function isUnfulfillableCapacity(code: string | undefined): boolean {
  return code !== undefined && UNFULFILLABLE_CAPACITY_CODES.has(code);
}

export function isNotFound(error: unknown): boolean {
  const code = errorCode(error);
  return code !== undefined && NOT_FOUND_CODES.has(code);
}

export function isLaunchTemplateNotFound(code: string | undefined): boolean {
  return code !== undefined && LAUNCH_TEMPLATE_NOT_FOUND_CODES.has(code);
}

export function isAlreadyExists(error: unknown): boolean {
  const code = errorCode(error);
  return code !== undefined && ALREADY_EXISTS_CODES.has(code);
}

/** "doing X: cause" with the AWS code when there is one. */
export function describeAwsError(doing: string, error: unknown): string {
  const code = errorCode(error);
  const message = error instanceof Error ? error.message : String(error);
  return `${doing}: ${code !== undefined && !message.includes(code) ? `${code}: ` : ""}${message}`;
}
