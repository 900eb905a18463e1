/**
 * One process per state file, for the whole life of that process, whatever name or release opens
 * it. Two writers on one file would hand out the same order ids and overwrite each other's rows.
 * No native code of ours: every lock here is SQLite's own POSIX advisory lock, which the operating
 * system drops when the process ends however it ends (kill -9 included), and which belongs to the
 * file (its inode), not to a name. Two locks, taken in this order:
 *
 * 1. The lock file `FILE.lock` (FILE the resolved path, see files.ts), an empty SQLite database
 *    held in an open write transaction (BEGIN IMMEDIATE: the RESERVED byte). It orders the servers
 *    that start on one file at the same moment (exactly one goes on), covers the file while it does
 *    not exist yet or is being replaced (a restore, a JSON import), and is what the release before
 *    this one takes. A lock path that is a link or not an empty regular file is refused before it
 *    is opened (files.ts checkNames).
 * 2. The claim on the state database itself (`claimFile`): every SQLite connection to a database
 *    in WAL mode holds SHARED on it (a read lock on its SHARED byte range) for as long as it is
 *    open. A claimer opens the file, asks for EXCLUSIVE (`locking_mode = EXCLUSIVE`, then BEGIN
 *    EXCLUSIVE: a write lock on that range), and gets it only when no other process has the file
 *    open: no server of any release, by any name or mount, no sqlite3 shell, no backup. It then
 *    steps down to SHARED without letting go (ROLLBACK in NORMAL mode converts the lock in one
 *    call), so the next claimer is refused in turn. SQLite's own bookkeeping treats the
 *    connections of one process as one holder, so a second claim in the same process is refused
 *    too (another connection of the process holds SHARED).
 *
 * A program that opens the file after the claim (the previous release starting while this one
 * serves, a sqlite3 shell) is not stopped by it: SQLite has no lock that keeps another process
 * from writing yet lets backups read and this server's writer thread commit. Its first commit is
 * seen before this server's next one and stops this server's writes (see commit-fence.ts).
 *
 * The lock file stays after the server ends. So that its removal does not go unseen, `check`
 * (run before each commit) tells when the file at the path is no longer the one locked.
 */
import { readFileSync, statSync } from "node:fs";
import { type Database, type Driver, loadDriver } from "./driver.js";
import { companionsOf, describeSqliteError, watchedFileIdentity } from "./files.js";
import { StateFileError } from "./state-file-error.js";

export function lockPathOf(statePath: string): string {
  return companionsOf(statePath).lock;
}

export class StateLock {
  private released = false;

  private constructor(
    readonly path: string,
    private readonly db: Database,
    private readonly identity: { check(): void; close(): void },
  ) {}

