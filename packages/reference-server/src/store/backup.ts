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
 * A restore takes the file's lock and claims the file it replaces (no server, of any release or
 * under any name, may have it open meanwhile: see lock.ts), copies the backup the same way, moves
 * the file it replaces aside with its write-ahead log (a log left beside another database would
 * be applied to it), and puts the copy in place.
 *
 * Both work on the state file's resolved path (links resolved: see files.ts), and both refuse a
 * file whose schema is not exactly this server's before copying anything (VACUUM INTO would copy
 * a trigger into the copy): open.ts examine.
 */
import { closeSync, existsSync, fsyncSync, linkSync, openSync, renameSync, rmSync, statSync } from "node:fs";
import { dirname } from "node:path";
import type { Candle, History } from "../engine/index.js";
import type { Logger } from "../logger.js";
import { type Database, type Driver, distrustSchema, loadDriver } from "./driver.js";
import {
  checkNames,
  describeSqliteError,
  inspectFolder,
  inspectStatePath,
  resolveStatePath,
} from "./files.js";
import { HistoryReads } from "./history-reads.js";
import { backupAside, removeLeftovers, removeStalePartials } from "./leftovers.js";
import { loadState, refusingDamage } from "./load.js";
import { claimFile, type FileClaim, FileInUse, StateLock } from "./lock.js";
import {
  checkIntegrity,
  clearServingMark,
  type Examined,
  examine,
  hasLog,
  removeDatabase,
  snapshotInto,
} from "./open.js";
import { RecentClientIds } from "./recent-client-ids.js";
import { SCHEMA_VERSION, SYMBOL_TABLES_SINCE } from "./schema.js";
import { namedAsGiven, StateFileError } from "./state-file-error.js";
import { StoredCandles } from "./stored-candles.js";
import { TableReads } from "./table-reads.js";
import { Uncommitted } from "./uncommitted.js";

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

/** Where a command says what it did besides its result (leftovers removed). */
export interface CommandOptions {
  logger?: Pick<Logger, "warn">;
}

const SILENT = { warn: () => undefined };

/** Copies the state file at `given` to `outPath` (which must not exist), while a server may serve it. */
export async function backupStateFile(
  given: string,
  outPath: string,
  options: CommandOptions = {},
): Promise<CopyReport> {
  let statePath = given;
  try {
    statePath = resolveStatePath(given);
    return await backupResolved(statePath, outPath, options.logger ?? SILENT);
  } catch (error) {
    throw namedAsGiven(error, given, statePath);
  }
}

async function backupResolved(statePath: string, outPath: string, logger: Pick<Logger, "warn">) {
  const started = performance.now();
  inspectFolder(outPath);
  if (existsSync(outPath))
    throw new StateFileError(
      `backup ${outPath}: exists already; a backup never overwrites a file: choose another name or remove it`,
    );
  requireDatabase(statePath);
  checkNames(statePath);
  removeStalePartials(outPath, logger);
  const Driver = loadDriver();
  // No lock, and no tidying: a server may open the file at any moment. A file no server serves
  // (no log) is read on a connection that may write (it never does), so that, closing as the file's
  // last connection, it leaves nothing beside it; a served file's log is never empty.
  const source = examineOrRefuse(Driver, statePath, {
    integrity: false,
    tidy: false,
    missingLog: "refuse",
    readWrite: !hasLog(statePath),
  });
  const partial = backupAside(outPath);
  try {
    removeDatabase(partial);
    const counts = copyChecked(Driver, source, partial);
    checkLoads(Driver, partial);
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
  from: string,
  given: string,
  options: { acceptMissingWal?: boolean } & CommandOptions = {},
): Promise<CopyReport> {
  let statePath = given;
  let fromPath = from;
  try {
    statePath = resolveStatePath(given);
    fromPath = resolveStatePath(from);
    return await restoreResolved(fromPath, statePath, options);
  } catch (error) {
    throw namedAsGiven(namedAsGiven(error, from, fromPath), given, statePath);
  }
}

async function restoreResolved(
  fromPath: string,
  statePath: string,
  options: { acceptMissingWal?: boolean } & CommandOptions,
): Promise<CopyReport> {
  const started = performance.now();
  requireFileOrAbsent(statePath);
  requireDatabase(fromPath);
  checkNames(statePath);
  const lock = StateLock.acquire(statePath);
  const Driver = loadDriver();
  const restoring = `${statePath}.restoring-${process.pid}`;
  let claim: FileClaim | undefined;
  try {
    removeLeftovers(statePath, options.logger ?? SILENT);
    claim = claimReplaced(Driver, statePath);
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
    checkLoads(Driver, restoring);
    durable(restoring);
    const replaced = existsSync(statePath) ? moveAside(statePath) : undefined;
    renameSync(restoring, statePath);
    syncFolder(statePath);
    return { ...report(fromPath, statePath, counts, started), ...(replaced ? { replaced } : {}) };
  } finally {
    removeDatabase(restoring);
    // A read-only connection: closing it touches neither the replaced file nor the new one.
    claim?.release();
    lock.release();
  }
}

/**
 * Claims the file a restore replaces: refused while any process has it open (a server of any
 * release, under any name). A file that is not a database (damaged, or of the JSON format) is
 * replaced without a claim: no SQLite program can have opened it.
 */
function claimReplaced(Driver: Driver, statePath: string): FileClaim | undefined {
  if (!existsSync(statePath) || inspectStatePath(statePath) !== "sqlite") return undefined;
  try {
    return claimFile(Driver, statePath);
  } catch (error) {
    if (error instanceof FileInUse) throw error;
    return undefined;
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
    checkLoads(Driver, copy);
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
      distrustSchema(db);
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

/**
 * The copy's state loads as a server would load it (today's schema; an older one is upgraded at
 * start): its live state read and checked on a connection of its own, with no lock and no writer
 * thread (the copy is this process's alone, and nothing is written to it).
 */
function checkLoads(Driver: Driver, path: string): void {
  const db = new Driver(path, { fileMustExist: true });
  try {
    distrustSchema(db);
    if (db.pragma("user_version", { simple: true }) !== SCHEMA_VERSION) return;
    const tables = new TableReads(db);
    if (tables.metaValue("created_at") === undefined) return;
    const recent = new RecentClientIds();
    loadState(tables, recent, new CopyHistory(tables, new Uncommitted(), recent), path);
    // The latest candles rebuilt as at start-up: their rows checked as they are read.
    refusingDamage(path, () => new StoredCandles(tables).load());
  } finally {
    db.close();
  }
}

/** The history of a copy whose state is only checked: it reads, and takes no changes. */
class CopyHistory extends HistoryReads implements History {
  record(): never {
    throw new Error("a copy being checked takes no changes");
  }

  // The load reads no candle (they are checked by rebuilding the latest ones: see checkLoads).
  candles(): Candle[] {
    return [];
  }

  candleBefore(): Candle | undefined {
    return undefined;
  }

  firstCandle(): Candle | undefined {
    return undefined;
  }
}

/** Orders and trades, over every symbol's tables (schema 3 on) or the shared ones (before). */
function countRows(db: Database, version: number): { orders: number; trades: number } {
  const count = (table: string) =>
    (db.prepare(`SELECT count(*) FROM "${table}"`).pluck().get() as number) ?? 0;
  if (version < SYMBOL_TABLES_SINCE) return { orders: count("orders"), trades: count("trades") };
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
