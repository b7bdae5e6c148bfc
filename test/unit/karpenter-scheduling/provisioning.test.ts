// Karpenter's bin packing, existing node, DaemonSet, limit, label, taint and NodePool tests as kerf cases
// (the table: provisioning.cases.ts).
import { cases } from "./provisioning.cases.ts";
import { runCases } from "./harness.ts";

runCases("Karpenter parity: packing, existing nodes, DaemonSets and NodePools", cases);
