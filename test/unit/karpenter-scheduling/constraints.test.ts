// Karpenter's node selection constraints as kerf cases (the table: constraints.cases.ts).
import { cases } from "./constraints.cases.ts";
import { runCases } from "./harness.ts";

runCases("Karpenter parity: node selection constraints", cases);
