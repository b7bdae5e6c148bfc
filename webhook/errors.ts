/** Coded kerf errors (KERF_ERR_*): user-facing failures carry a stable code, an HTTP status and a cause. */

/** The error catalogue: code → HTTP status the webhook answers with. */
export const ErrorCodes = {
  KERF_ERR_INPUT_UNREADABLE: 2,
  KERF_ERR_INPUT_UNPARSEABLE: 2,
  KERF_ERR_POLICY_CONFIG: 2,
  KERF_ERR_CONFIG: 2,
  KERF_ERR_TLS: 500,
  KERF_ERR_REVIEW_MALFORMED: 400,
  KERF_ERR_BODY_TOO_LARGE: 400,
  KERF_ERR_UNSUPPORTED_MEDIA_TYPE: 415,
  KERF_ERR_NOT_FOUND: 404,
  KERF_ERR_EVALUATION: 500,
} as const;

export type ErrorCode = keyof typeof ErrorCodes;

/** Where in a source file a problem sits (1-based). */
export interface SourceLocation {
  readonly file: string;
  readonly line?: number;
  readonly column?: number;
}

/** A failure the user can act on: message reads "doing X: cause", never printed with a stack. */
export class KerfError extends Error {
  readonly code: ErrorCode;
  readonly location: SourceLocation | undefined;

  constructor(code: ErrorCode, message: string, options: { cause?: unknown; location?: SourceLocation } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "KerfError";
    this.code = code;
    this.location = options.location;
  }

  /** The HTTP status (webhook) or exit code class (CLI) of this error's code. */
  get status(): number {
    return ErrorCodes[this.code];
  }
}

/** Whether `error` is one of kerf's coded errors. */
export function isKerfError(error: unknown): error is KerfError {
  return error instanceof KerfError;
}

/** The message of any thrown value, for "doing X: cause" wrapping. */
export function causeText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
