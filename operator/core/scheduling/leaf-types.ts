/**
 * Scheduling types that the modules types.ts itself imports from (volumes.ts, default-spread.ts) also need:
 * kept here, with no imports, so no import circle runs through types.ts, which re-exports them.
 */

/** A Kubernetes label selector (matchLabels and matchExpressions with In/NotIn/Exists/DoesNotExist). */
export interface LabelSelector {
  readonly matchLabels?: Readonly<Record<string, string>>;
  readonly matchExpressions?: readonly {
    readonly key: string;
    readonly operator: string;
    readonly values?: readonly string[] | undefined;
  }[];
}

/**
 * A PersistentVolumeClaim a pod's volume names, in the pod's namespace. An ephemeral volume's claim
 * (`<pod>-<volume>`) may not exist yet: its template's class (`ephemeralClass`, "" for the default
 * StorageClass) stands in until it does.
 */
export interface PodClaim {
  readonly name: string;
  readonly ephemeralClass?: string | undefined;
}
