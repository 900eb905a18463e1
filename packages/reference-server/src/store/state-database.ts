/**
 * The state database behind `--state PATH`: SQLite (better-sqlite3) in WAL mode, served by one
 * process at a time. The engine keeps only live state in memory; this is its `History`: each
 * operation's changes become row writes, and the past (closed orders, trades, aggregate trades)
 * is read back with indexed queries, so memory does not grow with it. A retention period may
 * delete old history.
 *
 * Its parts, each in a module of its own:
 * - lock.ts: one process per file (a lock the operating system releases on kill -9);
 * - open.ts: opening the file: created whole when absent, checked, migrated;
 * - load.ts: loading the live state from one snapshot, checked against the engine's invariants;
 * - recent-client-ids.ts: the orders whose client order ids are not in their table yet;
 * - committer.ts: batches of writes, one commit per turn of the event loop (with the default sync
 *   mode the main thread commits and the writer thread runs the checkpoints; with "full" the
 *   writer thread commits and fsyncs), and what happens when a commit fails;
 * - history-reads.ts (on table-reads.ts): the reads of the past, overlaid with what is not
 *   committed yet (uncommitted.ts);
 * - backup.ts: online backups and restores, which read the file without its lock.
 */
import type { Worker } from "node:worker_threads";
import {
  type AccountTradesQuery,
  type AggTrade,
  type Candle,
  type ChangeSet,
  Exchange,
  type History,
  type Order,
  type PageQuery,
  type SymbolConfig,
  type Trade,
} from "../engine/index.js";
import { ourCommits } from "./commit-fence.js";
import { Committer, type CommitterOptions, StorageFailure, startWriter } from "./committer.js";
import type { Database } from "./driver.js";
import { HistoryReads } from "./history-reads.js";
import { loadState, refusingDamage } from "./load.js";
import { StateLock } from "./lock.js";
import { type OpenedFrom, StateFile } from "./open.js";
import { RecentClientIds } from "./recent-client-ids.js";
import type { WriteOp } from "./rows.js";
import { symbolTablesSql } from "./schema.js";
import { StateFileError } from "./state-file-error.js";
import { StoredCandles } from "./stored-candles.js";
import { type LoadStats, TableReads } from "./table-reads.js";
import { Uncommitted } from "./uncommitted.js";
import type { StateSync } from "./writer-protocol.js";

export type { LoadStats, StateSync };
export { StorageFailure };

export interface StateDatabaseOptions extends CommitterOptions {
  /**
   * The lock of the file, held by the caller already (openState holds it across a JSON import);
   * else `open` takes it. The database releases it once closed.
   */
  lock?: StateLock | undefined;
  /**
   * How an older schema is upgraded: by default the file as it is is kept beside it and the
   * upgrade is tried on a copy first (see open.ts); "in-place" for that copy.
   */
  upgrade?: "in-place" | undefined;
}

export class StateDatabase implements History {
  private exchange: Exchange | undefined;
  private readonly tables: TableReads;
  /** History changed but not committed yet: every history read goes through it. */
  private readonly uncommitted = new Uncommitted();
  private readonly recent = new RecentClientIds();
  private readonly reads: HistoryReads;
  private readonly storedCandles: StoredCandles;
  private readonly committer: Committer;
  private closed = false;

  private readonly db: Database;

  private constructor(
    readonly path: string,
    private readonly file: StateFile,
    worker: Worker,
    private readonly lock: StateLock,
    options: StateDatabaseOptions,
    ours: Int32Array,
  ) {
    const db = file.db;
    this.db = db;
    this.tables = new TableReads(db);
    this.reads = new HistoryReads(this.tables, this.uncommitted, this.recent);
    this.storedCandles = new StoredCandles(this.tables);
    this.committer = new Committer(
      path,
      db,
      worker,
      lock,
      {
        tables: this.tables,
        uncommitted: this.uncommitted,
        recent: this.recent,
        reads: this.reads,
        candles: this.storedCandles,
        reload: () => this.reloadLiveState(),
      },
      options,
      ours,
    );
  }

