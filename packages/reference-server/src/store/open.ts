/**
 * Opening the state file (its lock held, see lock.ts): a new file is created whole; an existing
 * one is checked (SQLite's integrity check, marketapi's identity, the schema version) and
 * migrated to the current schema; the file, its folder and the disk are proved to take writes.
 */
import { existsSync, linkSync, renameSync, rmSync } from "node:fs";
import { type Database, type Driver, loadDriver, usePageCache } from "./driver.js";
import { describeSqliteError } from "./files.js";
import { migrate } from "./schema.js";
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

/**
 * The main thread's connection to the state file at `path`, created when absent, checked and
 * migrated; throws a StateFileError naming the fault.
 */
export function openStateFile(path: string, sync: StateSync): Database {
  const Driver = loadDriver();
  let db: Database | undefined;
  try {
    if (!existsSync(path)) createWhole(Driver, path);
    db = new Driver(path, { timeout: 10_000, fileMustExist: true });
    db.pragma("journal_mode = WAL");
    usePageCache(db);
    if (sync === "normal") {
      // This connection commits (see committer.ts): in WAL mode NORMAL leaves the fsync to
      // checkpoints, which the writer thread runs, so neither a commit nor a checkpoint waits for
      // the disk here.
      db.pragma("synchronous = NORMAL");
      db.pragma("wal_autocheckpoint = 0");
      db.pragma("busy_timeout = 0");
    }
    checkIntegrity(db);
    migrate(db);
    // Proves at start that the file, its folder (for the -wal file) and the disk take writes.
    db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('opened_at', ?)").run(String(Date.now()));
    return db;
  } catch (error) {
    db?.close();
    throw new StateFileError(`state file ${path}: ${describeSqliteError(error)}`);
  }
}

/**
 * Creates the database aside and links it into place once it holds its schema, so a file at the
 * path is never one this server left empty (an empty state file is damaged, not new).
 */
function createWhole(Driver: Driver, path: string): void {
  const aside = `${path}.creating-${process.pid}`;
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
function checkIntegrity(db: Database): void {
  const rows = db.pragma("quick_check(5)") as { quick_check: string }[];
  const problems = rows.map((r) => r.quick_check).filter((text) => text !== "ok");
  if (problems.length > 0)
    throw Object.assign(new Error(`is damaged: SQLite's integrity check found: ${problems.join("; ")}`), {
      code: "DAMAGED",
    });
}
