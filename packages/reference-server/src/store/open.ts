/**
 * Opening the state file, its lock file held (see lock.ts). Nothing is written to a file until it
 * has passed every check, so that a refused file is left byte for byte as it was:
 *
 * 1. A new file is created whole (written aside, then linked into place).
 * 2. The file is claimed for this process (lock.ts claimFile): refused while any other process has
 *    it open, under any name.
 * 3. It is examined on a read-only connection: SQLite's integrity check, marketapi's identity and
 *    schema version, a schema exactly the one its version stands for (schema-check.ts: nothing
 *    missing, nothing added, nothing defined otherwise, so no trigger or view of the file ever
 *    runs), and the mark of a server that had it open: a file marked so, whose write-ahead log is
 *    not beside it, lacks the commits since its last checkpoint (a copy of the main file alone)
 *    and is refused, unless another server has opened and written it since (its `opened_at` is
 *    not the mark's), which closed it cleanly.
 * 4. An older schema is upgraded only once it is known to work: the file as it is is kept beside
 *    it (FILE.schema-N-backup, the way back to the release before), a second copy is migrated
 *    and loaded as a trial, and only if that passes is the file itself migrated, in one transaction.
 * 5. The main connection is opened (it holds the claim from then on); the read-only one stays open
 *    until the state is accepted (loaded, or a new exchange declared), so that closing a refused
 *    file neither checkpoints nor removes its write-ahead log.
 * 6. Accepted (`markServing`): the file is put in WAL mode, marked as served by this process, and
 *    checkpointed, so that the main file itself carries the mark; a clean close removes it.
 */
import { copyFileSync, existsSync, linkSync, renameSync, rmSync, statSync } from "node:fs";
import { hostname } from "node:os";
import { type Database, type Driver, distrustSchema, loadDriver, usePageCache } from "./driver.js";
import { companionsOf, describeSqliteError } from "./files.js";
import { creationAside } from "./leftovers.js";
import { claimFile, type FileClaim, lockPathOf } from "./lock.js";
import { migrate, SCHEMA_VERSION, schemaVersion } from "./schema.js";
import { schemaDifferences } from "./schema-check.js";
import { StateFileError } from "./state-file-error.js";
import type { StateSync } from "./writer-protocol.js";

/**
 * New databases' page size. Each commit writes every page it changes whole, to the WAL and again at
 * the checkpoint, and SQLite writes each page of the WAL with two system calls (frame header, then
 * page), so the page size trades bytes for calls. With each symbol's rows appended at the end of
 * tables of their own, bench:ceiling --state wrote 12.9 pages per commit of 1 KiB (2.6–2.8 KB per
 * order) where 512-byte pages took 16.1 (1.8–1.9 KB), and took 3–7 µs less CPU per order;
 * 4 KiB pages took more CPU again. --state-sync full writes 3.9 KB per order (3.0 KB).
 */
const PAGE_SIZE = 1024;

/** The meta key that marks a file as open in a server (removed by a clean close). */
export const SERVING_KEY = "serving";

/** How an older schema is brought to the current one. */
export type Upgrade =
  /** A served file: the original kept beside it, and a trial on a copy first (`trial` migrates and loads it). */
  | { trial(copy: string): Promise<void> }
  /** A private copy (the trial's own): migrated in place. */
  | "in-place";

export interface OpenedFrom {
  /** The schema version the file had. */
  version: number;
  /** Where the file as it was before the upgrade is kept (an upgrade only). */
  original?: string;
  /**
   * The file carried the mark of a server of this release that did not close it, but another
   * server has opened and written it since and closed it (so its log is not missing): who.
   */
  staleMark?: string;
}

/** What the examination of an existing file found. */
export interface Examined {
  /** The read-only connection it was examined on. */
  db: Database;
  version: number;
  isNew: boolean;
  /** The log and shared-memory files that were not there before (SQLite creates them on opening). */
  created: string[];
  /** See OpenedFrom.staleMark. */
  staleMark?: string;
}

export class StateFile {
  private accepted = false;
  private refused = false;

