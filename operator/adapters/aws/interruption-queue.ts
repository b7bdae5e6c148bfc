/**
 * The interruption queue over SQS, polled as Karpenter polls it (behaviour §5): long polls of 20 s
 * for up to 10 messages, each hidden from other receivers for 20 s while it is handled. The queue
 * is named by INTERRUPTION_QUEUE (a name, or a queue URL); the URL is looked up once.
 */
import type { InterruptionQueue, QueueMessage } from "../../ports/interruption-queue.ts";
import type { SqsApi } from "./sdk.ts";

export const RECEIVE_WAIT_SECONDS = 20;
export const VISIBILITY_TIMEOUT_SECONDS = 20;
export const MAX_MESSAGES = 10;

/** Reaching the queue failed: names the queue and the call. */
export class InterruptionQueueError extends Error {
  override name = "InterruptionQueueError";
}

const isAbort = (error: unknown): boolean =>
  error instanceof Error && (error.name === "AbortError" || error.name === "TimeoutError");

export class SqsInterruptionQueue implements InterruptionQueue {
  private readonly sqs: SqsApi;
  private readonly queue: string;
  private url: Promise<string> | undefined;

  constructor(o: { sqs: SqsApi; queue: string }) {
    this.sqs = o.sqs;
    this.queue = o.queue;
  }

  async receive(signal: AbortSignal): Promise<QueueMessage[]> {
    if (signal.aborted) return [];
    const url = await this.queueUrl();
    try {
      const out = await this.sqs.receiveMessage(
        {
          QueueUrl: url,
          MaxNumberOfMessages: MAX_MESSAGES,
          WaitTimeSeconds: RECEIVE_WAIT_SECONDS,
          VisibilityTimeout: VISIBILITY_TIMEOUT_SECONDS,
          MessageSystemAttributeNames: ["SentTimestamp"],
        },
        signal,
      );
      return (out.Messages ?? []).map((m) => {
        const sent = Number(m.Attributes?.SentTimestamp);
        return {
          id: m.MessageId ?? "",
          body: m.Body ?? "",
          receiptHandle: m.ReceiptHandle ?? "",
          sentAtMs: Number.isFinite(sent) && sent > 0 ? sent : undefined,
        };
      });
    } catch (error) {
      if (signal.aborted || isAbort(error)) return [];
      throw new InterruptionQueueError(`receiving from interruption queue ${this.queue}: ${(error as Error).message}`, {
        cause: error,
      });
    }
  }

  async delete(message: QueueMessage): Promise<void> {
    const url = await this.queueUrl();
    try {
      await this.sqs.deleteMessage({ QueueUrl: url, ReceiptHandle: message.receiptHandle });
    } catch (error) {
      throw new InterruptionQueueError(
        `deleting message ${message.id} from interruption queue ${this.queue}: ${(error as Error).message}`,
        { cause: error },
      );
    }
  }

  private queueUrl(): Promise<string> {
    if (/^https?:\/\//.test(this.queue)) return Promise.resolve(this.queue);
    this.url ??= this.sqs
      .getQueueUrl({ QueueName: this.queue })
      .then((out) => {
        if (out.QueueUrl === undefined || out.QueueUrl === "") throw new Error("no QueueUrl in the answer");
        return out.QueueUrl;
      })
      .catch((error: unknown) => {
        this.url = undefined;
        throw new InterruptionQueueError(`looking up interruption queue ${this.queue}: ${(error as Error).message}`, {
          cause: error,
        });
      });
    return this.url;
  }
}
