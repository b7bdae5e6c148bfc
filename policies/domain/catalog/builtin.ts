/** The catalog shipped with kerf (us-east-1), parsed once on first use. */
import document from "./us-east-1.json" with { type: "json" };
import { parseCatalog, type Catalog } from "./catalog.ts";

let cached: Catalog | undefined;

/** The built-in us-east-1 catalog (1,345 types). */
export function builtinCatalog(): Catalog {
  cached ??= parseCatalog(document);
  return cached;
}