  private constructor(
    readonly path: string,
    /** The main thread's connection: history reads, and commits with sync "normal". */
    readonly db: Database,
    /** The read-only connection of the examination, open until the state is accepted. */
    private guard: Database | undefined,
    readonly openedFrom: OpenedFrom,
    /** The companions the examination created, removed again if the file is refused. */
    private readonly created: string[],
  ) {}

  /**
   * Opens the state file at `path` (created when absent), examined and, where its schema is older,
   * upgraded; throws a StateFileError naming the fault, the file left as it was.
   */
  static async open(path: string, sync: StateSync, upgrade: Upgrade): Promise<StateFile> {
    const Driver = loadDriver();
    let before: CompanionsBefore | undefined;
    let claim: FileClaim | undefined;
    let examined: Examined | undefined;
    let db: Database | undefined;
    try {
      if (!existsSync(path)) createWhole(Driver, path);
      before = companionsBefore(path);
      claim = claimFile(Driver, path);
      examined = examine(Driver, path, { integrity: true, tidy: true, missingLog: "refuse" }, before);
      const openedFrom: OpenedFrom = {
        version: examined.version,
        ...(examined.staleMark ? { staleMark: examined.staleMark } : {}),
      };
      if (!examined.isNew && examined.version < SCHEMA_VERSION && upgrade !== "in-place")
        openedFrom.original = await tryUpgrade(Driver, path, examined, upgrade);
      db = new Driver(path, { timeout: 10_000, fileMustExist: true });
      distrustSchema(db);
      usePageCache(db);
      if (sync === "normal") {
        // This connection commits (see committer.ts): in WAL mode NORMAL leaves the fsync to
        // checkpoints, which the writer thread runs, so neither a commit nor a checkpoint waits
        // for the disk here.
        db.pragma("synchronous = NORMAL");
        db.pragma("wal_autocheckpoint = 0");
        db.pragma("busy_timeout = 0");
      }
      migrate(db);
      // The main connection holds the file now (a connection in WAL mode holds SHARED while open).
      claim.release();
      return new StateFile(path, db, examined.db, openedFrom, examined.created);
    } catch (error) {
      db?.close();
      examined?.db.close();
      claim?.release();
      removeEmpty(before?.created ?? []);
      if (error instanceof StateFileError) throw error;
      throw new StateFileError(`state file ${path}: ${describeSqliteError(error)}`);
    }
  }

  /**
   * The state is accepted: the file is put in WAL mode, marked as served by this process (which
   * also proves that the file, its folder and the disk take writes) and checkpointed, so that the
   * main file carries the mark even when copied without its write-ahead log.
   */
  markServing(): void {
    if (this.accepted) return;
    try {
      this.db.pragma("journal_mode = WAL");
      const mark = this.db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)");
      const now = Date.now();
      // Every release of this server writes opened_at when it opens the file: the mark keeps the
      // value this server wrote, so a later opener that closed the file cleanly is seen (checkLog).
      mark.run("opened_at", String(now));
      mark.run(
        SERVING_KEY,
        JSON.stringify({
          pid: process.pid,
          host: hostname(),
          since: new Date(now).toISOString(),
          openedAt: String(now),
        } satisfies ServingMark),
      );
      // FULL, not TRUNCATE: the log keeps its frames, so a served file's log is never empty (an
      // empty one is taken for a missing one, see checkLog).
      this.db.pragma("wal_checkpoint(FULL)");
    } catch (error) {
      throw new StateFileError(`state file ${this.path}: ${describeSqliteError(error)}`);
    }
    this.accepted = true;
    this.closeGuard();
  }

  /** Its state was refused: the file is to be left as it was (see `close`). */
  refuse(): void {
    this.refused = true;
  }

  /**
   * Closes the file: a served file's mark is removed, and the last connection checkpoints it and
   * removes the log. A refused file's read-only connection is closed last: it neither checkpoints
   * nor removes the log, so the file stays as it was. `afterAnother`: another program has
   * committed to the file (commit-fence.ts); the mark is removed only while the schema is still
   * exactly this server's, so that no trigger another program added runs.
   */
  close({ afterAnother = false }: { afterAnother?: boolean } = {}): void {
    if (this.accepted && (!afterAnother || this.schemaStillOurs())) {
      try {
        this.db.prepare("DELETE FROM meta WHERE key = ?").run(SERVING_KEY);
      } catch {
        // The file cannot be written (a full disk): the mark stays, and so does the log.
      }
    }
    if (!this.refused) this.closeGuard();
    this.db.close();
    this.closeGuard();
    if (this.refused) removeEmpty(this.created);
  }

  private schemaStillOurs(): boolean {
    try {
      const { missing, foreign } = schemaDifferences(this.db, SCHEMA_VERSION);
      return missing.length === 0 && foreign.length === 0;
    } catch {
      return false;
    }
  }

  private closeGuard(): void {
    this.guard?.close();
    this.guard = undefined;
  }
}

