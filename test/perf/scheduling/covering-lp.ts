/** Solves the covering LP of operator/core/scheduling/lower-bound.ts with HiGHS (see there for why). */
import * as highsModule from "highs";
import type { Highs } from "highs";
import { toLpFormat, type CoveringProblem } from "../../../operator/core/scheduling/lower-bound.ts";

type Loader = () => Promise<Highs>;
// The package's types describe its CommonJS entry (loader under `.default`); its ESM entry, which
// Node loads here, exports the loader itself as the default.
const exported: unknown = highsModule.default;
const load = (typeof exported === "function" ? exported : (exported as { default: Loader }).default) as Loader;
const highs = await load();

/** The LP optimum in $/h; throws when HiGHS does not report an optimal solution. */
export function coveringOptimum(problem: CoveringProblem): number {
  const result = highs.solve(toLpFormat(problem), { output_flag: false });
  if (result.Status !== "Optimal") throw new Error(`solving the covering LP: HiGHS ended with status ${result.Status}`);
  return result.ObjectiveValue;
}
