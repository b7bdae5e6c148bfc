// Karpenter's topology spread and pod affinity tests as kerf cases (the table: topology.cases.ts).
import { cases } from "./topology.cases.ts";
import { runCases } from "./harness.ts";

runCases("Karpenter parity: topology spread and pod affinity", cases);