export interface ExamineOptions {
  /** Run SQLite's integrity check (a backup checks its copy instead). */
  integrity: boolean;
  /**
   * Remove the log and shared memory the examination created if it refuses the file: only with
   * the file's lock held (no server can have opened them meanwhile).
   */
  tidy: boolean;
  /** A file marked as served whose log is missing: refused, or taken as it is (restore --accept-missing-wal). */
  missingLog: "refuse" | "accept";
  /**
   * Examine on a connection that may write (it never does): when it closes as the file's last
   * connection, SQLite removes the log and shared memory it created. For a file no server serves.
   */
  readWrite?: boolean;
}

/** The log and shared memory as they are before this process opens the file. */
export interface CompanionsBefore {
  /** The log has something in it (a served file's log is never empty: see markServing). */
  logPresent: boolean;
  /** The log and shared-memory files that are not there (SQLite creates both when it opens the file). */
  created: string[];
}

export function companionsBefore(path: string): CompanionsBefore {
  const { wal, shm } = companionsOf(path);
  return { logPresent: hasLog(path), created: [wal, shm].filter((companion) => !existsSync(companion)) };
}

/**
 * The examination of an existing file, on a read-only connection (returned open): identity,
 * schema, integrity and the serving mark. `before`: the companions as they were before this
 * process opened the file. Throws an Error naming the fault.
 */
export function examine(
  Driver: Driver,
  path: string,
  options: ExamineOptions,
  before: CompanionsBefore = companionsBefore(path),
): Examined {
  const { logPresent, created } = before;
  const db = new Driver(path, { readonly: !options.readWrite, fileMustExist: true });
  try {
    distrustSchema(db);
    const { version, isNew } = schemaVersion(db);
    // Before the integrity check: it reads every table and index as SQLite has them defined.
    if (!isNew) checkSchema(db, version);
    if (options.integrity) checkIntegrity(db);
    let staleMark: string | undefined;
    if (!isNew && options.missingLog === "refuse") staleMark = checkLog(db, path, logPresent);
    return { db, version, isNew, created, ...(staleMark ? { staleMark } : {}) };
  } catch (error) {
    db.close();
    if (options.tidy) removeEmpty(created);
    throw error;
  }
}

/** Whether the file has a write-ahead log with something in it. */
export function hasLog(path: string): boolean {
  const { wal } = companionsOf(path);
  return existsSync(wal) && statSync(wal).size > 0;
}

/**
 * Removes the log and shared-memory files that opening a refused file created (no connection is
 * open then, and the lock keeps others out): the log only while empty, so never a commit.
 */
function removeEmpty(created: readonly string[]): void {
  const log = created.find((file) => file.endsWith("-wal"));
  if (log && existsSync(log) && statSync(log).size > 0) return;
  for (const file of created) rmSync(file, { force: true });
}

/**
 * A file marked as marketapi's holds exactly the schema of its version (schema-check.ts), and an
 * exchange with its symbols or neither. One that lacks part of it (a copy of the main file made
 * before its first checkpoint lacks the tables and rows still in its log) is damaged; one that
 * holds anything else, or ours defined otherwise, may carry code, and is refused without anything
 * of it being run.
 */
