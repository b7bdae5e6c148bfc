// Karpenter's instance selection and minValues tests as kerf cases (the table: instance-selection.cases.ts).
import { cases } from "./instance-selection.cases.ts";
import { runCases } from "./harness.ts";

runCases("Karpenter parity: instance selection and minValues", cases);