  /**
   * Takes the lock file of the state file at `statePath` (resolved, its names checked: see
   * files.ts); throws a StateFileError when another holds it.
   */
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
      if (code === "SQLITE_BUSY") throw new FileInUse(inUse(statePath, lockHolders(path, RESERVED_BYTE)));
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

/** The claim on a state database (see the module's comment), held by a read-only connection. */
export interface FileClaim {
  /**
   * Lets the claim go: once another connection of this process holds the file (which then holds
   * the claim for it), or when the file is closed. A read-only connection never checkpoints or
   * removes the log when it closes, so this may come at any point.
   */
  release(): void;
}

/**
 * Claims the existing state database at `path` for this process: throws a StateFileError naming
 * the processes that have it open when any other has. Writes nothing.
 */
export function claimFile(Driver: Driver, path: string): FileClaim {
  // Read-only, so it never checkpoints or removes the log: see closeProbe.
  const keeper = new Driver(path, { readonly: true, fileMustExist: true });
  let probe: Database;
  try {
    probe = new Driver(path, { fileMustExist: true, timeout: 0 });
  } catch (error) {
    keeper.close();
    throw error;
  }
  let holder: Database | undefined;
  try {
    // Read first, so that the log is opened in NORMAL mode (a connection that enters WAL mode in
    // EXCLUSIVE mode keeps its WAL index in its own memory, and can never step down).
    probe.prepare("SELECT 1 FROM sqlite_schema LIMIT 1").get();
    probe.pragma("locking_mode = EXCLUSIVE");
    probe.exec("BEGIN EXCLUSIVE");
    probe.pragma("locking_mode = NORMAL");
    probe.exec("ROLLBACK");
    holder = new Driver(path, { readonly: true, fileMustExist: true });
    holder.prepare("SELECT 1 FROM sqlite_schema LIMIT 1").get();
  } catch (error) {
    holder?.close();
    const code = (error as { code?: string }).code ?? "";
    if (code === "SQLITE_BUSY") throw new FileInUse(openElsewhere(path, lockHolders(path)));
    throw new StateFileError(`state file ${path}: ${describeSqliteError(error)}`);
  } finally {
    closeProbe(probe, keeper);
  }
  const claim = holder;
  return { release: () => claim.close() };
}

/**
 * Closes the probe without it checkpointing the log into the file and removing it, which SQLite
 * does when the last connection that holds the file closes: a refused file (damaged, its log
 * left by a crash) must be left as it was. The keeper (read-only: it never checkpoints) holds a
 * read transaction meanwhile; begun on a damaged file, the attempt holds the file all the same.
 */
function closeProbe(probe: Database, keeper: Database): void {
  try {
    keeper.exec("BEGIN");
    keeper.prepare("SELECT 1 FROM sqlite_schema LIMIT 1").get();
  } catch {
    // A damaged file: see above.
  }
  probe.close();
  if (keeper.inTransaction) keeper.exec("ROLLBACK");
  keeper.close();
}

/** The refusal of a claim on a file another process has open. */
export class FileInUse extends StateFileError {}

/** What a commit is refused with once the lock file is no longer the one locked. */
export function lockFileMoved(lockPath: string): string {
  return `the lock file ${lockPath} was deleted or replaced while the server ran, so another server may open the state file now`;
}

function inUse(statePath: string, holders: readonly Holder[]): string {
  return (
    `state file ${statePath}: is in use by ${describeHolders(holders)}, which holds its lock ${lockPathOf(statePath)}. ` +
    "A state file is served by one process at a time: stop that one first, or use another file " +
    `(a copy of it while it serves: marketapi-server backup --state ${statePath} --out COPY)`
  );
}

function openElsewhere(statePath: string, holders: readonly Holder[]): string {
  return (
    `state file ${statePath}: is in use by ${describeHolders(holders)}, which has the file open (under this or another name). ` +
    "A state file is served by one process at a time, and nothing else may have it open when a server starts or a restore replaces it: " +
    "stop that one first (a backup ends by itself), or use another file"
  );
}

/** A process that holds a POSIX lock on a file, as /proc/locks and /proc/PID/cmdline tell. */
export interface Holder {
  pid: number;
  /** The start of its command line, when readable. */
  command?: string;
}

/** "another process (PID 4242: node …/marketapi-server.js --state …)", "this process (PID …)", … */
export function describeHolders(holders: readonly Holder[]): string {
  const others = holders.filter((h) => h.pid !== process.pid);
  const self = holders.find((h) => h.pid === process.pid);
  if (others.length === 0)
    return self ? `this process (PID ${self.pid}), which has it open already` : "another process";
  const each = others.map((h) => (h.command ? `PID ${h.pid}: ${h.command}` : `PID ${h.pid}`));
  return others.length === 1 ? `another process (${each[0]})` : `other processes (${each.join("; ")})`;
}

/** The byte SQLite locks for its RESERVED lock (PENDING_BYTE + 1), as /proc/locks shows it. */
const RESERVED_BYTE = 0x40000001;
/** How much of a holder's command line a message quotes. */
const COMMAND_CHARS = 120;

/**
 * The processes that hold a POSIX lock on the file at `path` (on byte `at` only, when given),
 * from the kernel's list of locks (Linux); empty where that list cannot be read. Another PID
 * namespace shows its processes as 0, and they are left out.
 */
export function lockHolders(path: string, at?: number): Holder[] {
  let locks: string;
  let stat: ReturnType<typeof statSync>;
  try {
    locks = readFileSync("/proc/locks", "utf8");
    stat = statSync(path);
  } catch {
    return [];
  }
  const device = `${hex2(deviceMajor(stat.dev))}:${hex2(deviceMinor(stat.dev))}:${stat.ino}`;
  const pids = new Set<number>();
  for (const line of locks.split("\n")) {
    // "1: POSIX  ADVISORY  WRITE 4242 fe:00:2155857 1073741825 1073741825"; waiters have "->".
    const fields = line.trim().split(/\s+/);
    if (fields[1] !== "POSIX" || fields[5] !== device) continue;
    const [start, end] = [Number(fields[6]), fields[7] === "EOF" ? Infinity : Number(fields[7])];
    if (at !== undefined && !(start <= at && at <= end)) continue;
    const pid = Number(fields[4]);
    if (pid > 0) pids.add(pid);
  }
  return [...pids].sort((a, b) => a - b).map((pid) => ({ pid, ...commandOf(pid) }));
}

function commandOf(pid: number): { command?: string } {
  try {
    const words = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\u0000").filter(Boolean);
    const text = words.join(" ").replace(/\s+/g, " ");
    if (text === "") return {};
    return { command: text.length > COMMAND_CHARS ? `${text.slice(0, COMMAND_CHARS)}…` : text };
  } catch {
    return {};
  }
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
