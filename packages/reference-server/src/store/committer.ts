/**
 * The committer: the engine's change sets become row writes, and the writes of all requests served
 * in one turn of the event loop become one batch, committed in one transaction (group commit);
 * `committed()` resolves once the batch that holds everything recorded so far is committed, and an
 * order is answered only then.
 *
 * Who commits depends on the sync mode. With "normal" (the default) the main thread commits each
 * batch on its own connection (WAL, synchronous NORMAL: an append to the WAL, no fsync) and the
 * writer thread runs the checkpoints, which copy the WAL into the database and fsync, and adds the
 * chunks of client order ids once they are committed. With "full" the writer thread commits and
 * fsyncs each batch while the main thread goes on serving.
 *
 * Before each commit the state file and its lock file are checked to be the ones opened (see
 * files.ts and lock.ts), and that no other program has committed since (commit-fence.ts). When a
 * commit fails, every write not yet committed is refused, the live state is reloaded from the
 * database, and new orders are refused until a later probe commits again; after another program's
 * commit, until the server is restarted.
 */
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { type ChangeSet, type Exchange, type ExchangeState, PRUNED_CANDLE_LEVEL } from "../engine/index.js";
import { Journal } from "../engine/journal.js";
import { CommitFence, FOREIGN_COMMIT } from "./commit-fence.js";
import type { Database } from "./driver.js";
import { describeSqliteError, watchedFileIdentity } from "./files.js";
import type { HistoryReads } from "./history-reads.js";
import type { StateLock } from "./lock.js";
import type { RecentClientIds } from "./recent-client-ids.js";
import { changeWrites, type WriteOp } from "./rows.js";
import type { StoredCandles } from "./stored-candles.js";
import type { TableReads } from "./table-reads.js";
import type { Uncommitted } from "./uncommitted.js";
import { writeRunner } from "./write-runner.js";
import {
  postBatch,
  type StateSync,
  type WriterData,
  type WriterReply,
  type WriterRequest,
} from "./writer-protocol.js";

const MINUTE_MS = 60_000;
const DAY_MS = 24 * 60 * MINUTE_MS;
const PRUNE_EVERY_MS = MINUTE_MS;
const PRUNE_CHUNK = 5000;
const PROBE_EVERY_MS = 5000;
/** Commits between two checkpoints asked of the writer thread (sync "normal"). */
const CHECKPOINT_EVERY_COMMITS = 1000;
/** Orders of a symbol whose client order ids are added to client_order_ids together. */
const CLIENT_IDS_CHUNK = 16_384;
/** How soon a commit that found the database locked by another connection is tried again. */
const BUSY_RETRY_MS = 2;

export interface CommitterOptions {
  /** Trades and closed orders older than this are deleted (default: kept forever). */
  retentionMs?: number | undefined;
  /** "normal" (default): commits survive a crash of the server; "full": also of the machine. */
  sync?: StateSync | undefined;
  /** Told when a commit fails, with the reason. */
  onFailure?: (reason: string) => void;
}

/** The error answered to writes while the database cannot be written. */
export class StorageFailure extends Error {
  constructor(readonly reason: string) {
    super(`the state database cannot be written (${reason})`);
    this.name = "StorageFailure";
  }
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

/** What the committer works with besides its connection and writer thread. */
export interface CommitterParts {
  tables: TableReads;
  uncommitted: Uncommitted;
  recent: RecentClientIds;
  reads: HistoryReads;
  /** The candles: told when a batch is committed (their writes come with the trades that complete them). */
  candles: StoredCandles;
  /** Replaces the live state with the committed one (after a failed commit). */
  reload(): void;
}

export class Committer {
  private exchange: Exchange | undefined;
  /** Writes that do not come from a change set (settings, pruning). */
  private pending: WriteOp[] = [];
  /** Changes recorded since the last batch was sent; written with their values at send time. */
  private queued = new Journal();
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
  private probing: number | undefined;
  /** The number of accounts stored: the position of the next one. */
  private accountCount = 0;
  private closed = false;
  private exited = false;
  /** Meta values written with every batch (keepMeta). */
  private readonly keptMeta = new Map<string, () => string>();

