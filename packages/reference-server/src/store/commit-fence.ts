/**
 * A commit of another program between two of this server's stops this server's writes. The claim
 * at start-up (lock.ts) refuses a file that another program has open, but one that opens it
 * later is not stopped by any lock (SQLite has none that keeps another process from writing yet
 * lets backups read and this server's own two connections commit). So each commit first asks
 * whether anyone else has committed since this connection's last one, inside its own write
 * transaction (which holds SQLite's write lock, so the answer stays true until it commits):
 * SQLite's `data_version` changes when a commit by another connection is seen.
 *
 * The only other connection of this server that commits is the writer thread's, and only one of
 * the two commits while serving: with sync "full" the writer thread commits everything and the
 * main thread nothing; with "normal" the main thread commits the batches, and the writer thread
 * the chunks of client order ids (one per 16,384 orders) and, after a failure, its probes. It
 * counts those in shared memory (odd while one is under way), so the main thread sets aside a
 * change in an interval when the writer thread committed, and sees every other. So another
 * program's first commit stops this server's next commit, unless both fall in an interval with a
 * chunk of client order ids; then its next commit does.
 *
 * Stopped, the server keeps refusing writes until it is restarted (no probe writes again); closing,
 * it removes only its serving mark, and only while the schema is still exactly its own (open.ts).
 */
import type { Database, Statement } from "./driver.js";
import { describeHolders, lockHolders } from "./lock.js";

/** The code of the error that stops a commit after another program's. */
export const FOREIGN_COMMIT = "FOREIGN_COMMIT";

export class CommitFence {
  private readonly version: Statement;
  private lastVersion: number | undefined;
  private lastOurs = 0;

  /**
   * `db` is the connection that commits; `ours` counts the commits of this server's other
   * connection (see ourCommits), when it has one that commits.
   */
  constructor(
    db: Database,
    private readonly path: string,
    private readonly ours?: Int32Array,
  ) {
    this.version = db.prepare("PRAGMA data_version").pluck();
  }

  /** From now on (the file just accepted), commits by others are seen. */
  start(): void {
    this.lastVersion = this.version.get() as number;
    this.lastOurs = this.ours ? Atomics.load(this.ours, 0) : 0;
  }

  /**
   * Inside a write transaction, before its writes: throws an Error (code FOREIGN_COMMIT) when
   * another program has committed since this connection's last commit (or `start`).
   */
  check(): void {
    if (this.lastVersion === undefined) return;
    const version = this.version.get() as number;
    const ours = this.ours ? Atomics.load(this.ours, 0) : 0;
    const oursMeanwhile = ours !== this.lastOurs || ours % 2 === 1;
    if (version !== this.lastVersion && !oursMeanwhile)
      throw Object.assign(new Error(foreignCommit(this.path)), { code: FOREIGN_COMMIT });
    this.lastVersion = version;
    this.lastOurs = ours;
  }
}

/**
 * The count of commits by the writer thread's connection, shared with the main thread: the writer
 * thread adds one before its write transaction begins and one once it has ended (committed or
 * not), so the count is odd while one is under way.
 */
export function ourCommits(): Int32Array {
  return new Int32Array(new SharedArrayBuffer(4));
}

/** Runs `write` (one write transaction of the writer thread) counted in `ours` (see ourCommits). */
export function counted<T>(ours: Int32Array | undefined, write: () => T): T {
  if (!ours) return write();
  Atomics.add(ours, 0, 1);
  try {
    return write();
  } finally {
    Atomics.add(ours, 0, 1);
  }
}

function foreignCommit(path: string): string {
  const others = lockHolders(path).filter((holder) => holder.pid !== process.pid);
  const who = others.length > 0 ? describeHolders(others) : "another program";
  return `${who} committed to the state file ${path} while this server served it (a server of an earlier release, or an SQLite shell, that opened it after this one started); this server has stopped writing it, so that the two never write in turns. Stop one of them: a state file is served by one process at a time`;
}