function checkSchema(db: Database, version: number): void {
  const { missing, foreign } = schemaDifferences(db, version);
  if (foreign.length > 0)
    throw damaged(
      `it is a marketapi state database (schema version ${version}) whose schema is not this server's: ${[...foreign, ...missing].join("; ")}. A state file holds data only: nothing it holds was run, and it is not used. Restore a backup taken before it changed (marketapi-server restore)`,
    );
  const faults = [...missing];
  if (faults.length === 0) {
    const created = db.prepare("SELECT 1 FROM meta WHERE key = 'created_at'").get() !== undefined;
    const symbols = (db.prepare("SELECT count(*) AS n FROM symbols").get() as { n: number }).n;
    if (created && symbols === 0) faults.push("it holds an exchange without symbols");
    if (!created && symbols > 0) faults.push(`it holds ${symbols} symbols but no exchange (no created_at)`);
  }
  if (faults.length > 0)
    throw damaged(
      `it is a marketapi state database (schema version ${version}) whose contents are incomplete: ${faults.join("; ")}. It is not taken for a new exchange: restore it from a backup (marketapi-server restore)`,
    );
}

/** What the serving mark records (see markServing). */
interface ServingMark {
  pid: number;
  host: string;
  since: string;
  /** The opened_at this server wrote (marks of earlier releases have none: `since` stands for it). */
  openedAt?: string;
}

/**
 * A file that a server had open and did not close keeps its recent commits in its log: refused
 * when the log is missing, unless another server has opened the file since (every release writes
 * opened_at when it opens it), which then closed it cleanly, its log applied (the way back to the
 * release before, after a crash). Returns who left the mark in that case.
 */
function checkLog(db: Database, path: string, logPresent: boolean): string | undefined {
  if (logPresent) return undefined;
  const value = metaText(db, SERVING_KEY);
  if (value === undefined) return undefined;
  const mark = parseMark(value);
  const openedAt = metaText(db, "opened_at");
  if (mark && openedAt !== undefined && openedByAnother(mark, openedAt))
    return `${describeMark(mark)}; another server opened it at ${new Date(Number(openedAt)).toISOString()} and closed it`;
  throw damaged(
    `was open in a server (${mark ? describeMark(mark) : value}) that did not close it, and its write-ahead log ${companionsOf(path).wal} is missing (or empty): the commits since the file's last checkpoint are missing (was ${path} copied without ${companionsOf(path).wal}?). Put that log beside it; or, to use the file as it is, without those commits: marketapi-server restore --from ${path} --state NEW-FILE --accept-missing-wal`,
  );
}

function metaText(db: Database, key: string): string | undefined {
  const row = db.prepare("SELECT value FROM meta WHERE key = ?").get(key) as { value: unknown } | undefined;
  return typeof row?.value === "string" ? row.value : undefined;
}

/** The opened_at the marking server wrote is no longer there: another opened the file after it. */
function openedByAnother(mark: ServingMark, openedAt: string): boolean {
  if (mark.openedAt !== undefined) return mark.openedAt !== openedAt;
  // Marks of the release before carry no opened_at; it wrote both within the same millisecond or two.
  const since = Date.parse(mark.since);
  return Number.isFinite(since) && Math.abs(Number(openedAt) - since) > 1000;
}

function parseMark(value: string): ServingMark | undefined {
  try {
    const mark = JSON.parse(value) as Partial<ServingMark>;
    if (typeof mark.pid !== "number" || typeof mark.host !== "string" || typeof mark.since !== "string")
      return undefined;
    return mark as ServingMark;
  } catch {
    return undefined;
  }
}

function describeMark({ pid, host, since }: ServingMark): string {
  return `process ${pid} on ${host}, since ${since}`;
}

/**
 * Keeps the file as it is beside it, then migrates and loads a second copy as a trial; returns
 * where the original is kept. When the trial fails, both copies are removed and the file is left
 * as it was.
 */