  /**
   * Takes the file's lock (unless given), opens the file (creating it when absent; examined, and
   * upgraded when its schema is older: see open.ts) and starts the writer thread. Nothing is
   * written to an existing file until `markServing`. Throws a StateFileError naming the fault.
   */
  static async open(path: string, options: StateDatabaseOptions = {}): Promise<StateDatabase> {
    const lock = options.lock ?? StateLock.acquire(path);
    const sync = options.sync ?? "normal";
    let file: StateFile;
    try {
      file = await StateFile.open(path, sync, options.upgrade ?? { trial: upgradeTrial });
    } catch (error) {
      lock.release();
      throw error;
    }
    const ours = ourCommits();
    const worker = await startWriter(path, lock.path, sync, ours).catch((error: Error) => {
      file.close();
      lock.release();
      throw new StateFileError(`state file ${path}: ${error.message}`);
    });
    return new StateDatabase(path, file, worker, lock, options, ours);
  }

  /** The schema version the file had when opened, and where its original is kept if it was upgraded. */
  get openedFrom(): OpenedFrom {
    return this.file.openedFrom;
  }

  /**
   * The state is accepted (loaded, or a new exchange declared): the file is marked as served by
   * this process, which proves that it takes writes. Until then a refused file is left as it was.
   */
  markServing(): void {
    this.file.markServing();
    this.committer.startFence();
  }

  /** Rows read since the last load began (tests show that loading does not grow with history). */
  get loadStats(): LoadStats {
    return this.tables.loadStats;
  }

  /** Whether the database holds a saved exchange. */
  hasExchange(): boolean {
    return this.tables.metaValue("created_at") !== undefined;
  }

  /** Declares the symbols of a new exchange (their order is kept) before it is created. */
  prepareNew(symbols: readonly SymbolConfig[], settings: Record<string, string>): void {
    symbols.forEach((config, i) => {
      this.tables.symbolPositions.set(config.symbol, i);
      this.committer.write(["symbol", config.symbol, i, JSON.stringify(config)]);
      // Now rather than with the first batch: reads (of a symbol without rows) may come first.
      this.db.exec(symbolTablesSql(i));
      this.committer.write(["counters", config.symbol, 1, 1, 1, 1, 1]);
    });
    for (const [key, value] of Object.entries({ ...settings, created_at: String(Date.now()) })) {
      this.committer.write(["meta", key, value]);
    }
  }

  /** A meta value of the saved state (undefined when absent). */
  metaValue(key: string): string | undefined {
    return this.tables.metaValue(key);
  }

  /**
   * Keeps a meta value with the changes: `value()` is written with every batch, in the same
   * commit, and once now (`committed()` resolves when it is).
   */
  keepMeta(key: string, value: () => string): void {
    this.committer.keepMeta(key, value);
  }

  /** Commits the kept meta values as they are now, whether or not anything else changed. */
  saveKeptMeta(): Promise<void> {
    this.committer.writeKeptMeta();
    return this.committer.committed();
  }

  /** Binds the exchange whose changes this database records (its live state is read on each batch). */
  attach(exchange: Exchange): void {
    this.exchange = exchange;
    this.committer.attach(exchange);
  }

  /**
   * Builds the saved exchange: live state only; refuses a state that breaks an invariant, or that
   * `check` refuses (given the file's meta values: the sandbox's saved state, say), leaving the
   * file as it was.
   */
  load(now: () => number, check?: (metaValue: (key: string) => string | undefined) => void): Exchange {
    let loaded: ReturnType<typeof loadState>;
    let candleWrites: WriteOp[];
    try {
      loaded = loadState(this.tables, this.recent, this, this.path);
      candleWrites = refusingDamage(this.path, () => this.storedCandles.load());
      check?.((key) => this.tables.metaValue(key));
    } catch (error) {
      this.file.refuse();
      throw error;
    }
    const { state, accounts } = loaded;
    for (const op of candleWrites) this.committer.write(op);
    this.committer.accountsStored(accounts);
    const exchange = new Exchange(state, now);
    this.attach(exchange);
    return exchange;
  }

