/** The streams a CLI command writes to, injected so tests can capture them. */
export interface CliIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  /** Whether stdout is a terminal (colour, progress). */
  readonly isTty: boolean;
  /** Standard input, read whole; used by `kerf check -`. */
  readonly readStdin: () => Promise<string>;
}

/** The process's own streams. */
export function processIo(): CliIo {
  return {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    isTty: process.stdout.isTTY === true,
    readStdin: async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks).toString("utf8");
    },
  };
}
