// Karpenter's volume topology and volume usage tests as kerf cases (the table: volumes.cases.ts).
import { cases } from "./volumes.cases.ts";
import { runCases } from "./harness.ts";

runCases("Karpenter parity: zonal volumes and attachment limits", cases);
