// Whether spec.userData can be merged with the AMI family's bootstrap: the one rule behind kerf check's
// finding, the webhook's verdict and the operator's ValidationSucceeded condition.
import { tomlSections, TomlSectionError } from "./toml-sections.ts";

const MIME_START = /^(MIME-Version|Content-Type):/i;

/** Why MIME user data cannot be split into parts (Karpenter fails every launch on it), or undefined. */
function mimeProblem(userData: string): string | undefined {
  const text = userData.trimStart().replaceAll("\r\n", "\n");
  if (!MIME_START.test(text)) return undefined;
  const end = text.indexOf("\n\n");
  if (end < 0) return "MIME user data has no blank line after its headers";
  const type = /^Content-Type:\s*([^\n]+)/im.exec(text.slice(0, end))?.[1];
  if (type === undefined) return "MIME user data has no Content-Type header";
  if (!/^\s*multipart\//i.test(type)) return `MIME user data must be multipart, found Content-Type ${type.trim()}`;
  const boundary = /boundary="?([^";\s]+)"?/i.exec(type)?.[1];
  if (boundary === undefined) return "the multipart Content-Type names no boundary";
  if (!text.slice(end).includes(`--${boundary}`)) return `no part starts with the boundary --${boundary}`;
  return undefined;
}

/** Why the TOML of Bottlerocket user data cannot be merged, or undefined. */
function tomlProblem(userData: string): string | undefined {
  try {
    tomlSections(userData);
    return undefined;
  } catch (error) {
    if (error instanceof TomlSectionError)
      return `not TOML kerf can merge with Bottlerocket's settings: ${error.message}`;
    throw error;
  }
}

/**
 * Why the AMI family cannot merge spec.userData with its bootstrap (a sentence naming the field), or
 * undefined. Custom and Windows pass user data through; AL2 and AL2023 read MIME; Bottlerocket TOML.
 */
export function userDataProblem(family: string, userData: string | undefined): string | undefined {
  if (userData === undefined || userData.trim() === "") return undefined;
  const problem =
    family === "Bottlerocket"
      ? tomlProblem(userData)
      : family === "AL2" || family === "AL2023"
        ? mimeProblem(userData)
        : undefined;
  return problem === undefined ? undefined : `spec.userData (${family}): ${problem}`;
}
