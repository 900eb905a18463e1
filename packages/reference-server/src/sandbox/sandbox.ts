/**
 * The sandbox: the clock, the simulated market and what the admin surface does to the exchange
 * (balances, accounts, the clock, the market, snapshots). With a state database its state (the
 * clock's time, the market's, the accounts added here with their keys) is kept in the `meta` row
 * `sandbox` and committed with every batch of changes, so a restart goes on where it stopped.
 *
 * Snapshots, restore and reset: without a state database, of the in-memory exchange (kept in
 * memory); with one, of its file (backups kept beside it, see served-state.ts): a restore or a
 * reset replaces the file, so a restart goes on from what they brought back.
 */
import { parseConfig } from "../config.js";
import type { Exchange } from "../engine/exchange.js";
import type { LegacySnapshot } from "../engine/legacy-snapshot.js";
import type { KeyRing } from "../http/auth.js";
import type { RateLimiter } from "../http/rate-limits.js";
import type { Logger } from "../logger.js";
import type { SandboxClock } from "./clock.js";
import { type MarketSettings, type MarketState, SimulatedMarket } from "./market.js";
import { readSavedSandbox } from "./options.js";
import { exportExchange, importExchange } from "./snapshot.js";

/** A refusal of the admin surface: its HTTP status and what was wrong. */
export class SandboxError extends Error {
  constructor(
    readonly status: 400 | 404 | 409,
    message: string,
  ) {
    super(message);
    this.name = "SandboxError";
  }
}

export interface AddedAccount {
  id: string;
  apiKey: string;
  apiSecret: string;
}

/** The `meta` row `sandbox` of a state database. */
export interface SavedSandbox {
  version: 1;
  clock: { time: number };
  market: MarketState | null;
  accounts: AddedAccount[];
}

export interface SandboxStorage {
  readonly failed: boolean;
  /** Keeps `value()` under `key` with every commit. */
  keepMeta(key: string, value: () => string): void;
  /** Commits the kept values now. */
  saveKeptMeta(): Promise<void>;
  /** The snapshot files kept (also by earlier runs), oldest first. */
  listSnapshots(): SnapshotFile[];
  takeSnapshot(snapshot: SnapshotFile): Promise<void>;
  deleteSnapshot(snapshot: SnapshotFile): void;
  /** Replaces the state by the snapshot's; `adopt` reads the meta values brought back. */
  restoreSnapshot(snapshot: SnapshotFile, adopt: Adopt): Promise<void>;
  /** Keeps the state as it is now for `restoreInitial` (reset). */
  takeInitial(): Promise<void>;
  restoreInitial(adopt: Adopt): Promise<void>;
}

/** A snapshot kept in a file: its id and the sandbox time it was taken at. */
export interface SnapshotFile {
  id: string;
  takenAt: number;
}

/** Takes the meta values of a state brought back. */
export type Adopt = (metaValue: (key: string) => string | undefined) => void;

export interface SandboxDeps {
  exchange: Exchange;
  clock: SandboxClock;
  keys: KeyRing;
  rateLimiter: RateLimiter;
  storage: SandboxStorage | undefined;
  logger: Logger;
  seed: number;
  /** The history's retention (restored snapshots keep the server's). */
  retentionMs?: number | undefined;
  /** Balance given in every asset to an account added without balances. */
  generousBalance: string;
}

interface Snapshot {
  id: string;
  takenAt: number;
  exchange: LegacySnapshot;
  market: MarketState | undefined;
  accounts: AddedAccount[];
}

export const SANDBOX_META_KEY = "sandbox";
/** Snapshots kept at most (each holds the whole history). */
export const MAX_SNAPSHOTS = 16;
/** The furthest one advance may move the clock: a year. */
export const MAX_ADVANCE_MS = 366 * 86_400_000;

