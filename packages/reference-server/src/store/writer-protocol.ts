/** The messages between the main thread and the state database's writer thread. */
import type { WriteOp } from "./rows.js";

export interface WriterData {
  path: string;
  /** The state file's lock file (see lock.ts), checked to be still in place before each commit. */
  lockPath: string;
  /** "normal": a commit survives the server's crash (kill -9); "full": also the machine's (fsync each commit). */
  sync: StateSync;
  /** Sync "normal": the count of this thread's commits, shared with the main thread (commit-fence.ts). */
  ours: Int32Array;
}

export type StateSync = "normal" | "full";

/**
 * `ops` is WriteOp[] as JSON text: one string crosses threads several times faster than the
 * structured clone of thousands of small arrays.
 */
export type WriterRequest =
  | { seq: number; ops: string }
  | { seq: number; close: true }
  /** Copies the WAL into the database (PASSIVE: never waits for the connection that commits). */
  | { seq: number; checkpoint: true }
  /** The file is accepted: from now on, another program's commits stop this thread's (sync "full"). */
  | { seq: number; fence: true };
export type WriterReply = { seq: number; ok: true } | { seq: number; ok: false; error: string; code: string };

/** Posts a batch of writes to the writer thread. */
export function postBatch(
  port: { postMessage(message: unknown): void },
  seq: number,
  ops: readonly WriteOp[],
): void {
  port.postMessage({ seq, ops: JSON.stringify(ops) } satisfies WriterRequest);
}

export function decodeBatch(text: string): WriteOp[] {
  return JSON.parse(text) as WriteOp[];
}