  /** With sync "normal": the write statements on the main thread's connection (commits inline). */
  private readonly applyInline: { immediate(ops: WriteOp[]): void } | undefined;
  /** Sync "normal": tells whether the file is still the one open (checked before each commit). */
  private readonly identity: { check(): void; close(): void } | undefined;
  /** Sync "normal": another program's commits stop this thread's (commit-fence.ts). */
  private readonly fence: CommitFence | undefined;
  /** Another program committed to the file: nothing is written any more (no probe either). */
  private stopped = false;
  private commitsSinceCheckpoint = 0;
  private checkpointing: number | undefined;
  /** Sync "normal": the chunk of client order ids the writer thread is adding to client_order_ids. */
  private indexing: { seq: number; symbol: string; below: number } | undefined;

  constructor(
    path: string,
    db: Database,
    private readonly worker: Worker,
    lock: StateLock,
    private readonly parts: CommitterParts,
    private readonly options: CommitterOptions,
    /** The writer thread's commits (see commit-fence.ts ourCommits). */
    ours: Int32Array,
  ) {
    if ((options.sync ?? "normal") === "normal") {
      const run = writeRunner(db);
      const identity = watchedFileIdentity(path);
      const fence = new CommitFence(db, path, ours);
      this.identity = identity;
      this.fence = fence;
      this.applyInline = db.transaction((ops: WriteOp[]) => {
        identity.check();
        lock.check();
        fence.check();
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

  /** Binds the exchange whose changes are recorded (its live state is read on each batch). */
  attach(exchange: Exchange): void {
    this.exchange = exchange;
  }

  /** The file is accepted (see open.ts markServing): from now on another program's commit stops ours. */
  startFence(): void {
    if (this.fence) this.fence.start();
    else this.worker.postMessage({ seq: ++this.seq, fence: true } satisfies WriterRequest);
  }

  /** Whether another program's commit stopped this server's writes (commit-fence.ts). */
  get stoppedByAnother(): boolean {
    return this.stopped;
  }

  /** The number of accounts stored (after a load): new accounts take the positions after them. */
  accountsStored(count: number): void {
    this.accountCount = count;
  }

  /** The number the next batch sent will have (what is recorded now goes in it). */
  get nextBatch(): number {
    return this.batches + 1;
  }

  /** A write that does not come from a change set (a new exchange's symbols and settings). */
  write(op: WriteOp): void {
    this.pending.push(op);
  }

  /** A meta value written again with every batch of changes, so it commits with them. */
  keepMeta(key: string, value: () => string): void {
    this.keptMeta.set(key, value);
    this.pending.push(["meta", key, value()]);
  }

  /** Writes the kept meta values as they are now, also when nothing else changed (see committed()). */
  writeKeptMeta(): void {
    for (const [key, value] of this.keptMeta) this.pending.push(["meta", key, value()]);
  }

  record(changes: ChangeSet, now: number): void {
    if (this.closed) return;
    this.queued.add(changes);
    this.parts.uncommitted.add(changes, this.batches + 1);
    for (const order of changes.orders)
      this.parts.recent.note(order.accountId, order.symbol, order.clientOrderId, order.orderId);
    this.pruneNowAndThen(now);
    this.scheduleSend();
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

  /** Commits what is pending and stops the writer thread. */
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
  }

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
        symbolPosition: (symbol) => this.parts.tables.symbolPositions.get(symbol) ?? 0,
      });
      // Appended one by one: a spread into push overflows the stack for a large batch.
      for (const op of writes) ops.push(op);
      ops.push(
        ["meta", "random_state", String(state.random.state)],
        ["meta", "last_event_time", String(state.lastEventTime)],
      );
      for (const [key, value] of this.keptMeta) ops.push(["meta", key, value()]);
      if (this.applyInline) toIndex.push(...this.chunksToIndex(state));
      else
        for (const [symbol, from, below] of this.chunksToIndex(state)) {
          ops.push(...this.indexOps(symbol, from, below));
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
      const below = this.parts.recent.below(symbol);
      if (market.nextOrderId - below < CLIENT_IDS_CHUNK) continue;
      if (this.applyInline && this.indexing?.symbol === symbol) continue;
      chunks.push([symbol, below, market.nextOrderId]);
    }
    return chunks;
  }

  /** The writes that add the client order ids of the symbol's orders [from, below) and mark them added. */
  private indexOps(symbol: string, from: number, below: number): WriteOp[] {
    const { tables } = this.parts;
    const [fromKey, belowKey] = [tables.key(symbol, from), tables.key(symbol, below)];
    return [
      ["indexClientIds", fromKey, belowKey],
      ["indexAccountOrders", fromKey, belowKey],
      ["clientIdsBelow", below, symbol],
    ];
  }

  /** Sync "normal": asks the writer thread to add a committed chunk of client order ids. */
  private indexAside([symbol, from, below]: [string, number, number]): void {
    if (this.indexing || this.failure || this.closed) return;
    this.indexing = { seq: ++this.seq, symbol, below };
    postBatch(this.worker, this.indexing.seq, this.indexOps(symbol, from, below));
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
      if (reply.ok) this.parts.recent.indexed(symbol, below);
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
      if (reply.code === FOREIGN_COMMIT) this.stopped = true;
      this.fail(describeSqliteError({ code: reply.code, message: reply.error }));
      return;
    }
    this.inFlight = undefined;
    for (const [symbol, below] of flight.indexed) this.parts.recent.indexed(symbol, below);
    const chunk = flight.toIndex[0];
    if (chunk) this.indexAside(chunk);
    if (flight.changes) this.parts.uncommitted.settle(flight.changes, flight.number);
    this.parts.candles.settle(flight.number);
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
    this.parts.uncommitted.clear();
    this.pendingBatch = deferred();
    this.lastProbe = Date.now();
    this.parts.reload();
    this.options.onFailure?.(reason);
  }

