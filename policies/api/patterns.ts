// The exact upstream regex patterns of Karpenter v1.14.1 (karpenter-v1-api.md §2), shared by the schemas and rules.

/** consolidateAfter / expireAfter (fixed precedence since v1.4). */
export const DURATION = "^(([0-9]+(s|m|h))+|Never)$";
/** terminationGracePeriod: no "Never". */
export const TERMINATION_GRACE_PERIOD = "^([0-9]+(s|m|h))+$";
export const BUDGET_DURATION = "^((([0-9]+(h|m))|([0-9]+h[0-9]+m))(0s)?)$";
export const BUDGET_NODES = "^((100|[0-9]{1,2})%|[0-9]+)$";
/** Alternation precedence makes this accept almost anything (quirk §10.5); kept byte-exact for parity. */
export const BUDGET_SCHEDULE =
  "^(@(annually|yearly|monthly|weekly|daily|midnight|hourly))|((.+)\\s(.+)\\s(.+)\\s(.+)\\s(.+))$";
export const QUANTITY =
  "^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))" +
  "(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$";
/** Label key, requirement key, taint key and (quirk §10.7) taint value. */
export const QUALIFIED_NAME =
  "^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*(\\/))?([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$";
export const LABEL_VALUE = "^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$";
export const NODECLASS_GROUP = "^[^/]*$";
/** Unanchored upstream id patterns (quirk §10.2). */
export const AMI_ID = "ami-[0-9a-z]+";
export const SECURITY_GROUP_ID = "sg-[0-9a-z]+";
export const SUBNET_ID = "subnet-[0-9a-z]+";
export const CAPACITY_RESERVATION_ID = "^cr-[0-9a-z]+$";
export const PLACEMENT_GROUP_ID = "^pg-[0-9a-z]+$";
export const OWNER_ID = "^[0-9]{12}$";
export const VOLUME_SIZE =
  "^((?:[1-9][0-9]{0,3}|[1-4][0-9]{4}|[5][0-8][0-9]{3}|59000)Gi|" +
  "(?:[1-9][0-9]{0,3}|[1-5][0-9]{4}|[6][0-3][0-9]{3}|64000)G|" +
  "([1-9]||[1-5][0-7]|58)Ti|([1-9]||[1-5][0-9]|6[0-3]|64)T)$";
export const EVICTION_VALUE =
  "^((\\d{1,2}(\\.\\d{1,2})?|100(\\.0{1,2})?)%||" +
  "(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))" +
  "(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?)$";
export const CONDITION_TYPE =
  "^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$";
export const CONDITION_REASON = "^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$";
export const NODECLAIM_CONDITION_REASON = "^([A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?|)$";
