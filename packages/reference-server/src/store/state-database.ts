/**
 * The state database behind `--state PATH`: SQLite (better-sqlite3) in WAL mode.
 *
 * - The engine keeps only live state in memory; each operation's changes become row writes.
 * - Writes of all requests served in one turn of the event loop form one batch; the writer thread
 *   commits it (fsync) while the main thread goes on serving, and `committed()` resolves once the
 *   batch that holds everything recorded so far is on disk. An order is answered only then.
 * - History (closed orders, trades, aggregate trades) is read back from the database with indexed
 *   queries, so memory does not grow with it. A retention period may delete old history.
 * - When a commit fails, every write not yet committed is refused, the live state is reloaded
 *   from the database, and new orders are refused until a later probe commits again.
 */
import { existsSync, linkSync, renameSync, rmSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { generatedOrderId, namesItsOrder } from "../engine/client-order-ids.js";
import { namedOrder } from "../engine/history.js";
import {
  Account as AccountClass,
  type AccountTradesQuery,
  type AggTrade,
  type ChangeSet,
  decimal as dec,
  Exchange,
  type ExchangeState,
  type History,
  initialState,
  type Order,
  type PageQuery,
  registerOpenOrder,
  restoreBooks,
  type SymbolConfig,
  stateFaults,
  type Trade,
  type TradeBucket,
  type TradeReader,
  type TradeVolume,
} from "../engine/index.js";
import { Journal } from "../engine/journal.js";
import { firstAtLeast } from "../engine/paging.js";
import { type Database, loadDriver, type Statement, usePageCache } from "./driver.js";
import { describeSqliteError, watchedFileIdentity } from "./files.js";
import { StateLock } from "./lock.js";
import { HISTORY_READS, OTHER_READS } from "./reads.js";
import {
  type AggTradeRow,
  aggTradeFromRow,
  type BucketRow,
  bucketFromRow,
  changeWrites,
  ID_SPAN,
  type OrderRow,
  orderFromRow,
  rowKey,
  type TradeRow,
  tradeFromRow,
  type WriteOp,
} from "./rows.js";
import { migrate, onSymbolTables, statementsOn, symbolTablesSql } from "./schema.js";
import { StateFileError } from "./state-file-error.js";
import { mergePage, Uncommitted } from "./uncommitted.js";
import { writeRunner } from "./write-runner.js";
import {
  postBatch,
  type StateSync,
  type WriterData,
  type WriterReply,
  type WriterRequest,
} from "./writer-protocol.js";

export type { StateSync };

const MINUTE_MS = 60_000;
const DAY_MS = 24 * 60 * MINUTE_MS;
const AVG_WINDOW_MS = 5 * MINUTE_MS;
const PRUNE_EVERY_MS = MINUTE_MS;
const PRUNE_CHUNK = 5000;
const PROBE_EVERY_MS = 5000;
/**
 * New databases' page size. Each commit writes every page it changes whole, to the WAL and again at
 * the checkpoint, and SQLite writes each page of the WAL with two system calls (frame header, then
 * page), so the page size trades bytes for calls. With each symbol's rows appended at the end of
 * tables of their own, bench:ceiling --state wrote 12.9 pages per commit of 1 KiB (2.6–2.8 KB per
 * order) where 512-byte pages took 16.1 (1.8–1.9 KB), and took 3–7 µs less CPU per order;
 * 4 KiB pages took more CPU again. --state-sync full writes 3.9 KB per order (3.0 KB).
 */
const PAGE_SIZE = 1024;
/** Commits between two checkpoints asked of the writer thread (sync "normal"). */
const CHECKPOINT_EVERY_COMMITS = 1000;
/** Orders of a symbol whose client order ids are added to client_order_ids together. */
const CLIENT_IDS_CHUNK = 16_384;
/** How soon a commit that found the database locked by another connection is tried again. */
const BUSY_RETRY_MS = 2;
const MIN_TIME = Number.MIN_SAFE_INTEGER;
const MAX_TIME = Number.MAX_SAFE_INTEGER;
const MIN_ID = Number.MIN_SAFE_INTEGER;
const MAX_ID = Number.MAX_SAFE_INTEGER;

export interface StateDatabaseOptions {
  /** Trades and closed orders older than this are deleted (default: kept forever). */
  retentionMs?: number | undefined;
  /** "normal" (default): commits survive a crash of the server; "full": also of the machine. */
  sync?: StateSync | undefined;
  /** Told when a commit fails, with the reason. */
  onFailure?: (reason: string) => void;
  /**
   * The lock of the file, held by the caller already (openState holds it across a JSON import);
   * else `open` takes it. The database releases it once closed.
   */
  lock?: StateLock | undefined;
}

/** Rows read since the last load began, to show that loading does not depend on the size of the history. */
export interface LoadStats {
  rows: number;
}

interface Deferred {
  promise: Promise<void>;
  resolve(): void;
  reject(error: Error): void;
}

function deferred(): Deferred {
  let resolve!: () => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  promise.catch(() => undefined);
  return { promise, resolve, reject };
}

interface VolumeRow {
  id: number;
  time: number;
  qty: string;
  quote_qty: string;
}

/** The error answered to writes while the database cannot be written. */
export class StorageFailure extends Error {
  constructor(readonly reason: string) {
    super(`the state database cannot be written (${reason})`);
    this.name = "StorageFailure";
  }
}

export class StateDatabase implements History {
  readonly loadStats: LoadStats = { rows: 0 };
  private exchange: Exchange | undefined;
  /** The read statements, prepared when first used (per symbol for those on a symbol's tables). */
  private readonly statementOf: (sql: string, position: number) => Statement;
  /** Writes that do not come from a change set (settings, pruning). */
  private pending: WriteOp[] = [];
  /** Changes recorded since the last batch was sent; written with their values at send time. */
  private queued = new Journal();
  /** History changed but not committed yet: every history read goes through it. */
  private readonly uncommitted = new Uncommitted();
  /** Number of the last batch of changes sent to the writer. */
  private batches = 0;
  private pendingBatch: Deferred = deferred();
  private inFlight:
    | {
        seq: number;
        batch: Deferred;
        number: number;
        changes: ChangeSet | undefined;
        /** [symbol, below]: the chunks of client order ids this batch adds to client_order_ids. */
        indexed: [string, number][];
        /** Sync "normal": [symbol, from, below], the chunk the writer thread adds once it is committed. */
        toIndex: [string, number, number][];
      }
    | undefined;
  private sendScheduled = false;
  private seq = 0;
  private failure: StorageFailure | undefined;
  private lastPrune = 0;
  private lastProbe = 0;
  private accountCount = 0;
  /** Per symbol: the orders from this id on are not in client_order_ids yet. */
  private clientIdsBelow = new Map<string, number>();
  /** Per symbol: the newest order id by account and client order id, of those orders. */
  private recentClientIds = new Map<string, Map<string, number>>();
  /** Per symbol and account: the ids of those orders (not in account_orders yet), ascending. */
  private recentAccountOrders = new Map<string, Map<string, number[]>>();
  private symbolPositions = new Map<string, number>();
  private closed = false;
  private exited = false;

  /** With sync "normal": the write statements on the main thread's connection (commits inline). */
  private readonly applyInline: { immediate(ops: WriteOp[]): void } | undefined;
  /** Sync "normal": tells whether the file is still the one open (checked before each commit). */
  private identity: { check(): void; close(): void } | undefined;
  private commitsSinceCheckpoint = 0;
  private checkpointing: number | undefined;
  /** Sync "normal": the chunk of client order ids the writer thread is adding to client_order_ids. */
  private indexing: { seq: number; symbol: string; below: number } | undefined;

  private constructor(
    readonly path: string,
    private readonly reader: Database,
    private readonly worker: Worker,
    private readonly lock: StateLock,
    private readonly options: StateDatabaseOptions,
  ) {
    this.statementOf = statementsOn(reader);
    if ((options.sync ?? "normal") === "normal") {
      const run = writeRunner(reader);
      this.identity = watchedFileIdentity(path);
      const identity = this.identity;
      this.applyInline = reader.transaction((ops: WriteOp[]) => {
        identity.check();
        lock.check();
        run(ops);
      });
    }
    worker.on("message", (reply: WriterReply) => this.onReply(reply));
    worker.on("error", (error) => this.fail(`writer thread failed: ${error.message}`));
    worker.on("exit", (code) => {
      this.exited = true;
      if (!this.closed) this.fail(`writer thread exited with code ${code}`);
    });
  }

  /**
   * Opens (creating when absent) and migrates the database, proves it writable, and starts the
   * writer thread. Throws a StateFileError naming the fault.
   */
  static async open(path: string, options: StateDatabaseOptions = {}): Promise<StateDatabase> {
    const Driver = loadDriver();
    const lock = options.lock ?? StateLock.acquire(path);
    let reader: Database | undefined;
    try {
      if (!existsSync(path)) createWhole(Driver, path);
      reader = new Driver(path, { timeout: 10_000, fileMustExist: true });
      reader.pragma("journal_mode = WAL");
      usePageCache(reader);
      if ((options.sync ?? "normal") === "normal") {
        // This connection commits (see send): in WAL mode NORMAL leaves the fsync to checkpoints,
        // which the writer thread runs, so neither a commit nor a checkpoint waits for the disk here.
        reader.pragma("synchronous = NORMAL");
        reader.pragma("wal_autocheckpoint = 0");
        reader.pragma("busy_timeout = 0");
      }
      checkIntegrity(reader);
      migrate(reader);
      // Proves at start that the file, its folder (for the -wal file) and the disk take writes.
      reader
        .prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('opened_at', ?)")
        .run(String(Date.now()));
    } catch (error) {
      reader?.close();
      lock.release();
      throw new StateFileError(`state file ${path}: ${describeSqliteError(error)}`);
    }
    const worker = await startWriter(path, lock.path, options.sync ?? "normal").catch((error: Error) => {
      reader?.close();
      lock.release();
      throw new StateFileError(`state file ${path}: ${error.message}`);
    });
    return new StateDatabase(path, reader, worker, lock, options);
  }

  /** Whether the database holds a saved exchange. */
  hasExchange(): boolean {
    return this.metaValue("created_at") !== undefined;
  }

  /** Declares the symbols of a new exchange (their order is kept) before it is created. */
  prepareNew(symbols: readonly SymbolConfig[], settings: Record<string, string>): void {
    symbols.forEach((config, i) => {
      this.symbolPositions.set(config.symbol, i);
      this.pending.push(["symbol", config.symbol, i, JSON.stringify(config)]);
      // Now rather than with the first batch: reads (of a symbol without rows) may come first.
      this.reader.exec(symbolTablesSql(i));
      this.pending.push(["counters", config.symbol, 1, 1, 1, 1, 1]);
    });
    for (const [key, value] of Object.entries({ ...settings, created_at: String(Date.now()) })) {
      this.pending.push(["meta", key, value]);
    }
  }

  /** Binds the exchange whose changes this database records (its live state is read on each batch). */
  attach(exchange: Exchange): void {
    this.exchange = exchange;
  }

  /** Builds the saved exchange: live state only; refuses a state that breaks an invariant. */
  load(now: () => number): Exchange {
    const state = this.loadState();
    const exchange = new Exchange(state, now);
    this.attach(exchange);
    return exchange;
  }

  /** Throws the StorageFailure while the database cannot take writes (probing again now and then). */
  assertWritable(): void {
    if (!this.failure) return;
    this.probe();
    throw this.failure;
  }

  get failed(): boolean {
    return this.failure !== undefined;
  }

  /** Resolves once everything recorded so far is committed; rejects with a StorageFailure. */
  committed(): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    if (this.hasQueued()) {
      this.scheduleSend();
      return this.pendingBatch.promise;
    }
    return this.inFlight?.batch.promise ?? Promise.resolve();
  }

  /** Commits what is pending, stops the writer and closes the database. */
  async close(): Promise<void> {
    if (this.closed) return;
    await this.committed().catch(() => undefined);
    this.closed = true;
    const seq = ++this.seq;
    if (!this.exited)
      await new Promise<void>((resolve) => {
        const done = () => resolve();
        this.worker.once("exit", done);
        this.worker.on("message", (reply: WriterReply) => {
          if (reply.seq === seq) this.worker.terminate().then(done, done);
        });
        this.worker.postMessage({ seq, close: true } satisfies WriterRequest);
      });
    this.identity?.close();
    this.reader.close();
    this.lock.release();
  }

  // ---- History: writes ----

  record(changes: ChangeSet, now: number): void {
    if (this.closed) return;
    this.queued.add(changes);
    this.uncommitted.add(changes, this.batches + 1);
    for (const order of changes.orders) {
      this.noteClientId(order.accountId, order.symbol, order.clientOrderId, order.orderId);
      this.noteAccountOrder(order.accountId, order.symbol, order.orderId);
    }
    this.pruneNowAndThen(now);
    this.scheduleSend();
  }

  // ---- History: reads (committed rows, overlaid with what is not committed yet) ----

  order(symbol: string, orderId: number): Order | undefined {
    return (
      this.uncommitted.orders.get(symbol, orderId) ??
      this.row("order", [this.key(symbol, orderId)], orderFromRow, symbol)
    );
  }

  /**
   * The newest of: the uncommitted orders with the client order id; the order the recent ones (not
   * in client_order_ids yet) name; the order a generated id decodes to, if it has that id; else the
   * newest in client_order_ids whose order is still stored (retention deletes orders, not their
   * client order ids: such an id is stepped over).
   */
  latestByClientOrderId(accountId: string, symbol: string, clientOrderId: string): Order | undefined {
    let best = this.uncommitted.latestByClientOrderId(accountId, symbol, clientOrderId);
    const consider = (order: Order | undefined) => {
      if (order && (!best || order.orderId > best.orderId)) best = order;
    };
    const recent = this.recentClientIds.get(symbol)?.get(clientKey(accountId, clientOrderId));
    if (recent !== undefined && (!best || recent > best.orderId)) consider(this.order(symbol, recent));
    const named = generatedOrderId(clientOrderId);
    if (named !== undefined && (!best || named > best.orderId))
      consider(namedOrder(this.order(symbol, named), accountId, clientOrderId));
    const below = this.clientIdsBelow.get(symbol) ?? 0;
    if (best && best.orderId >= below) return best;
    let bound = below;
    for (;;) {
      const id = this.row<{ id: number }, number>(
        "orderIdByClientId",
        [accountId, symbol, clientOrderId, bound],
        (r) => r.id,
      );
      if (id === undefined) break;
      const order = this.order(symbol, id);
      if (order) {
        consider(order);
        break;
      }
      bound = id;
    }
    return best;
  }

  /**
   * The account's orders below the symbol's client_ids_below are found in account_orders; those
   * from it on (at most a chunk and a batch) by their ids, kept in memory, each one search.
   */
  orders(accountId: string, symbol: string, query: PageQuery, limit: number): Order[] {
    const ids = this.idRange("order", symbol, query);
    const below = this.clientIdsBelow.get(symbol) ?? 0;
    const anchored = isAnchored(query);
    const older = (want: number): Order[] =>
      ids && ids[0] < below && want > 0
        ? this.page<OrderRow, Order>(
            "orders",
            [accountId, ...this.keys(symbol, [ids[0], Math.min(ids[1], below)])],
            query,
            want,
            orderFromRow,
            symbol,
          )
        : [];
    const recent = (want: number): Order[] =>
      ids && ids[1] > below && want > 0
        ? this.recentOrders(accountId, symbol, [Math.max(ids[0], below), ids[1]], anchored, want)
        : [];
    let stored: Order[];
    if (anchored) {
      const first = older(limit);
      stored = [...first, ...recent(limit - first.length)];
    } else {
      const last = recent(limit);
      stored = [...older(limit - last.length), ...last];
    }
    const fresh = this.uncommitted.orders.filter(
      symbol,
      (o) => o.accountId === accountId && inPage(o.orderId, o.time, query),
    );
    return mergePage(stored, fresh, (o) => o.orderId, isAnchored(query), limit);
  }

  trades(symbol: string, fromId: number | undefined, limit: number): Trade[] {
    const id = (t: Trade) => t.id;
    if (fromId === undefined) {
      const stored = this.rows<TradeRow, Trade>(
        "recentTrades",
        [...this.span(symbol), limit],
        tradeFromRow,
        symbol,
      ).reverse();
      return mergePage(
        stored,
        this.uncommitted.trades.filter(symbol, () => true),
        id,
        false,
        limit,
      );
    }
    const stored = this.rows<TradeRow, Trade>(
      "tradesFrom",
      [this.key(symbol, fromId), this.span(symbol)[1], limit],
      tradeFromRow,
      symbol,
    );
    const fresh = this.uncommitted.trades.filter(symbol, (t) => t.id >= fromId);
    return mergePage(stored, fresh, id, true, limit);
  }

  tradesBetween(symbol: string, from: number, to: number): Trade[] {
    const ids = this.idRange("trade", symbol, { startTime: from, endTime: to - 1 });
    const stored = ids
      ? this.rows<TradeRow, Trade>("tradesBetween", this.keys(symbol, ids), tradeFromRow, symbol)
      : [];
    const fresh = this.uncommitted.trades.filter(symbol, (t) => t.time >= from && t.time < to);
    return mergePage(stored, fresh, (t) => t.id, true, Number.MAX_SAFE_INTEGER);
  }

  lastTradeBefore(symbol: string, time: number): Trade | undefined {
    const fresh = newest(
      this.uncommitted.trades.filter(symbol, (t) => t.time < time),
      (t) => t.id,
    );
    const stored = this.row(
      "tradeBefore",
      [this.span(symbol)[0], this.key(symbol, this.firstIdAt("trade", symbol, time) ?? MAX_ID)],
      tradeFromRow,
      symbol,
    );
    if (!stored || (fresh && fresh.id >= stored.id)) return fresh;
    return stored;
  }

  aggTrades(symbol: string, query: PageQuery, limit: number): AggTrade[] {
    const ids = this.idRange("aggTrade", symbol, query);
    const stored = ids
      ? this.page<AggTradeRow, AggTrade>(
          "aggTrades",
          this.keys(symbol, ids),
          query,
          limit,
          aggTradeFromRow,
          symbol,
        )
      : [];
    const fresh = this.uncommitted.aggTrades.filter(symbol, (a) => inPage(a.id, a.time, query));
    return mergePage(stored, fresh, (a) => a.id, isAnchored(query), limit);
  }

  accountTrades(accountId: string, symbol: string, query: AccountTradesQuery, limit: number): Trade[] {
    const ids = this.idRange("trade", symbol, query);
    const orderId = query.orderId ?? -1;
    const params = [
      ...this.keys(symbol, ids ?? [0, 0]),
      accountId,
      orderId,
      orderId,
      accountId,
      orderId,
      orderId,
    ];
    const stored = ids
      ? this.page<TradeRow, Trade>("accountTrades", params, query, limit, tradeFromRow, symbol)
      : [];
    const takesPart = (party: Trade["buyer"]) =>
      party.accountId === accountId && (query.orderId === undefined || party.orderId === query.orderId);
    const fresh = this.uncommitted.trades.filter(
      symbol,
      (t) => (takesPart(t.buyer) || takesPart(t.seller)) && inPage(t.id, t.time, query),
    );
    return mergePage(stored, fresh, (t) => t.id, isAnchored(query), limit);
  }

  /**
   * Up to `want` stored orders of the account among its recent ids in [low, high) (not in
   * account_orders yet), ascending: the oldest when anchored, else the newest. Each is one search;
   * ids without a row (not committed yet, or pruned) are stepped over.
   */
  private recentOrders(
    accountId: string,
    symbol: string,
    [low, high]: [number, number],
    anchored: boolean,
    want: number,
  ): Order[] {
    const ids = this.recentAccountOrders.get(symbol)?.get(accountId) ?? [];
    const from = lowerBound(ids, low);
    const to = lowerBound(ids, high);
    const found: Order[] = [];
    for (
      let i = anchored ? from : to - 1;
      found.length < want && i >= from && i < to;
      i += anchored ? 1 : -1
    ) {
      const order = this.row("order", [this.key(symbol, ids[i] as number)], orderFromRow, symbol);
      if (order) found.push(order);
    }
    return anchored ? found : found.reverse();
  }

  /** Number of history items changed but not committed yet (zero once all is committed). */
  uncommittedCount(): number {
    return this.uncommitted.size;
  }

  // ---- loading ----

  private loadState(): ExchangeState {
    this.loadStats.rows = 0;
    this.accountCount = 0;
    const symbols = this.all<{ symbol: string; config: string } & Record<string, number>>("symbols", []);
    const meta = new Map(this.all<{ key: string; value: string }>("meta", []).map((r) => [r.key, r.value]));
    const configs = symbols.map((row) => JSON.parse(row.config) as SymbolConfig);
    for (const row of symbols) this.symbolPositions.set(row.symbol, row.position as number);
    const state = initialState(
      {
        maxOpenOrdersPerAccount: Number(meta.get("max_open_orders") ?? 200),
        commission: { maker: meta.get("commission_maker"), taker: meta.get("commission_taker") },
        history: this,
      },
      configs,
    );
    state.random.state = Number(meta.get("random_state") ?? state.random.state);
    state.lastEventTime = Number(meta.get("last_event_time") ?? 0);
    for (const row of symbols) {
      const market = state.markets.get(row.symbol);
      if (!market) continue;
      if (typeof row.next_order_id !== "number")
        throw new StateFileError(`state file ${this.path}: symbol ${row.symbol} has no counters`);
      market.nextOrderId = row.next_order_id as number;
      market.nextTradeId = row.next_trade_id as number;
      market.nextAggTradeId = row.next_agg_trade_id as number;
      market.nextBookSeq = row.next_book_seq as number;
      market.lastUpdateId = row.last_update_id as number;
    }
    this.loadRecentClientIds(symbols.map((row) => [row.symbol, row.client_ids_below as number]));
    this.loadAccounts(state);
    for (const { symbol } of symbols) {
      for (const row of this.all<OrderRow>("openOrders", [], symbol)) {
        try {
          registerOpenOrder(state, orderFromRow(row));
        } catch (error) {
          throw new StateFileError(`state file ${this.path}: ${(error as Error).message}`);
        }
      }
    }
    restoreBooks(state);
    for (const market of state.markets.values()) this.loadMarketData(state, market.config.symbol);
    const faults = [...stateFaults(state), ...this.idFaults(state)];
    if (faults.length > 0) {
      throw new StateFileError(
        `state file ${this.path}: is inconsistent and was not loaded:\n${faults.map((f) => `  ${f}`).join("\n")}`,
      );
    }
    return state;
  }

  /** The client order ids not in client_order_ids yet: at most a chunk and a batch per symbol. */
  private loadRecentClientIds(symbols: [string, number][]): void {
    this.clientIdsBelow.clear();
    this.recentClientIds.clear();
    this.recentAccountOrders.clear();
    for (const [symbol, below] of symbols) {
      this.clientIdsBelow.set(symbol, below);
      const tail = this.all<{ account: string; client_order_id: string; order_id: number }>(
        "clientIdTail",
        [this.key(symbol, below), this.span(symbol)[1]],
        symbol,
      );
      for (const row of tail) {
        this.noteClientId(row.account, symbol, row.client_order_id, row.order_id);
        this.noteAccountOrder(row.account, symbol, row.order_id);
      }
    }
  }

  /** A client order id that names its order (a generated one) is found by decoding, not noted. */
  private noteClientId(accountId: string, symbol: string, clientOrderId: string, orderId: number): void {
    if (orderId < (this.clientIdsBelow.get(symbol) ?? 0) || namesItsOrder(clientOrderId, orderId)) return;
    let recent = this.recentClientIds.get(symbol);
    if (!recent) {
      recent = new Map();
      this.recentClientIds.set(symbol, recent);
    }
    const key = clientKey(accountId, clientOrderId);
    if ((recent.get(key) ?? -1) < orderId) recent.set(key, orderId);
  }

  /** The order ids are ascending: a new order's is the highest, so it is appended (else placed). */
  private noteAccountOrder(accountId: string, symbol: string, orderId: number): void {
    if (orderId < (this.clientIdsBelow.get(symbol) ?? 0)) return;
    let byAccount = this.recentAccountOrders.get(symbol);
    if (!byAccount) {
      byAccount = new Map();
      this.recentAccountOrders.set(symbol, byAccount);
    }
    let ids = byAccount.get(accountId);
    if (!ids) {
      ids = [];
      byAccount.set(accountId, ids);
    }
    const last = ids[ids.length - 1];
    if (last === undefined || orderId > last) {
      ids.push(orderId);
      return;
    }
    const at = lowerBound(ids, orderId);
    if (ids[at] !== orderId) ids.splice(at, 0, orderId);
  }

  /**
   * A chunk of client order ids is in client_order_ids (and of orders in account_orders): the
   * recent ones below `below` are forgotten.
   */
  private clientIdsIndexed(symbol: string, below: number): void {
    this.clientIdsBelow.set(symbol, below);
    for (const [accountId, ids] of this.recentAccountOrders.get(symbol) ?? []) {
      const kept = ids.slice(lowerBound(ids, below));
      if (kept.length > 0) this.recentAccountOrders.get(symbol)?.set(accountId, kept);
      else this.recentAccountOrders.get(symbol)?.delete(accountId);
    }
    const recent = this.recentClientIds.get(symbol);
    if (!recent) return;
    for (const [key, orderId] of recent) if (orderId < below) recent.delete(key);
  }

  private loadAccounts(state: ExchangeState): void {
    for (const row of this.all<{ id: string; exempt_from_order_limits: number }>("accounts", [])) {
      state.accounts.set(
        row.id,
        new AccountClass(row.id, { exemptFromOrderLimits: row.exempt_from_order_limits === 1 }),
      );
      this.accountCount += 1;
    }
    for (const row of this.all<{ account: string; asset: string; free: string; locked: string }>(
      "balances",
      [],
    )) {
      const account = state.accounts.get(row.account);
      if (!account) {
        throw new StateFileError(
          `state file ${this.path}: balance of ${row.asset} for unknown account "${row.account}"`,
        );
      }
      account.balances.set(row.asset, { free: dec.fromPlain(row.free), locked: dec.fromPlain(row.locked) });
    }
    for (const row of this.all<{ asset: string; total: string }>("fees", [])) {
      state.ledger.fees.set(row.asset, dec.fromPlain(row.total));
    }
    for (const row of this.all<{ asset: string; total: string }>("deposits", [])) {
      state.ledger.deposits.set(row.asset, dec.fromPlain(row.total));
    }
  }

  /**
   * The last trade and the rolling statistics' minute buckets. The trades of the last five minutes
   * are not read here: the average price counts them through their buckets and reads the one
   * partly expired minute later, a chunk at a time (so start-up reads as many rows for a million
   * recent trades as for ten).
   */
  private loadMarketData(state: ExchangeState, symbol: string): void {
    const market = state.markets.get(symbol);
    if (!market) return;
    const last = this.row("lastTrade", this.span(symbol), tradeFromRow, symbol);
    market.lastTrade = last;
    market.lastAggTrade = this.row("lastAggTrade", this.span(symbol), aggTradeFromRow, symbol);
    if (!last) return;
    const recent: TradeBucket[] = [];
    for (const row of this.all<BucketRow>("minutes", [symbol, last.time - DAY_MS - MINUTE_MS])) {
      const bucket = bucketFromRow(row);
      market.stats.restoreMinute(bucket);
      if (bucket.minute + MINUTE_MS > last.time - AVG_WINDOW_MS) recent.push(bucket);
    }
    // Only the columns the average price needs: a minute may hold hundreds of thousands of trades.
    const read: TradeReader = (fromId, toId, limit) =>
      this.rows<VolumeRow, TradeVolume>(
        "volumesInIds",
        [this.key(symbol, fromId), this.key(symbol, toId), limit],
        (r) => ({
          id: r.id,
          time: r.time,
          qty: dec.fromPlain(r.qty),
          quoteQty: dec.fromPlain(r.quote_qty),
        }),
        symbol,
      );
    market.stats.restoreBacklog(recent, read);
  }

  /** Ids the database holds must be below the counters that hand out the next ones. */
  private idFaults(state: ExchangeState): string[] {
    const faults: string[] = [];
    for (const market of state.markets.values()) {
      const symbol = market.config.symbol;
      const max = (table: IdTable) =>
        this.row<IdTime, number>(`${table}IdLast`, this.span(symbol), (r) => r.id, symbol) ?? 0;
      const checks: [string, number, number][] = [
        ["order", max("order"), market.nextOrderId],
        ["trade", max("trade"), market.nextTradeId],
        ["aggregate trade", max("aggTrade"), market.nextAggTradeId],
      ];
      for (const [what, highest, next] of checks) {
        if (highest >= next)
          faults.push(`symbol ${symbol}: ${what} id ${highest} is not below the next ${what} id ${next}`);
      }
    }
    return faults;
  }

  // ---- batches ----

  private hasQueued(): boolean {
    return this.pending.length > 0 || !this.queued.isEmpty();
  }

  private scheduleSend(): void {
    if (this.sendScheduled || this.inFlight || !this.hasQueued() || this.failure) return;
    this.sendScheduled = true;
    // Everything served in this turn of the event loop joins the batch (group commit).
    setImmediate(() => {
      this.sendScheduled = false;
      this.send();
    });
  }

  private send(): void {
    if (this.inFlight || !this.hasQueued() || this.failure || this.closed) return;
    const ops = this.pending;
    this.pending = [];
    const state = this.exchange?.internalState();
    let changes: ChangeSet | undefined;
    const indexed: [string, number][] = [];
    const toIndex: [string, number, number][] = [];
    if (state) {
      changes = this.queued.drain();
      const writes = changeWrites(changes, {
        fees: state.ledger.fees,
        deposits: state.ledger.deposits,
        nextAccount: () => this.accountCount++,
        symbolPosition: (symbol) => this.symbolPositions.get(symbol) ?? 0,
      });
      // Appended one by one: a spread into push overflows the stack for a large batch.
      for (const op of writes) ops.push(op);
      ops.push(
        ["meta", "random_state", String(state.random.state)],
        ["meta", "last_event_time", String(state.lastEventTime)],
      );
      if (this.applyInline) toIndex.push(...this.chunksToIndex(state));
      else
        for (const [symbol, from, below] of this.chunksToIndex(state)) {
          ops.push(...indexOps(this.key(symbol, from), this.key(symbol, below), symbol, below));
          indexed.push([symbol, below]);
        }
    }
    this.batches += 1;
    const seq = ++this.seq;
    this.inFlight = { seq, batch: this.pendingBatch, number: this.batches, changes, indexed, toIndex };
    this.pendingBatch = deferred();
    if (this.applyInline) this.commitInline(seq, ops);
    else postBatch(this.worker, seq, ops);
  }

  /**
   * The symbols' chunks of recent client order ids to add to client_order_ids ([symbol, from id,
   * below id]): sorted, so a chunk writes each page it touches once, where an index on orders wrote
   * a page for each order of each commit. Every order below the symbol's next id is committed or in
   * the batch being sent. With sync "normal" the writer thread adds a chunk once that batch is
   * committed (one at a time), so the main thread never waits for it.
   */
  private chunksToIndex(state: ExchangeState): [string, number, number][] {
    const chunks: [string, number, number][] = [];
    for (const market of state.markets.values()) {
      const symbol = market.config.symbol;
      const below = this.clientIdsBelow.get(symbol) ?? 0;
      if (market.nextOrderId - below < CLIENT_IDS_CHUNK) continue;
      if (this.applyInline && this.indexing?.symbol === symbol) continue;
      chunks.push([symbol, below, market.nextOrderId]);
    }
    return chunks;
  }

  /** Sync "normal": asks the writer thread to add a committed chunk of client order ids. */
  private indexAside([symbol, from, below]: [string, number, number]): void {
    if (this.indexing || this.failure || this.closed) return;
    this.indexing = { seq: ++this.seq, symbol, below };
    postBatch(
      this.worker,
      this.indexing.seq,
      indexOps(this.key(symbol, from), this.key(symbol, below), symbol, below),
    );
  }

  /**
   * Sync "normal": the batch commits here, on the main thread. In WAL mode with synchronous NORMAL
   * a commit appends to the WAL and returns (no fsync), which costs less than building, posting and
   * decoding the batch for another thread, and no round trip bounds the batches. The checkpoints,
   * which copy the WAL into the database and fsync, run in the writer thread.
   */
  private commitInline(seq: number, ops: WriteOp[]): void {
    if (this.inFlight?.seq !== seq || this.closed) return;
    try {
      this.applyInline?.immediate(ops);
    } catch (error) {
      const e = error as { message?: string; code?: string };
      // Another connection writes (a checkpoint finishing, another program): this thread never
      // sleeps in SQLite's busy handler; it tries again soon, and the batch's answers wait.
      if (e.code === "SQLITE_BUSY") {
        setTimeout(() => this.commitInline(seq, ops), BUSY_RETRY_MS);
        return;
      }
      this.onReply({ seq, ok: false, error: String(e.message ?? error), code: String(e.code ?? "") });
      return;
    }
    this.commitsSinceCheckpoint += 1;
    if (this.commitsSinceCheckpoint >= CHECKPOINT_EVERY_COMMITS && this.checkpointing === undefined) {
      this.commitsSinceCheckpoint = 0;
      this.checkpointing = ++this.seq;
      this.worker.postMessage({ seq: this.checkpointing, checkpoint: true } satisfies WriterRequest);
    }
    this.onReply({ seq, ok: true });
  }

  private onReply(reply: WriterReply): void {
    if (reply.seq === 0 || this.closed) return;
    if (this.indexing?.seq === reply.seq) {
      const { symbol, below } = this.indexing;
      this.indexing = undefined;
      if (reply.ok) this.clientIdsIndexed(symbol, below);
      else this.fail(describeSqliteError({ code: reply.code, message: reply.error }));
      return;
    }
    if (this.checkpointing === reply.seq) {
      this.checkpointing = undefined;
      if (!reply.ok) this.fail(describeSqliteError({ code: reply.code, message: reply.error }));
      return;
    }
    if (this.probing === reply.seq) {
      this.probing = undefined;
      if (reply.ok) this.recover();
      return;
    }
    const flight = this.inFlight;
    if (!flight || flight.seq !== reply.seq) return;
    if (!reply.ok) {
      this.fail(describeSqliteError({ code: reply.code, message: reply.error }));
      return;
    }
    this.inFlight = undefined;
    for (const [symbol, below] of flight.indexed) this.clientIdsIndexed(symbol, below);
    const chunk = flight.toIndex[0];
    if (chunk) this.indexAside(chunk);
    if (flight.changes) this.uncommitted.settle(flight.changes, flight.number);
    flight.batch.resolve();
    this.scheduleSend();
  }

  private fail(reason: string): void {
    if (this.failure || this.closed) return;
    this.failure = new StorageFailure(reason);
    this.inFlight?.batch.reject(this.failure);
    this.pendingBatch.reject(this.failure);
    this.inFlight = undefined;
    this.pending = [];
    this.queued = new Journal();
    this.uncommitted.clear();
    this.pendingBatch = deferred();
    this.lastProbe = Date.now();
    this.reloadLiveState();
    this.options.onFailure?.(reason);
  }

  /** Forgets the changes that were not committed: the live state becomes the committed one. */
  private reloadLiveState(): void {
    if (!this.exchange) return;
    try {
      this.exchange.replaceState(this.loadState());
    } catch {
      // The database cannot even be read: keep serving reads from memory; writes stay refused.
    }
  }

  private probing: number | undefined;

  private probe(): void {
    if (this.probing !== undefined || Date.now() - this.lastProbe < PROBE_EVERY_MS || this.closed) return;
    this.lastProbe = Date.now();
    this.probing = ++this.seq;
    postBatch(this.worker, this.probing, [["meta", "probed_at", String(Date.now())]]);
  }

  private recover(): void {
    if (!this.failure) return;
    this.reloadLiveState();
    this.failure = undefined;
  }

  private pruneNowAndThen(now: number): void {
    if (now - this.lastPrune < PRUNE_EVERY_MS) return;
    this.lastPrune = now;
    this.pending.push(["pruneMinutes", now - DAY_MS - 2 * MINUTE_MS]);
    const retention = this.options.retentionMs;
    if (retention === undefined) return;
    const cutoff = now - retention;
    for (const symbol of this.symbolPositions.keys()) {
      const [first] = this.span(symbol);
      const kept = (table: IdTable) => this.key(symbol, this.firstKeptId(table, symbol, cutoff));
      this.pending.push(["pruneTrades", first, kept("trade"), PRUNE_CHUNK]);
      this.pending.push(["pruneAggTrades", first, kept("aggTrade"), PRUNE_CHUNK]);
      const keptOrder = kept("order");
      this.pending.push(["pruneClientIds", first, keptOrder, PRUNE_CHUNK]);
      this.pending.push(["pruneAccountOrders", first, keptOrder, PRUNE_CHUNK]);
      this.pending.push(["pruneOrders", first, keptOrder, PRUNE_CHUNK]);
    }
  }

  /**
   * The lowest id that a prune at `cutoff` keeps: the first stored at or after it, else one above
   * the last stored (never more: rows of a batch still being committed have higher ids and may be
   * newer than the cutoff).
   */
  private firstKeptId(table: IdTable, symbol: string, cutoff: number): number {
    const first = this.firstIdAt(table, symbol, cutoff);
    if (first !== undefined) return first;
    const last = this.row<IdTime, IdTime>(`${table}IdLast`, this.span(symbol), (r) => r, symbol);
    return last ? last.id + 1 : MIN_ID;
  }

  // ---- reading helpers ----

  /** The key of the symbol's row with this id (orders, trades, aggregate trades). */
  private key(symbol: string, id: number): number {
    return rowKey(this.symbolPositions.get(symbol) ?? -1, id);
  }

  /** The keys of the symbol's rows: [first, above the last]. */
  private span(symbol: string): [number, number] {
    return [this.key(symbol, 0), this.key(symbol, ID_SPAN)];
  }

  /** The keys of the symbol's ids [lowest, above the last]. */
  private keys(symbol: string, [low, high]: [number, number]): [number, number] {
    return [this.key(symbol, low), this.key(symbol, high)];
  }

  private metaValue(key: string): string | undefined {
    return (this.statement("metaValue").get(key) as { value: string } | undefined)?.value;
  }

  /**
   * The read statement `name` (of HISTORY_READS or OTHER_READS); on the tables of `symbol` when
   * its SQL names a symbol's tables. Prepared when first used.
   */
  private statement(name: string, symbol?: string): Statement {
    const sql = READS[name];
    if (sql === undefined) throw new Error(`no read statement named ${name}`);
    if (!SYMBOL_READS.has(name)) return this.statementOf(sql, 0);
    const position = this.symbolPositions.get(symbol ?? "");
    if (position === undefined)
      throw new Error(`read ${name} is on a symbol's tables, and symbol ${symbol} has none`);
    return this.statementOf(sql, position);
  }

  private all<R>(name: string, params: unknown[], symbol?: string): R[] {
    const rows = this.statement(name, symbol).all(...params) as R[];
    this.loadStats.rows += rows.length;
    return rows;
  }

  private rows<R, T>(name: string, params: unknown[], map: (row: R) => T, symbol?: string): T[] {
    const rows = this.statement(name, symbol).all(...params) as R[];
    this.loadStats.rows += rows.length;
    return rows.map(map);
  }

  private row<R, T>(name: string, params: unknown[], map: (row: R) => T, symbol?: string): T | undefined {
    const row = this.statement(name, symbol).get(...params) as R | undefined;
    this.loadStats.rows += row ? 1 : 0;
    return row === undefined ? undefined : map(row);
  }

  /**
   * The ids a page may hold, [lowest, above the last], from fromId and the time bounds; undefined
   * when none can match. Ids and times grow together, so a time bound is the id of the first row
   * at or after it (`idAt`, one index search).
   */
  private idRange(table: IdTable, symbol: string, query: PageQuery): [number, number] | undefined {
    const firstAt = (time: number) => this.firstIdAt(table, symbol, time);
    let low = query.fromId ?? MIN_ID;
    if (query.startTime !== undefined) {
      const first = firstAt(query.startTime);
      if (first === undefined) return undefined;
      low = Math.max(low, first);
    }
    const high = query.endTime === undefined ? MAX_ID : (firstAt(query.endTime + 1) ?? MAX_ID);
    return high > low ? [low, high] : undefined;
  }

  /**
   * The first stored id of the symbol's rows whose time is at or after `time` (undefined when none
   * is): a binary search over the primary key, since ids and times grow together. Each probe reads
   * one row found by one index search, so it reads a logarithmic number of rows, however long the
   * history; gaps in the ids (pruned or retained rows) are stepped over by the probes.
   */
  private firstIdAt(table: IdTable, symbol: string, time: number): number | undefined {
    const last = this.row<IdTime, IdTime>(`${table}IdLast`, this.span(symbol), (r) => r, symbol);
    if (!last || last.time < time) return undefined;
    const end = this.span(symbol)[1];
    const from = (id: number) =>
      this.row<IdTime, IdTime>(`${table}IdFrom`, [this.key(symbol, id), end], (r) => r, symbol) as IdTime;
    const first = from(MIN_ID);
    if (first.time >= time) return first.id;
    // first.time < time <= found.time; no id in [above, found.id) exists.
    let below = first.id;
    let found = last.id;
    let above = found;
    while (above - below > 1) {
      const middle = below + Math.floor((above - below) / 2);
      const row = from(middle);
      if (row.time >= time) {
        found = row.id;
        above = middle;
      } else {
        below = row.id;
      }
    }
    return found;
  }

  /** The §1.6 paging rule in SQL: oldest matches with a lower bound, else the newest. */
  private page<R, T>(
    name: string,
    params: unknown[],
    query: PageQuery,
    limit: number,
    map: (row: R) => T,
    symbol: string,
  ): T[] {
    const anchored = isAnchored(query);
    const rows = this.rows(`${name}${anchored ? "Asc" : "Desc"}`, [...params, limit], map, symbol);
    return anchored ? rows : rows.reverse();
  }
}