export class Sandbox {
  readonly market: SimulatedMarket | undefined;
  private added: AddedAccount[] = [];
  private readonly snapshots = new Map<string, Snapshot>();
  /** With a state database: the snapshot files (the map above stays empty). */
  private readonly files = new Map<string, SnapshotFile>();
  private nextSnapshot = 1;
  private initial: Snapshot | undefined;
  /** Operations that change the sandbox run one after the other (an advance takes many turns). */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly deps: SandboxDeps,
    market: MarketSettings | undefined,
    saved: SavedSandbox | undefined,
  ) {
    const { exchange, clock } = deps;
    if (saved) {
      clock.rewindTo(Math.max(saved.clock.time, exchange.time()));
      for (const account of saved.accounts) this.registerKey(account);
      this.added = saved.accounts.filter(
        (account) => deps.keys.get(account.apiKey)?.accountId === account.id,
      );
    } else clock.advanceTo(exchange.time());
    this.market = market
      ? new SimulatedMarket(
          market,
          {
            exchange,
            clock,
            seed: deps.seed,
            gate: (accountId, now) => this.mayPlaceOrder(accountId, now),
            paused: () => deps.storage?.failed === true,
            logger: deps.logger,
          },
          saved?.market ?? undefined,
        )
      : undefined;
    deps.storage?.keepMeta(SANDBOX_META_KEY, () => JSON.stringify(this.saved()));
    for (const file of deps.storage?.listSnapshots() ?? []) {
      this.files.set(file.id, file);
      this.nextSnapshot = Math.max(this.nextSnapshot, Number(file.id.slice(1)) + 1);
    }
  }

  /** Remembers the state to reset to, and starts the market if asked to. */
  async start(runMarket: boolean): Promise<void> {
    if (this.deps.storage) await this.serially(() => this.deps.storage?.takeInitial());
    else this.initial = this.take("initial");
    if (runMarket) this.market?.start();
  }

  close(): void {
    this.market?.close();
  }

  saved(): SavedSandbox {
    return {
      version: 1,
      clock: { time: this.deps.clock.now() },
      market: this.market?.saved() ?? null,
      accounts: this.added,
    };
  }

  status() {
    const { clock } = this.deps;
    const time = clock.now();
    return {
      time,
      isoTime: new Date(time).toISOString(),
      clock: { rate: clock.rate, paused: clock.rate === 0 },
      market: this.market?.status() ?? null,
      state: this.deps.storage ? "state database" : "memory",
      snapshots: [...this.snapshots.values(), ...this.files.values()].map(({ id, takenAt }) => ({
        id,
        takenAt,
      })),
    };
  }

  // ---- the clock ----

  /** Moves the clock forward by `ms` or to `to`, running every tick of the market on the way. */
  advance(by: { ms?: number; to?: number }): Promise<void> {
    return this.serially(() => this.advanceNow(by));
  }

  setRate(rate: number): Promise<void> {
    return this.serially(() => {
      this.deps.clock.setRate(rate);
      this.market?.reschedule();
      return this.persist();
    });
  }

  private async advanceNow(by: { ms?: number; to?: number }): Promise<void> {
    const now = this.deps.clock.now();
    const target = by.to ?? now + (by.ms ?? 0);
    if (target < now) {
      throw new SandboxError(
        409,
        `the clock is at ${now} (${new Date(now).toISOString()}): it cannot go back to ${target}`,
      );
    }
    if (target - now > MAX_ADVANCE_MS) {
      throw new SandboxError(
        400,
        `one advance moves the clock ${MAX_ADVANCE_MS} ms (366 days) at most; asked for ${target - now}`,
      );
    }
    if (this.market?.running) await this.market.advanceTo(target);
    else this.deps.clock.advanceTo(target);
    await this.persist();
  }

  // ---- the market ----

  startMarket(): Promise<void> {
    const market = this.requireMarket();
    return this.serially(() => {
      market.start();
      return this.persist();
    });
  }

  stopMarket(): Promise<void> {
    const market = this.requireMarket();
    return this.serially(() => {
      market.stop();
      return this.persist();
    });
  }

  private requireMarket(): SimulatedMarket {
    if (!this.market) {
      throw new SandboxError(
        409,
        "this server has no simulated market: start it with --market (startServer({ market: true }))",
      );
    }
    return this.market;
  }

  // ---- accounts and balances ----

  /** Adds an account with its key (checked as a configured account is), or says what is wrong. */
  async addAccount(input: unknown): Promise<{ id: string; balances: ReturnType<Exchange["balances"]> }> {
    const { exchange, keys } = this.deps;
    let account: ReturnType<typeof parseConfig>["accounts"][number] | undefined;
    try {
      [account] = parseConfig({ accounts: [input] }).accounts;
    } catch (error) {
      const faults = (error as { faults?: string[] }).faults ?? [(error as Error).message];
      // The configuration's names, as the admin operation's parameters are named.
      const named = faults.map((fault) => fault.replace("/accounts/0", "").replace(/^\/id:/, "/accountId:"));
      throw new SandboxError(400, named.join("; "));
    }
    if (!account) throw new SandboxError(400, "expected an account object");
    if (exchange.hasAccount(account.id))
      throw new SandboxError(409, `/accountId: account "${account.id}" exists already`);
    if (keys.get(account.apiKey)) throw new SandboxError(409, "/apiKey: is used by another account");
    const balances =
      account.balances ??
      Object.fromEntries(this.assets().map((asset) => [asset, this.deps.generousBalance]));
    exchange.addAccount(account.id, balances);
    const added = { id: account.id, apiKey: account.apiKey, apiSecret: account.apiSecret };
    this.registerKey(added);
    this.added = [...this.added, added];
    await this.persist();
    return { id: account.id, balances: exchange.balances(account.id) };
  }

  balances(accountId: string) {
    this.requireAccount(accountId);
    return { id: accountId, balances: this.deps.exchange.balances(accountId) };
  }

  /** Adds `amount` of `asset` to the account's free balance. */
  async deposit(accountId: string, asset: string, amount: string) {
    this.requireAccount(accountId);
    this.deps.exchange.deposit(accountId, asset, amount);
    await this.persist();
    return this.balances(accountId);
  }

  /** Sets the account's free balance of `asset` (what open orders lock stays locked). */
  async setBalance(accountId: string, asset: string, free: string) {
    this.requireAccount(accountId);
    try {
      this.deps.exchange.setFreeBalance(accountId, asset, free);
    } catch (error) {
      if (error instanceof RangeError) throw new SandboxError(409, error.message);
      throw error;
    }
    await this.persist();
    return this.balances(accountId);
  }

  private requireAccount(accountId: string): void {
    if (!this.deps.exchange.hasAccount(accountId)) throw new SandboxError(404, `no account "${accountId}"`);
  }

  private assets(): string[] {
    const { exchange } = this.deps;
    const assets = exchange.symbols().flatMap((symbol) => {
      const config = exchange.symbolConfig(symbol);
      return [config.baseAsset, config.quoteAsset];
    });
    return [...new Set(assets)].sort();
  }

  // ---- snapshots ----

  snapshot(): Promise<{ id: string; takenAt: number }> {
    return this.serially(async () => {
      if (this.snapshots.size + this.files.size >= MAX_SNAPSHOTS) {
        throw new SandboxError(409, `${MAX_SNAPSHOTS} snapshots are kept at most: delete one first`);
      }
      const id = `s${this.nextSnapshot++}`;
      const { storage } = this.deps;
      if (storage) {
        const file = { id, takenAt: this.deps.clock.now() };
        await storage.takeSnapshot(file);
        this.files.set(id, file);
        return file;
      }
      const snapshot = this.take(id);
      this.snapshots.set(snapshot.id, snapshot);
      return { id: snapshot.id, takenAt: snapshot.takenAt };
    });
  }

  deleteSnapshot(id: string): void {
    const file = this.files.get(id);
    if (file) {
      this.deps.storage?.deleteSnapshot(file);
      this.files.delete(id);
    } else if (!this.snapshots.delete(id)) throw new SandboxError(404, `no snapshot "${id}"`);
  }

  /** Brings back the snapshot: the exchange, the clock's time, the market, the added accounts. */
  restore(id: string): Promise<{ id: string; time: number }> {
    return this.serially(async () => {
      const { storage } = this.deps;
      const file = this.files.get(id);
      if (storage && file) {
        const time = await this.bringBackFile((adopt) => storage.restoreSnapshot(file, adopt));
        return { id, time };
      }
      const snapshot = this.snapshots.get(id);
      if (!snapshot) throw new SandboxError(404, `no snapshot "${id}"`);
      this.bringBack(snapshot);
      return { id, time: snapshot.takenAt };
    });
  }

  /** Back to the exchange as it was when the server started (snapshots are kept). */
  reset(): Promise<{ time: number }> {
    return this.serially(async () => {
      const { storage } = this.deps;
      if (storage) return { time: await this.bringBackFile((adopt) => storage.restoreInitial(adopt)) };
      const initial = this.initial as Snapshot;
      this.bringBack(initial);
      return { time: initial.takenAt };
    });
  }

  private take(id: string): Snapshot {
    return {
      id,
      takenAt: this.deps.clock.now(),
      exchange: exportExchange(this.deps.exchange),
      market: this.market?.saved(),
      accounts: [...this.added],
    };
  }

  private bringBack(snapshot: Snapshot): void {
    const { exchange, clock, keys, rateLimiter } = this.deps;
    const state = importExchange(snapshot.exchange, this.deps.retentionMs);
    const wasRunning = this.market?.running === true;
    this.market?.stop();
    exchange.replaceState(state);
    clock.rewindTo(snapshot.takenAt);
    rateLimiter.reset();
    for (const account of this.added) keys.remove(account.apiKey);
    for (const account of snapshot.accounts) this.registerKey(account);
    this.added = [...snapshot.accounts];
    // The market's state as it was; it runs on if it ran (the initial snapshot: it starts anew).
    this.market?.load(snapshot.market);
    if (wasRunning) this.market?.start();
  }

  /**
   * With a state database: the market stops, `replace` swaps the file and hands over its meta
   * values, from which the clock, the added accounts and the market are taken; the clock's time.
   */
  private async bringBackFile(replace: (adopt: Adopt) => Promise<void>): Promise<number> {
    const { clock, keys, rateLimiter } = this.deps;
    const wasRunning = this.market?.running === true;
    this.market?.stop();
    await replace((metaValue) => {
      const saved = readSavedSandbox(metaValue(SANDBOX_META_KEY));
      const lastEvent = this.deps.exchange.internalState().lastEventTime;
      clock.rewindTo(Math.max(saved?.clock.time ?? lastEvent, lastEvent));
      rateLimiter.reset();
      for (const account of this.added) keys.remove(account.apiKey);
      const accounts = saved?.accounts ?? [];
      for (const account of accounts) this.registerKey(account);
      this.added = [...accounts];
      this.market?.load(saved?.market ?? undefined);
    });
    if (wasRunning && this.market && !this.market.running) this.market.start();
    return clock.now();
  }

  // ---- internals ----

  private registerKey(account: AddedAccount): void {
    const known = this.deps.keys.get(account.apiKey);
    if (known) {
      if (known.accountId !== account.id)
        this.deps.logger.warn(
          `The sandbox's account "${account.id}" lost its key ${account.apiKey}: it is another account's now.`,
        );
      return;
    }
    this.deps.keys.add({ apiKey: account.apiKey, apiSecret: account.apiSecret, accountId: account.id });
  }

  private mayPlaceOrder(accountId: string, now: number): boolean {
    try {
      this.deps.rateLimiter.checkOrderRate(accountId, now);
    } catch {
      return false;
    }
    this.deps.rateLimiter.countOrder(accountId, now);
    return true;
  }

  private serially<T>(operation: () => T | Promise<T>): Promise<T> {
    const run = this.queue.then(operation);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private persist(): Promise<void> {
    return this.deps.storage?.saveKeptMeta() ?? Promise.resolve();
  }
}
