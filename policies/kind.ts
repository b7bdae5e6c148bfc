/** The kinds kerf's policies check. */
export type Kind = "NodePool" | "EC2NodeClass" | "NodeClaim";