/** The tables whose time bounds are found through their ids (statements `<table>IdFrom`, `<table>IdLast`). */
type IdTable = "order" | "trade" | "aggTrade";

interface IdTime {
  id: number;
  time: number;
}

/** The writes that add the client order ids of orders [from key, below key) and mark them added. */
function indexOps(fromKey: number, belowKey: number, symbol: string, below: number): WriteOp[] {
  return [
    ["indexClientIds", fromKey, belowKey],
    ["indexAccountOrders", fromKey, belowKey],
    ["clientIdsBelow", below, symbol],
  ];
}

/** The position of the first id at or above `id` in ascending `ids`. */
function lowerBound(ids: readonly number[], id: number): number {
  return firstAtLeast(ids.length, (i) => ids[i] as number, id);
}

function clientKey(accountId: string, clientOrderId: string): string {
  return `${accountId}\u0000${clientOrderId}`;
}

function isAnchored(query: PageQuery): boolean {
  return query.fromId !== undefined || query.startTime !== undefined;
}

/** Whether an item with this id and time falls in the query's bounds (as the paged SQL reads). */
function inPage(id: number, time: number, query: PageQuery): boolean {
  return (
    id >= (query.fromId ?? MIN_TIME) &&
    time >= (query.startTime ?? MIN_TIME) &&
    time <= (query.endTime ?? MAX_TIME)
  );
}