  /** Throws the StorageFailure while the database cannot take writes (probing again now and then). */
  assertWritable(): void {
    this.committer.assertWritable();
  }

  get failed(): boolean {
    return this.committer.failed;
  }

  /** Resolves once everything recorded so far is committed; rejects with a StorageFailure. */
  committed(): Promise<void> {
    return this.committer.committed();
  }

  /** Commits what is pending, stops the writer, closes the database and releases its lock. */
  async close(): Promise<void> {
    if (await this.closeFile()) this.lock.release();
  }

  /**
   * As `close`, but hands the file's lock to the caller instead of releasing it: no other process
   * may open the file meanwhile (a server replacing its own file, see backup.ts's installCopy).
   */
  async closeKeepingLock(): Promise<StateLock> {
    if (!(await this.closeFile())) throw new Error(`state database ${this.path} is closed already`);
    return this.lock;
  }

  private async closeFile(): Promise<boolean> {
    if (this.closed) return false;
    this.closed = true;
    await this.committer.close();
    this.file.close({ afterAnother: this.committer.stoppedByAnother });
    return true;
  }

  record(changes: ChangeSet, now: number): void {
    // The candles the trades complete are written in the batch that carries the trades.
    if (changes.trades.length > 0) {
      for (const op of this.storedCandles.record(changes.trades, this.committer.nextBatch))
        this.committer.write(op);
    }
    this.committer.record(changes, now);
  }

  /** Number of history items changed but not committed yet (zero once all is committed). */
  uncommittedCount(): number {
    return this.uncommitted.size;
  }

  // ---- History: reads (committed rows, overlaid with what is not committed yet) ----

  order(symbol: string, orderId: number): Order | undefined {
    return this.reads.order(symbol, orderId);
  }

  latestByClientOrderId(accountId: string, symbol: string, clientOrderId: string): Order | undefined {
    return this.reads.latestByClientOrderId(accountId, symbol, clientOrderId);
  }

  orders(accountId: string, symbol: string, query: PageQuery, limit: number): Order[] {
    return this.reads.orders(accountId, symbol, query, limit);
  }

  trades(symbol: string, fromId: number | undefined, limit: number): Trade[] {
    return this.reads.trades(symbol, fromId, limit);
  }

  tradesBetween(symbol: string, from: number, to: number): Trade[] {
    return this.reads.tradesBetween(symbol, from, to);
  }

  lastTradeBefore(symbol: string, time: number): Trade | undefined {
    return this.reads.lastTradeBefore(symbol, time);
  }

  aggTrades(symbol: string, query: PageQuery, limit: number): AggTrade[] {
    return this.reads.aggTrades(symbol, query, limit);
  }

  accountTrades(accountId: string, symbol: string, query: AccountTradesQuery, limit: number): Trade[] {
    return this.reads.accountTrades(accountId, symbol, query, limit);
  }

  candles(symbol: string, level: number, from: number, to: number): Candle[] {
    return this.storedCandles.candles(symbol, level, from, to);
  }

  candleBefore(symbol: string, level: number, time: number): Candle | undefined {
    return this.storedCandles.candleBefore(symbol, level, time);
  }

  firstCandle(symbol: string, level: number): Candle | undefined {
    return this.storedCandles.firstCandle(symbol, level);
  }

  /** Forgets the changes that were not committed: the live state becomes the committed one. */
  private reloadLiveState(): void {
    if (!this.exchange) return;
    try {
      const { state, accounts } = loadState(this.tables, this.recent, this, this.path);
      for (const op of this.storedCandles.load()) this.committer.write(op);
      this.committer.accountsStored(accounts);
      this.exchange.replaceState(state);
    } catch {
      // The database cannot even be read: keep serving reads from memory; writes stay refused.
    }
  }
}

/**
 * The trial of an upgrade: the copy is migrated in place and its state loaded (and checked) as a
 * server would; it throws the StateFileError that start-up would.
 */
async function upgradeTrial(copy: string): Promise<void> {
  const database = await StateDatabase.open(copy, { upgrade: "in-place" });
  try {
    if (database.hasExchange()) database.load(Date.now);
  } finally {
    await database.close();
  }
}
