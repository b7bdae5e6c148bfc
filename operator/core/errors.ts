/**
 * The typed failures the cloud provider reports to controllers (Karpenter's
 * cloudprovider errors), with isX helpers.
 */

/** Every offering the launch tried had no capacity; the offerings are already marked unavailable. */
export class InsufficientCapacityError extends Error {
  /** ICE-cache keys (`capacityType:instanceType:zone`) that failed. */
  readonly offerings: readonly string[];

  constructor(message: string, options: { offerings?: readonly string[]; cause?: unknown } = {}) {
    super(`launching instance: insufficient capacity: ${message}`, { cause: options.cause });
    this.name = "InsufficientCapacityError";
    this.offerings = options.offerings ?? [];
  }
}

/** The instance behind a NodeClaim no longer exists (terminated or never found). */
export class NodeClaimNotFoundError extends Error {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(`finding instance: ${message}`, { cause: options.cause });
    this.name = "NodeClaimNotFoundError";
  }
}

/** The EC2NodeClass is missing or has not resolved its subnets, security groups or AMIs. */
export class NodeClassNotReadyError extends Error {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(`resolving node class: ${message}`, { cause: options.cause });
    this.name = "NodeClassNotReadyError";
  }
}

/** Any other launch failure; `reason` is a short CamelCase code suitable for a condition reason. */
export class CreateError extends Error {
  readonly reason: string;

  constructor(reason: string, message: string, options: { cause?: unknown } = {}) {
    super(`creating instance: ${message}`, { cause: options.cause });
    this.name = "CreateError";
    this.reason = reason;
  }
}

export function isInsufficientCapacityError(error: unknown): error is InsufficientCapacityError {
  return error instanceof InsufficientCapacityError;
}

export function isNodeClaimNotFoundError(error: unknown): error is NodeClaimNotFoundError {
  return error instanceof NodeClaimNotFoundError;
}

export function isNodeClassNotReadyError(error: unknown): error is NodeClassNotReadyError {
  return error instanceof NodeClassNotReadyError;
}

export function isCreateError(error: unknown): error is CreateError {
  return error instanceof CreateError;
}

/** Swallows NodeClaimNotFoundError (deleting something already gone is success); rethrows the rest. */
export function ignoreNodeClaimNotFound(error: unknown): void {
  if (!isNodeClaimNotFoundError(error)) throw error;
}
