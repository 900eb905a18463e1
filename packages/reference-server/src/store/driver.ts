/**
 * Loads better-sqlite3, the embedded database behind `--state`, only when a state database is
 * used: the in-memory server never needs it. It is an optional peer dependency (a native addon
 * that npm may compile at install time), so only `--state` users install it, as database
 * libraries do with their drivers; a missing or unbuilt copy is reported with the command that
 * fixes it.
 */
import { createRequire } from "node:module";
import type BetterSqlite3 from "better-sqlite3";

export type Driver = typeof BetterSqlite3;
export type Database = BetterSqlite3.Database;
export type Statement = BetterSqlite3.Statement;

import { StateFileError } from "./state-file-error.js";

const PACKAGE = "better-sqlite3";

/**
 * Pages a state database connection caches (512 KB of a new database's 1 KiB pages). At the end of
 * each write transaction SQLite truncates its page cache, walking the cache's hash table, whose
 * size follows the cache's (pcache1TruncateUnsafe: 5 % of the server's CPU under bench:ceiling
 * --state with the default 2 MB cache, 0.3 % with this one), so a small cache makes each commit
 * cheaper; the pages a commit or a history read touches are few, and the others are in the
 * operating system's file cache.
 */
const CACHE_PAGES = 512;

/**
 * A state file's schema is checked to be exactly this server's before anything is written to it
 * (schema-check.ts). Should something slip by, SQLite keeps the functions and virtual tables that
 * may have side effects out of the file's triggers, views and index expressions.
 */
export function distrustSchema(db: Database): void {
  db.pragma("trusted_schema = OFF");
}

/** Sets a connection's page cache to CACHE_PAGES (see there why it is small). */
export function usePageCache(db: Database): void {
  db.pragma(`cache_size = ${CACHE_PAGES}`);
}

/**
 * The whole path where npm does not run better-sqlite3's install script, which builds its native
 * module: npm 11 runs a dependency's install script as package.json's `allowScripts` allows (in
 * npm 11.19 a package it does not name runs with a notice, one named `false` never runs, and none
 * runs with `strict-allow-scripts` or `ignore-scripts`). Checked in a new project with npm 11.19.1
 * (see the README's "Installing where --state is used").
 */
const BUILD = `npm install-scripts approve ${PACKAGE} && npm rebuild ${PACKAGE}`;
const SCRIPT_SKIPPED = `, and if npm skips its install script (which builds its native module), build it with: ${BUILD}`;
const BUILD_BLOCKED = ` (remove a "${PACKAGE}": false entry from allowScripts first; with ignore-scripts set, add --ignore-scripts=false to the rebuild)`;

let loaded: Driver | undefined;

/**
 * better-sqlite3, checked to work (its native module is loaded right away). `from` is where it is
 * resolved from (tests point it at installs with faults).
 */
export function loadDriver(from: string = import.meta.url): Driver {
  if (loaded && from === import.meta.url) return loaded;
  const require = createRequire(from);
  let driver: Driver;
  try {
    driver = require(PACKAGE) as Driver;
    new driver(":memory:").close();
  } catch (error) {
    throw new StateFileError(explainLoadFailure(error as NodeJS.ErrnoException));
  }
  if (from === import.meta.url) loaded = driver;
  return driver;
}

/** One line that says why better-sqlite3 does not load and what command fixes it. */
export function explainLoadFailure(error: NodeJS.ErrnoException): string {
  const message = String(error?.message ?? error);
  const prefix = `--state needs ${PACKAGE}`;
  if (error?.code === "MODULE_NOT_FOUND" && message.includes(`'${PACKAGE}'`)) {
    return `${prefix} (an optional peer dependency, installed only for --state), which is not installed; install it with: npm i ${PACKAGE}@12${SCRIPT_SKIPPED}`;
  }
  if (/bindings file|better_sqlite3\.node/.test(message) && !/NODE_MODULE_VERSION/.test(message)) {
    return `${prefix}, whose native module was not built (npm blocked or skipped its install script); build it with: ${BUILD}${BUILD_BLOCKED}`;
  }
  if (/NODE_MODULE_VERSION|was compiled against a different Node\.js version/.test(message)) {
    return `${prefix}, whose native module was built for another Node.js version (${process.version} runs now); rebuild it with: npm rebuild ${PACKAGE}`;
  }
  return `${prefix}, which failed to load (${firstLine(message)}); reinstall it with: npm rebuild ${PACKAGE}`;
}

function firstLine(text: string): string {
  return text.split("\n")[0]?.trim() ?? text;
}