  private probe(): void {
    if (
      this.stopped ||
      this.probing !== undefined ||
      Date.now() - this.lastProbe < PROBE_EVERY_MS ||
      this.closed
    )
      return;
    this.lastProbe = Date.now();
    this.probing = ++this.seq;
    postBatch(this.worker, this.probing, [["meta", "probed_at", String(Date.now())]]);
  }

  private recover(): void {
    if (!this.failure) return;
    this.parts.reload();
    this.failure = undefined;
  }

  private pruneNowAndThen(now: number): void {
    if (now - this.lastPrune < PRUNE_EVERY_MS) return;
    this.lastPrune = now;
    this.pending.push(["pruneMinutes", now - DAY_MS - 2 * MINUTE_MS]);
    const retention = this.options.retentionMs;
    if (retention === undefined) return;
    const cutoff = now - retention;
    const { tables, reads } = this.parts;
    for (const symbol of tables.symbolPositions.keys()) {
      const [first] = tables.span(symbol);
      const kept = (table: "order" | "trade" | "aggTrade") =>
        tables.key(symbol, reads.firstKeptId(table, symbol, cutoff));
      const keptTrade = kept("trade");
      this.pending.push(["pruneBuyerTrades", first, keptTrade, PRUNE_CHUNK]);
      this.pending.push(["pruneSellerTrades", first, keptTrade, PRUNE_CHUNK]);
      this.pending.push(["pruneTrades", first, keptTrade, PRUNE_CHUNK]);
      // Second candles go with the trades (the longer levels are kept: a few rows a day).
      this.pending.push(["pruneCandles", symbol, PRUNED_CANDLE_LEVEL, cutoff - PRUNED_CANDLE_LEVEL + 1]);
      this.pending.push(["pruneAggTrades", first, kept("aggTrade"), PRUNE_CHUNK]);
      const keptOrder = kept("order");
      this.pending.push(["pruneClientIds", first, keptOrder, PRUNE_CHUNK]);
      this.pending.push(["pruneAccountOrders", first, keptOrder, PRUNE_CHUNK]);
      this.pending.push(["pruneOrders", first, keptOrder, PRUNE_CHUNK]);
    }
  }
}

/** Starts the writer thread on the state file and waits until its connection is open. */
export async function startWriter(
  path: string,
  lockPath: string,
  sync: StateSync,
  ours: Int32Array,
): Promise<Worker> {
  const worker = await newWriterThread({ path, lockPath, sync, ours } satisfies WriterData);
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