function newest<T>(items: readonly T[], id: (item: T) => number): T | undefined {
  let best: T | undefined;
  for (const item of items) if (best === undefined || id(item) > id(best)) best = item;
  return best;
}

/**
 * Creates the database aside and links it into place once it holds its schema, so a file at the
 * path is never one this server left empty (an empty state file is damaged, not new).
 */
function createWhole(Driver: ReturnType<typeof loadDriver>, path: string): void {
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

async function startWriter(path: string, lockPath: string, sync: StateSync): Promise<Worker> {
  const worker = await newWriterThread({ path, lockPath, sync } satisfies WriterData);
  return new Promise((resolve, reject) => {
    const onError = (error: Error) => reject(new Error(`the writer thread did not start (${error.message})`));
    worker.once("error", onError);
    worker.once("message", () => {
      worker.off("error", onError);
      resolve(worker);
    });
  });
}

/**
 * The writer thread from the built file. Running from the TypeScript sources (tests), a module
 * that is not part of the build starts it with tsx registered in the thread, since worker threads
 * do not inherit loader hooks; it is found by URL, so the build never refers to it.
 */
async function newWriterThread(workerData: WriterData): Promise<Worker> {
  const here = import.meta.url;
  if (!here.endsWith(".ts")) return new Worker(fileURLToPath(new URL("./writer.js", here)), { workerData });
  const source = new URL("./writer-from-source.ts", here).href;
  const { writerFromSource } = (await import(source)) as { writerFromSource(data: WriterData): Worker };
  return writerFromSource(workerData);
}

const READS: Record<string, string> = { ...HISTORY_READS, ...OTHER_READS };

/** The reads on a symbol's own tables. */
const SYMBOL_READS = new Set(Object.keys(READS).filter((name) => onSymbolTables(READS[name] as string)));
