/**
 * `--state PATH`: the exchange lives in an SQLite state database at PATH (see store/). This module
 * opens it at start-up, creating a new exchange in it or loading the saved one, and imports a state
 * file of the earlier JSON format once (keeping the JSON beside it as PATH.json-backup).
 */
import { copyFileSync, readFileSync, renameSync, rmSync } from "node:fs";
import {
  type Exchange,
  Exchange as ExchangeClass,
  type History,
  importLegacySnapshot,
  initialState,
  LEGACY_SNAPSHOT_FORMAT,
  type LegacySnapshot,
  legacySettings,
  type SymbolConfig,
  stateFaults,
} from "./engine/index.js";
import type { Logger } from "./logger.js";
import { checkNames, inspectStatePath, resolveStatePath } from "./store/files.js";
import { removeLeftovers } from "./store/leftovers.js";
import { lockPathOf, StateLock } from "./store/lock.js";
import { removeDatabase } from "./store/open.js";
import { SCHEMA_VERSION } from "./store/schema.js";
import { StateDatabase, type StateSync } from "./store/state-database.js";
import { namedAsGiven, StateFileError } from "./store/state-file-error.js";

export { StateFileError };

/** The format of the JSON state files of earlier versions, imported once into the database. */
export const STATE_FORMAT = "marketapi-server-state/1";

export interface NewExchangeSettings {
  symbols: readonly SymbolConfig[];
  maxOpenOrdersPerAccount: number;
  /** Creates the exchange of a new state file, recording into `history`. */
  create(history: History): Exchange;
}

export interface OpenStateOptions {
  now: () => number;
  logger: Logger;
  retentionMs?: number | undefined;
  sync?: StateSync | undefined;
  onFailure?: (reason: string) => void;
  fresh: NewExchangeSettings;
  /**
   * Checks of a saved exchange beyond the store's own, given its meta values (the sandbox's saved
   * state): a throw refuses the file before anything is written to it.
   */
  checkSaved?: ((metaValue: (key: string) => string | undefined) => void) | undefined;
}

export interface OpenedState {
  exchange: Exchange;
  database: StateDatabase;
  /** The database already held an exchange, now loaded (false: a new one was created in it). */
  restored: boolean;
}

/**
 * Opens or creates the state at `given` (its links resolved: see store/files.ts); throws a
 * StateFileError (exit code 2) naming the fault.
 */
export async function openState(given: string, options: OpenStateOptions): Promise<OpenedState> {
  let path = given;
  try {
    path = resolveStatePath(given);
    return await openResolved(path, options);
  } catch (error) {
    throw namedAsGiven(error, given, path);
  }
}

async function openResolved(path: string, options: OpenStateOptions): Promise<OpenedState> {
  // The path's checks read only; they come first so that no lock file is made beside a path that
  // cannot be a state file (a folder, /dev/full), and nothing is opened through a link.
  const kind = inspectStatePath(path);
  checkNames(path);
  // Then the lock: whatever follows, even a JSON import, is done by the one process that holds it.
  const lock = StateLock.acquire(path);
  let database: StateDatabase;
  try {
    removeLeftovers(path, options.logger);
    if (kind === "legacy-json") await importLegacyFile(path, options);
    database = await StateDatabase.open(path, {
      retentionMs: options.retentionMs,
      sync: options.sync,
      onFailure: options.onFailure,
      lock,
    });
  } catch (error) {
    lock.release();
    throw error;
  }
  try {
    let exchange: Exchange;
    const restored = database.hasExchange();
    if (restored) {
      exchange = database.load(options.now, options.checkSaved);
    } else {
      database.prepareNew(options.fresh.symbols, {
        max_open_orders: String(options.fresh.maxOpenOrdersPerAccount),
      });
      exchange = options.fresh.create(database);
      database.attach(exchange);
    }
    database.markServing();
    const { version, original, staleMark } = database.openedFrom;
    if (staleMark)
      options.logger.warn(
        `The state file ${path} was left open by a server of this release (${staleMark}), so its write-ahead log is not missing.`,
      );
    if (original)
      options.logger.info(
        `Upgraded the state file ${path} from schema version ${version} to ${SCHEMA_VERSION}; the file as it was is kept as ${original} (the way back to the release before).`,
      );
    await database.committed();
    return { exchange, database, restored };
  } catch (error) {
    await database.close().catch(() => undefined);
    if (error instanceof StateFileError) throw error;
    throw new StateFileError(`state file ${path}: ${(error as Error).message}`);
  }
}

interface LegacyFile {
  format: string;
  exchange: LegacySnapshot;
}

/** Converts a JSON state file into a state database at the same path (the JSON is kept as a backup). */
async function importLegacyFile(path: string, options: OpenStateOptions): Promise<void> {
  const snapshot = readLegacyFile(path);
  const temporary = `${path}.import-${process.pid}`;
  removeDatabase(temporary);
  const database = await StateDatabase.open(temporary);
  try {
    const settings = legacySettings(snapshot);
    database.prepareNew(settings.symbols, {
      max_open_orders: String(settings.maxOpenOrdersPerAccount),
      commission_maker: settings.commission.maker,
      commission_taker: settings.commission.taker,
    });
    const state = initialState({ ...settings, history: database }, settings.symbols);
    const exchange = new ExchangeClass(state, options.now);
    database.attach(exchange);
    const changes = importLegacySnapshot(exchange, snapshot);
    const faults = stateFaults(state);
    if (faults.length > 0)
      throw new Error(`is inconsistent and was not imported:\n${faults.map((f) => `  ${f}`).join("\n")}`);
    database.record(changes, options.now());
    await database.committed();
  } catch (error) {
    await database.close().catch(() => undefined);
    removeDatabase(temporary);
    const message =
      error instanceof StateFileError ? error.message : `state file ${path}: ${(error as Error).message}`;
    throw new StateFileError(message);
  }
  await database.close();
  rmSync(lockPathOf(temporary), { force: true });
  copyFileSync(path, `${path}.json-backup`);
  renameSync(temporary, path);
  options.logger.info(
    `Imported the JSON state file ${path} into a state database (the JSON is kept as ${path}.json-backup).`,
  );
}

function readLegacyFile(path: string): LegacySnapshot {
  let file: LegacyFile;
  try {
    file = JSON.parse(readFileSync(path, "utf8")) as LegacyFile;
  } catch (error) {
    throw new StateFileError(`state file ${path}: not JSON (${(error as Error).message})`);
  }
  if (file?.format !== STATE_FORMAT || file.exchange?.format !== LEGACY_SNAPSHOT_FORMAT) {
    throw new StateFileError(
      `state file ${path}: unknown format ${JSON.stringify(file?.format)}; expected "${STATE_FORMAT}" (or a state database)`,
    );
  }
  return file.exchange;
}
