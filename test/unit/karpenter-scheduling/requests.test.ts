// Karpenter's pod request, supported label and NodePool requirement tests as kerf cases (the table: requests.cases.ts).
import { cases } from "./requests.cases.ts";
import { runCases } from "./harness.ts";

runCases("Karpenter parity: pod requests, supported labels and NodePool requirements", cases);
