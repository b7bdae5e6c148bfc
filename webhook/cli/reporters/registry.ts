/** The `--format` values of `kerf check` and the reporter behind each. */
import { renderGithub } from "./github.ts";
import { renderJson } from "./json.ts";
import { renderJunit } from "./junit.ts";
import type { Reporter } from "./report.ts";
import { renderSarif } from "./sarif.ts";
import { renderText } from "./text.ts";

/** Every output format, by name. */
export const reporters: Readonly<Record<string, Reporter>> = {
  text: renderText,
  json: renderJson,
  sarif: renderSarif,
  junit: renderJunit,
  github: renderGithub,
};

/** The format names, for usage and error messages. */
export const formatNames: readonly string[] = Object.keys(reporters);
