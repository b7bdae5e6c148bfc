// Karpenter's in-flight, deleting-node, NodePool-state, Windows and DRA tests as kerf cases
// (the table: cluster-state.cases.ts).
import { cases } from "./cluster-state.cases.ts";
import { runCases } from "./harness.ts";

runCases("Karpenter parity: the cluster as the operator reads it", cases);
