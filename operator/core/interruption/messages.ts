/**
 * Interruption messages (behaviour §5): the EventBridge events an interruption SQS queue carries,
 * parsed into what the handler acts on. The kind names are Karpenter's `message_type` metric
 * label values. Events kerf does not act on parse to `no_op`; a body that is not an event of a
 * known shape throws InterruptionParseError (the caller deletes such a message, as Karpenter does).
 */

export type MessageKind =
  | "spot_interrupted"
  | "rebalance_recommendation"
  | "scheduled_change"
  | "instance_stopped"
  | "instance_terminated"
  | "capacity_reservation_interrupted"
  | "no_op";

/** Karpenter's action names: delete the NodeClaim (the termination finalizer cordons and drains), or nothing. */
export type InterruptionAction = "CordonAndDrain" | "NoAction";

export interface InterruptionMessage {
  readonly kind: MessageKind;
  /** The EventBridge event id ("" when absent). */
  readonly id: string;
  readonly source: string;
  readonly detailType: string;
  /** EC2 instance ids the event is about (none for `no_op`). */
  readonly instanceIds: readonly string[];
  /** The event's `time` in ms since the epoch, when it has a valid one. */
  readonly eventTimeMs: number | undefined;
}

/** The body is not an interruption event kerf can read; names what is wrong. */
export class InterruptionParseError extends Error {
  override name = "InterruptionParseError";
}

const INSTANCE_ID = /^i-[0-9a-z]+$/;

type Obj = Readonly<Record<string, unknown>>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** The detail-types of `aws.ec2` events that name one instance in detail["instance-id"]. */
const EC2_SINGLE_INSTANCE: Readonly<Record<string, MessageKind | "state">> = {
  "EC2 Spot Instance Interruption Warning": "spot_interrupted",
  "EC2 Instance Rebalance Recommendation": "rebalance_recommendation",
  "EC2 Capacity Reservation Instance Interruption Warning": "capacity_reservation_interrupted",
  "EC2 Instance State-change Notification": "state",
};

function stateKind(state: unknown): MessageKind {
  if (state === "stopping" || state === "stopped") return "instance_stopped";
  if (state === "shutting-down" || state === "terminated") return "instance_terminated";
  return "no_op";
}

function instanceId(detail: Obj, what: string): string {
  const id = detail["instance-id"];
  if (typeof id !== "string" || !INSTANCE_ID.test(id))
    throw new InterruptionParseError(
      `${what}: detail.instance-id ` +
        `${id === undefined ? "is missing" : `${JSON.stringify(id)} is not an EC2 instance id`}`,
    );
  return id;
}

/** AWS Health: only EC2 scheduled changes act; their instances are the affected entities. */
function healthInstances(detail: Obj, what: string): string[] | undefined {
  if (detail["service"] !== "EC2" || detail["eventTypeCategory"] !== "scheduledChange") return undefined;
  const entities = detail["affectedEntities"];
  if (!Array.isArray(entities)) throw new InterruptionParseError(`${what}: detail.affectedEntities is missing`);
  return entities
    .map((e) => (isObj(e) ? e["entityValue"] : undefined))
    .filter((v): v is string => typeof v === "string" && INSTANCE_ID.test(v));
}

type Envelope = Omit<InterruptionMessage, "kind" | "instanceIds">;

function str(v: unknown): string {
  return typeof v === "string" ? v : "";
}

function envelope(body: string): { event: Obj; base: Envelope } {
  let event: unknown;
  try {
    event = JSON.parse(body);
  } catch (error) {
    throw new InterruptionParseError(`reading interruption message: not JSON (${(error as Error).message})`, {
      cause: error,
    });
  }
  if (!isObj(event)) throw new InterruptionParseError("reading interruption message: not a JSON object");
  const time = Date.parse(str(event["time"]));
  return {
    event,
    base: {
      id: str(event["id"]),
      source: str(event["source"]),
      detailType: str(event["detail-type"]),
      eventTimeMs: Number.isNaN(time) ? undefined : time,
    },
  };
}

/** Parses one SQS message body. */
export function parseInterruptionMessage(body: string): InterruptionMessage {
  const { event, base } = envelope(body);
  const what =
    `reading ${base.source === "" ? "interruption" : base.source} event ` +
    `${JSON.stringify(base.detailType)}${base.id === "" ? "" : ` ${base.id}`}`;
  const noOp: InterruptionMessage = { ...base, kind: "no_op", instanceIds: [] };
  const single = base.source === "aws.ec2" ? EC2_SINGLE_INSTANCE[base.detailType] : undefined;
  const healthEvent = base.source === "aws.health" && base.detailType === "AWS Health Event";
  if (single === undefined && !healthEvent) return noOp;
  const detail = event["detail"];
  if (!isObj(detail)) throw new InterruptionParseError(`${what}: detail is missing`);
  if (single === undefined) {
    const ids = healthInstances(detail, what);
    return ids === undefined ? noOp : { ...base, kind: "scheduled_change", instanceIds: ids };
  }
  const kind = single === "state" ? stateKind(detail["state"]) : single;
  return kind === "no_op" ? noOp : { ...base, kind, instanceIds: [instanceId(detail, what)] };
}

/** What Karpenter does for each kind: a rebalance recommendation is only reported. */
export function actionFor(kind: MessageKind): InterruptionAction {
  return kind === "no_op" || kind === "rebalance_recommendation" ? "NoAction" : "CordonAndDrain";
}
