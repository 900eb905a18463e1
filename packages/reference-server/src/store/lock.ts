/**
 * One process per state file, for the whole life of that process. Two servers on one file would
 * hand out the same order ids and overwrite each other's rows; the lock refuses the second at
 * start-up instead.
 *
 * The lock is SQLite's own, so it needs no native code of ours: a companion file `FILE.lock`
 * (an empty SQLite database, never written) held in an open write transaction (`BEGIN
 * IMMEDIATE`: SQLite's RESERVED lock, a POSIX advisory lock on one byte of the file) from start-up
 * until the state database is closed. The operating system drops the lock when the process ends
 * however it ends, kill -9 included. Another process's `BEGIN IMMEDIATE` fails at once (busy
 * timeout 0), and so does a second attempt in the same process (SQLite keeps one lock state per
 * file for all of a process's connections).
 *
 * The lock file stays after the server ends: removing it while a server runs would let a second
 * server lock a new file of the same name. So that a removal does not go unseen, `check` (run
 * before each commit) tells when the file at the path is no longer the one locked.
 *
 * A backup reads the state database while the server serves and takes no lock (see backup.ts).
 */
import { readFileSync, statSync } from "node:fs";
import { type Database, loadDriver } from "./driver.js";
import { describeSqliteError, watchedFileIdentity } from "./files.js";
import { StateFileError } from "./state-file-error.js";

/** The byte SQLite locks for its RESERVED lock (PENDING_BYTE + 1), as /proc/locks shows it. */
const RESERVED_BYTE = 0x40000001;

export function lockPathOf(statePath: string): string {
  return `${statePath}.lock`;
}

export class StateLock {
  private released = false;

  private constructor(
    readonly path: string,
    private readonly db: Database,
    private readonly identity: { check(): void; close(): void },
  ) {}

  /** Takes the lock of the state file at `statePath`; throws a StateFileError when another holds it. */
  static acquire(statePath: string): StateLock {
    const path = lockPathOf(statePath);
    const Driver = loadDriver();
    let db: Database | undefined;
    try {
      db = new Driver(path, { timeout: 0 });
      // Nothing is ever written: no journal file (one left by kill -9 would read as a hot journal).
      db.pragma("journal_mode = MEMORY");
      db.exec("BEGIN IMMEDIATE");
    } catch (error) {
      db?.close();
      const code = (error as { code?: string }).code ?? "";
      if (code === "SQLITE_BUSY") throw new StateFileError(inUse(statePath, path));
      throw new StateFileError(
        `state file ${statePath}: ${describeSqliteError(error)} (its lock file ${path})`,
      );
    }
    return new StateLock(path, db, watchedFileIdentity(path, lockFileMoved(path)));
  }

  /** Throws an Error (code MOVED) when the lock file was deleted or replaced since it was locked. */
  check(): void {
    this.identity.check();
  }

  /** Lets another process open the state file (the connections to it are closed first). */
  release(): void {
    if (this.released) return;
    this.released = true;
    this.identity.close();
    this.db.close();
  }
}

/** What a commit is refused with once the lock file is no longer the one locked. */
export function lockFileMoved(lockPath: string): string {
  return `the lock file ${lockPath} was deleted or replaced while the server ran, so another server may open the state file now`;
}

function inUse(statePath: string, lockPath: string): string {
  const pid = lockHolder(lockPath);
  const who =
    pid === undefined
      ? "another process"
      : pid === process.pid
        ? `this process (PID ${pid}), which has it open already`
        : `another process (PID ${pid})`;
  return (
    `state file ${statePath}: is in use by ${who}, which holds its lock ${lockPath}. ` +
    "A state file is served by one process at a time: stop that one first, or use another file " +
    `(a copy of it while it serves: marketapi-server backup --state ${statePath} --out COPY)`
  );
}

/**
 * The process that holds the lock, from the kernel's list of POSIX locks (Linux); undefined where
 * that list cannot be read or names no process (another PID namespace shows 0).
 */
export function lockHolder(lockPath: string): number | undefined {
  let locks: string;
  let stat: ReturnType<typeof statSync>;
  try {
    locks = readFileSync("/proc/locks", "utf8");
    stat = statSync(lockPath);
  } catch {
    return undefined;
  }
  const device = `${hex2(deviceMajor(stat.dev))}:${hex2(deviceMinor(stat.dev))}:${stat.ino}`;
  for (const line of locks.split("\n")) {
    // "1: POSIX  ADVISORY  WRITE 4242 fe:00:2155857 1073741825 1073741825"; waiters have "->".
    const fields = line.trim().split(/\s+/);
    if (fields[1] !== "POSIX" || fields[3] !== "WRITE") continue;
    if (fields[5] !== device || Number(fields[6]) !== RESERVED_BYTE) continue;
    const pid = Number(fields[4]);
    return pid > 0 ? pid : undefined;
  }
  return undefined;
}

/** Linux's encoding of device numbers (new_encode_dev), as /proc/locks prints them. */
function deviceMajor(dev: number): number {
  return Math.floor(dev / 256) & 0xfff;
}

function deviceMinor(dev: number): number {
  return (dev & 0xff) | (Math.floor(dev / 4096) & 0xfff00);
}

function hex2(n: number): string {
  return n.toString(16).padStart(2, "0");
}
