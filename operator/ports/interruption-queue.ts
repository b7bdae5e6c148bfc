/**
 * The interruption-queue port: the SQS queue of EventBridge interruption events
 * (adapters/aws/interruption-queue.ts).
 */

/** One received message; `receiptHandle` deletes it. */
export interface QueueMessage {
  readonly id: string;
  readonly body: string;
  readonly receiptHandle: string;
  /** When SQS accepted it (ms since the epoch), when SQS said. */
  readonly sentAtMs: number | undefined;
}

export interface InterruptionQueue {
  /** Long-polls for up to 10 messages; resolves early with [] when `signal` aborts. */
  receive(signal: AbortSignal): Promise<QueueMessage[]>;
  /** Deletes a handled message (a message left undeleted comes back after the visibility timeout). */
  delete(message: QueueMessage): Promise<void>;
}
