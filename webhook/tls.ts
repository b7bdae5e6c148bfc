/** Serving certificate and key: loaded at startup, re-read when either file changes, applied without a restart. */
import { readFileSync, unwatchFile, watchFile } from "node:fs";
import { createSecureContext } from "node:tls";
import type { Logger } from "pino";
import { causeText, KerfError } from "./errors.ts";

/** PEM material for the HTTPS server. */
export interface TlsMaterial {
  readonly cert: Buffer;
  readonly key: Buffer;
}

/** Reads and checks a certificate/key pair; throws KerfError naming the file that failed. */
export function loadTlsMaterial(certFile: string, keyFile: string): TlsMaterial {
  const read = (file: string, what: string): Buffer => {
    try {
      return readFileSync(file);
    } catch (error) {
      throw new KerfError("KERF_ERR_TLS", `reading TLS ${what} ${file}: ${causeText(error)}`, {
        cause: error,
        location: { file },
      });
    }
  };
  const material = { cert: read(certFile, "certificate"), key: read(keyFile, "key") };
  try {
    createSecureContext(material);
  } catch (error) {
    throw new KerfError(
      "KERF_ERR_TLS",
      `loading TLS certificate ${certFile} with key ${keyFile}: ${causeText(error)}`,
      { cause: error },
    );
  }
  return material;
}

/** Something whose TLS context can be swapped at runtime (node:https Server). */
export interface SecureContextTarget {
  setSecureContext(options: { cert: Buffer; key: Buffer }): void;
}

/** Options of the certificate watcher. */
export interface TlsWatchOptions {
  readonly certFile: string;
  readonly keyFile: string;
  readonly target: SecureContextTarget;
  readonly logger: Logger;
  readonly intervalMs: number;
}

/**
 * Polls both files (stat follows symlinks, so Kubernetes' atomic Secret-volume swaps are seen) and
 * applies a new pair once it loads cleanly. A half-written or mismatched pair is logged and the
 * current certificate stays in use: a bad rotation never takes the webhook down.
 * Returns a function that stops watching.
 */
export function watchTls(options: TlsWatchOptions): () => void {
  const { certFile, keyFile, target, logger } = options;
  const reload = (): void => {
    try {
      target.setSecureContext(loadTlsMaterial(certFile, keyFile));
      logger.info({ certFile, keyFile }, "reloaded TLS certificate");
    } catch (error) {
      logger.warn({ err: error }, "reloading TLS certificate failed; keeping the current one");
    }
  };
  const onChange = (current: { mtimeMs: number; ino: number }, previous: { mtimeMs: number; ino: number }): void => {
    if (current.mtimeMs !== previous.mtimeMs || current.ino !== previous.ino) reload();
  };
  const watchOptions = { interval: options.intervalMs, persistent: false };
  watchFile(certFile, watchOptions, onChange);
  watchFile(keyFile, watchOptions, onChange);
  return () => {
    unwatchFile(certFile, onChange);
    unwatchFile(keyFile, onChange);
  };
}