async function tryUpgrade(
  Driver: Driver,
  path: string,
  examined: Examined,
  upgrade: { trial(copy: string): Promise<void> },
): Promise<string> {
  const original = `${path}.schema-${examined.version}-backup`;
  // Written aside and renamed into place: a file at that name is whole (see leftovers.ts).
  const partial = `${original}.partial-${process.pid}`;
  const trial = `${path}.upgrade-trial-${process.pid}`;
  removeDatabase(original);
  try {
    snapshotInto(examined.db, partial);
    clearServingMark(Driver, partial);
    renameSync(partial, original);
    removeDatabase(trial);
    copyFileSync(original, trial);
    await upgrade.trial(trial);
  } catch (error) {
    removeDatabase(partial);
    removeDatabase(original);
    const reason =
      error instanceof Error ? error.message.replace(`state file ${trial}: `, "") : String(error);
    throw new StateFileError(
      `state file ${path}: has schema version ${examined.version} and was not upgraded to ${SCHEMA_VERSION}: the upgraded copy ${reason.startsWith("is ") ? reason : `failed: ${reason}`}. The file is left as it was`,
    );
  } finally {
    removeDatabase(trial);
  }
  return original;
}

/**
 * A consistent copy of the database at `to` (which must not exist): SQLite's VACUUM INTO, in one
 * read transaction, so one snapshot, whatever commits meanwhile; the copy is compact and in
 * rollback-journal mode, with the source's page size, schema version and application id.
 */
export function snapshotInto(source: Database, to: string): void {
  source.prepare("VACUUM INTO ?").run(to);
}

/** Removes the serving mark from a copy (a backup, the original kept at an upgrade). */
export function clearServingMark(Driver: Driver, path: string): void {
  const db = new Driver(path, { fileMustExist: true });
  try {
    distrustSchema(db);
    db.prepare("DELETE FROM meta WHERE key = ?").run(SERVING_KEY);
  } finally {
    db.close();
  }
}

/** Removes a private database and its companions (never a served file: its lock file must stay). */
export function removeDatabase(path: string): void {
  for (const suffix of ["", "-wal", "-shm", "-journal"]) rmSync(`${path}${suffix}`, { force: true });
  rmSync(lockPathOf(path), { force: true });
}

function damaged(message: string): Error {
  return Object.assign(new Error(`is damaged: ${message}`), { code: "DAMAGED" });
}

/**
 * Creates the database aside and links it into place once it holds its schema, so a file at the
 * path is never one this server left empty (an empty state file is damaged, not new).
 */
function createWhole(Driver: Driver, path: string): void {
  const aside = creationAside(path);
  for (const suffix of ["", "-wal", "-shm"]) rmSync(`${aside}${suffix}`, { force: true });
  try {
    const db = new Driver(aside);
    try {
      // Set before the first table exists, so only a new database takes it (an existing one keeps
      // its own): each commit appends every page it changed to the WAL, and a commit of a few
      // orders changes a page or two in each of about a dozen B-trees (see PAGE_SIZE).
      db.pragma(`page_size = ${PAGE_SIZE}`);
      db.pragma("journal_mode = WAL");
      migrate(db);
    } finally {
      db.close();
    }
    linkInPlace(aside, path);
  } finally {
    for (const suffix of ["", "-wal", "-shm"]) rmSync(`${aside}${suffix}`, { force: true });
  }
}

/** Links `from` at `to` unless `to` exists by then (another process created it: that file is used). */
function linkInPlace(from: string, to: string): void {
  try {
    linkSync(from, to);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EEXIST") return;
    // A file system without hard links: a rename is the next best (it replaces a file made meanwhile).
    if (existsSync(to)) throw error;
    renameSync(from, to);
  }
}

/**
 * SQLite's quick_check: every page of every table and index is read and its structure checked
 * (not the agreement of indexes with their tables), so a zeroed or overwritten page is found at
 * start-up rather than when a request meets it. Its cost grows with the file (see the README).
 */
export function checkIntegrity(db: Database): void {
  const rows = db.pragma("quick_check(5)") as { quick_check: string }[];
  const problems = rows.map((r) => r.quick_check).filter((text) => text !== "ok");
  if (problems.length > 0) throw damaged(`SQLite's integrity check found: ${problems.join("; ")}`);
}
