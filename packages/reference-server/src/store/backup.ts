/**
 * Backups and restores of a state file (`marketapi-server backup` and `restore`).
 *
 * A backup reads the file while a server serves it, without its lock: SQLite's VACUUM INTO on a
 * read-only connection copies one snapshot (one read transaction), whatever the server commits
 * meanwhile, and never blocks its commits (a WAL reader). The copy is written aside, checked
 * (SQLite's integrity check, and its state loaded and checked as a server would), flushed to the
 * disk and only then linked at the name asked for, which it never overwrites: a file at that name
 * is a whole backup.
 *
 * A restore takes the file's lock (no server may serve it meanwhile), copies the backup the same
 * way, moves the file it replaces aside with its write-ahead log (a log left beside another
 * database would be applied to it), and puts the copy in place.
 */
import { closeSync, existsSync, fsyncSync, linkSync, openSync, renameSync, rmSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { type Database, type Driver, loadDriver } from "./driver.js";
import { describeSqliteError, inspectFolder, inspectStatePath } from "./files.js";
import { lockPathOf, StateLock } from "./lock.js";
import {
  checkIntegrity,
  clearServingMark,
  type Examined,
  examine,
  hasLog,
  removeDatabase,
  snapshotInto,
} from "./open.js";
import { SCHEMA_VERSION } from "./schema.js";
import { StateDatabase } from "./state-database.js";
import { StateFileError } from "./state-file-error.js";

/** What a backup or a restore copied. */
export interface CopyReport {
  from: string;
  to: string;
  schemaVersion: number;
  orders: number;
  trades: number;
  bytes: number;
  ms: number;
  /** A restore: where the file it replaced is kept. */
  replaced?: string;
}

/** Copies the state file at `statePath` to `outPath` (which must not exist), while a server may serve it. */
export async function backupStateFile(statePath: string, outPath: string): Promise<CopyReport> {
  const started = performance.now();
  inspectFolder(outPath);
  if (existsSync(outPath))
    throw new StateFileError(
      `backup ${outPath}: exists already; a backup never overwrites a file: choose another name or remove it`,
    );
  requireDatabase(statePath);
  const Driver = loadDriver();
  // No lock, and no tidying: a server may open the file at any moment.
  const source = examineOrRefuse(Driver, statePath, { integrity: false, tidy: false, missingLog: "refuse" });
  const partial = `${outPath}.partial-${process.pid}`;
  try {
    removeDatabase(partial);
    const counts = copyChecked(Driver, source, partial);
    await checkLoads(partial);
    durable(partial);
    try {
      linkSync(partial, outPath);
    } catch (error) {
      throw new StateFileError(`backup ${outPath}: cannot be written (${(error as Error).message})`);
    }
    syncFolder(outPath);
    return report(statePath, outPath, counts, started);
  } finally {
    source.db.close();
    removeDatabase(partial);
  }
}

/**
 * Puts a copy of the backup at `fromPath` in place of the state file at `statePath` (which no
 * server may serve meanwhile). The file it replaces, if any, is kept as `statePath.replaced-TIME`
 * with its log. `acceptMissingWal` takes a file whose log is missing as it is (its commits since
 * its last checkpoint are lost).
 */
export async function restoreStateFile(
  fromPath: string,
  statePath: string,
  options: { acceptMissingWal?: boolean } = {},
): Promise<CopyReport> {
  const started = performance.now();
  requireFileOrAbsent(statePath);
  requireDatabase(fromPath);
  const lock = StateLock.acquire(statePath);
  const Driver = loadDriver();
  const restoring = `${statePath}.restoring-${process.pid}`;
  try {
    const inPlace = existsSync(statePath) && sameFile(fromPath, statePath);
    const source = examineOrRefuse(Driver, fromPath, {
      integrity: true,
      // A restore in place holds the file's lock.
      tidy: inPlace,
      missingLog: options.acceptMissingWal ? "accept" : "refuse",
      // A backup (no log: no server serves it) is left without the log and shared memory that
      // reading it creates.
      readWrite: !hasLog(fromPath),
    });
    let counts: Counts;
    try {
      removeDatabase(restoring);
      counts = copyChecked(Driver, source, restoring);
    } finally {
      source.db.close();
    }
    await checkLoads(restoring);
    durable(restoring);
    const replaced = existsSync(statePath) ? moveAside(statePath) : undefined;
    renameSync(restoring, statePath);
    syncFolder(statePath);
    return { ...report(fromPath, statePath, counts, started), ...(replaced ? { replaced } : {}) };
  } finally {
    removeDatabase(restoring);
    lock.release();
  }
}

/**
 * For a server that swaps its own state file for a backup (the sandbox's restore): a checked copy
 * of `fromPath`, flushed to the disk, beside `statePath` (whose lock the caller holds). Put it in
 * place with `installCopy` once the file is closed.
 */
export async function copyBeside(fromPath: string, statePath: string): Promise<string> {
  requireDatabase(fromPath);
  const Driver = loadDriver();
  const copy = `${statePath}.restoring-${process.pid}`;
  const source = examineOrRefuse(Driver, fromPath, {
    integrity: true,
    tidy: false,
    missingLog: "refuse",
    readWrite: !hasLog(fromPath),
  });
  try {
    removeDatabase(copy);
    copyChecked(Driver, source, copy);
  } catch (error) {
    removeDatabase(copy);
    throw error;
  } finally {
    source.db.close();
  }
  try {
    await checkLoads(copy);
    durable(copy);
  } catch (error) {
    removeDatabase(copy);
    throw error;
  }
  return copy;
}

/**
 * Puts the copy in place of the closed state file (its log and shared memory go first: a log left
 * beside another database would be applied to it). The file replaced is not kept.
 */
export function installCopy(copy: string, statePath: string): void {
  rmSync(`${statePath}-wal`, { force: true });
  rmSync(`${statePath}-shm`, { force: true });
  renameSync(copy, statePath);
  syncFolder(statePath);
}

interface Counts {
  schemaVersion: number;
  orders: number;
  trades: number;
}

/** A path a restore may write: in a folder that exists, and a regular file if anything (a damaged one too). */
function requireFileOrAbsent(path: string): void {
  inspectFolder(path);
  if (existsSync(path) && !statSync(path).isFile())
    throw new StateFileError(`state file ${path}: is not a regular file`);
}

function requireDatabase(path: string): void {
  const kind = inspectStatePath(path);
  if (kind === "absent") throw new StateFileError(`state file ${path}: does not exist`);
  if (kind === "legacy-json")
    throw new StateFileError(
      `state file ${path}: is a JSON state file of an earlier version, not a database: copy it as it is, or start a server on it once to import it`,
    );
}

function examineOrRefuse(Driver: Driver, path: string, options: Parameters<typeof examine>[2]): Examined {
  try {
    return examine(Driver, path, options);
  } catch (error) {
    throw new StateFileError(`state file ${path}: ${describeSqliteError(error)}`);
  }
}

/**
 * One snapshot of `source` at `to`: without the serving mark, in WAL mode (as a server keeps it),
 * and checked by SQLite's integrity check.
 */
function copyChecked(Driver: Driver, source: Examined, to: string): Counts {
  try {
    snapshotInto(source.db, to);
    clearServingMark(Driver, to);
    const db = new Driver(to, { fileMustExist: true });
    try {
      db.pragma("journal_mode = WAL");
      checkIntegrity(db);
      return { schemaVersion: source.version, ...countRows(db, source.version) };
    } finally {
      db.close();
    }
  } catch (error) {
    if (error instanceof StateFileError) throw error;
    throw new StateFileError(`copy ${to}: ${describeSqliteError(error)}`);
  }
}

/** The copy's state loads as a server would load it (today's schema; an older one is upgraded at start). */
async function checkLoads(path: string): Promise<void> {
  const db = new (loadDriver())(path, { readonly: true, fileMustExist: true });
  const version = db.pragma("user_version", { simple: true }) as number;
  db.close();
  if (version !== SCHEMA_VERSION) return;
  const database = await StateDatabase.open(path, { upgrade: "in-place" });
  try {
    if (database.hasExchange()) database.load(Date.now);
  } finally {
    await database.close();
    rmSync(lockPathOf(path), { force: true });
  }
}

/** Orders and trades, over every symbol's tables (schema 3 on) or the shared ones (before). */
function countRows(db: Database, version: number): { orders: number; trades: number } {
  const count = (table: string) =>
    (db.prepare(`SELECT count(*) FROM "${table}"`).pluck().get() as number) ?? 0;
  if (version < 3) return { orders: count("orders"), trades: count("trades") };
  const positions = db.prepare("SELECT position FROM symbols").pluck().all() as number[];
  let orders = 0;
  let trades = 0;
  for (const position of positions) {
    orders += count(`orders_${position}`);
    trades += count(`trades_${position}`);
  }
  return { orders, trades };
}

/** The file and the folder entry that names it reach the disk. */
function durable(path: string): void {
  const fd = openSync(path, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

function syncFolder(path: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dirname(path), "r");
    fsyncSync(fd);
  } catch {
    // Not every platform opens a folder for fsync; the rename is then as durable as it gets.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Moves the file (its log first: a log left beside another database would be applied to it) aside. */
function moveAside(path: string): string {
  const aside = `${path}.replaced-${new Date().toISOString().replace(/[:.]/g, "-")}`;
  if (existsSync(`${path}-wal`)) renameSync(`${path}-wal`, `${aside}-wal`);
  rmSync(`${path}-shm`, { force: true });
  renameSync(path, aside);
  return aside;
}

function sameFile(a: string, b: string): boolean {
  const [x, y] = [statSync(a), statSync(b)];
  return x.ino === y.ino && x.dev === y.dev;
}

function report(from: string, to: string, counts: Counts, started: number): CopyReport {
  return { from, to, ...counts, bytes: statSync(to).size, ms: performance.now() - started };
}
