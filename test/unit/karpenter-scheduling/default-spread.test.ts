// Karpenter's default topology spread constraint tests as kerf cases (the table: default-spread.cases.ts).
import { cases } from "./default-spread.cases.ts";
import { runCases } from "./harness.ts";

runCases("Karpenter parity: default topology spread constraints", cases);
