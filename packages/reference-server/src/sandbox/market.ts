/**
 * The simulated market: on a fixed grid of sandbox time (a tick, 1 s by default) each symbol's
 * fair price moves by its model (price-model.ts), and the participants (participants.ts) refresh
 * their quotes and take, through the engine. Ticks run in order whoever drives them: the clock's
 * own run (a timer per due tick, catching up in slices that leave the event loop to requests in
 * between) or an advance of the clock, which runs the ticks it passes, each at its own time. The
 * clock is held so that it never reads more than a tick past the ticks run: at a rate the machine
 * cannot follow, time slows to the market's pace rather than leave it behind.
 *
 * Same seed, same ticks, same market: the price path and every participant's choice come from
 * generators seeded from the server's seed and kept in the market's state (saved with `--state`).
 */
import { type Exchange, MARKET_MAKER_ID } from "../engine/index.js";
import { Random } from "../engine/random.js";
import type { Logger } from "../logger.js";
import type { SandboxClock } from "./clock.js";
import { poisson } from "./draws.js";
import {
  type ActivityCounts,
  MAKERS,
  PARTICIPANT_BALANCE,
  PARTICIPANT_IDS,
  type Participants,
  refreshMaker,
  type SymbolView,
  symbolView,
  TAKER_IDS,
  takeOnce,
} from "./participants.js";
import { FairPrices, type FairPricesState, type PriceModel } from "./price-model.js";

export interface MarketSettings {
  model: PriceModel;
  /** Sandbox ms between ticks (default 1000). */
  tickMs: number;
  /** Taker orders per symbol and minute of sandbox time, on average (default 30). */
  takersPerMinute: number;
}

export const DEFAULT_TICK_MS = 1000;
export const DEFAULT_TAKERS_PER_MINUTE = 30;

/** The market's state: what a restart (or a restore) needs to go on exactly where it was. */
export interface MarketState {
  running: boolean;
  /** Sandbox time of the market's first start (a replayed series starts there). */
  startedAt: number;
  /** Sandbox time of the next tick to run. */
  nextTick: number;
  /** The participants' generator. */
  act: number;
  path: FairPricesState;
  counts: ActivityCounts & { ticks: number };
}

export interface MarketDeps {
  exchange: Exchange;
  clock: SandboxClock;
  seed: number;
  /** May the account place one more order now (order-rate limits)? Counts it when it may. */
  gate(accountId: string, now: number): boolean;
  /** True while changes cannot be kept (the state database failed): the participants wait. */
  paused(): boolean;
  logger: Logger;
}

/** Real ms a slice of ticks may take before the event loop gets a turn. */
const SLICE_MS = 8;

export class SimulatedMarket {
  private state: MarketState | undefined;
  private prices: FairPrices | undefined;
  private act: Random | undefined;
  private readonly views: SymbolView[];
  private cancelTimer: (() => void) | undefined;
  private closed = false;
  /** Why the market stopped by itself (an internal error), if it did. */
  private failure: string | undefined;

  constructor(
    private readonly settings: MarketSettings,
    private readonly deps: MarketDeps,
    saved?: MarketState,
  ) {
    this.views = deps.exchange.symbols().map((symbol) => symbolView(deps.exchange.symbolConfig(symbol)));
    if (saved) this.load(saved);
  }

  get running(): boolean {
    return this.state?.running === true && !this.closed;
  }

  /** Starts the market (the first start sets up its participants), or resumes it. */
  start(): void {
    if (this.closed) return;
    if (!this.state) this.firstStart();
    (this.state as MarketState).running = true;
    this.failure = undefined;
    this.deps.clock.holdBy(() => this.horizon());
    this.schedule();
  }

  /** Stops the participants; their resting orders stay in the books. */
  stop(): void {
    if (this.state) this.state.running = false;
    this.deps.clock.holdBy(undefined);
    this.cancelTimer?.();
    this.cancelTimer = undefined;
  }

  close(): void {
    this.stop();
    this.closed = true;
  }

  /** The clock moved by other means (a new rate, an advance): the next tick's timer is set again. */
  reschedule(): void {
    this.cancelTimer?.();
    this.cancelTimer = undefined;
    this.schedule();
  }

  /** The sandbox time up to which the clock may run: a tick past the ticks run. */
  horizon(): number {
    const state = this.state;
    return state ? state.nextTick + this.settings.tickMs : Number.POSITIVE_INFINITY;
  }

  /**
   * Runs the ticks due up to `time`, at most `budgetMs` of real time; true once none is left.
   * With `stepClock` the clock is moved to each tick's time first (an advance).
   */
  runUntil(time: number, budgetMs: number, stepClock: boolean): boolean {
    const state = this.state;
    if (!state?.running) return true;
    const deadline = performance.now() + budgetMs;
    while (state.nextTick <= time) {
      if (stepClock) this.deps.clock.advanceTo(state.nextTick);
      try {
        this.tick(state.nextTick);
      } catch (error) {
        this.failure = `the simulated market stopped at ${new Date(state.nextTick).toISOString()}: ${(error as Error).message}`;
        this.deps.logger.error(this.failure);
        this.stop();
        return true;
      }
      state.nextTick += this.settings.tickMs;
      if (performance.now() >= deadline) return state.nextTick > time;
    }
    return true;
  }

  /** Runs every tick up to `time`, moving the clock along, a slice per turn of the event loop. */
  async advanceTo(time: number): Promise<void> {
    while (!this.runUntil(time, SLICE_MS, true)) await nextTurn();
    this.deps.clock.advanceTo(time);
    this.reschedule();
  }

  /** What a restart needs (undefined before the first start). */
  saved(): MarketState | undefined {
    const state = this.state;
    if (!state || !this.prices || !this.act) return undefined;
    return { ...state, act: this.act.state, path: this.prices.state(), counts: { ...state.counts } };
  }

  status() {
    const state = this.saved();
    const model = this.settings.model;
    return {
      running: this.running,
      model:
        model.kind === "random-walk"
          ? { kind: model.kind, volatility: model.volatility, drift: model.drift }
          : {
              kind: model.kind,
              symbols: model.series.map((series) => series.symbol ?? "*"),
              volatility: model.walk.volatility,
              drift: model.walk.drift,
            },
      tickMs: this.settings.tickMs,
      takersPerMinute: this.settings.takersPerMinute,
      startedAt: state?.startedAt ?? null,
      nextTick: state?.nextTick ?? null,
      fairPrices: state ? state.path.prices : {},
      activity: state?.counts ?? { ticks: 0, orders: 0, cancels: 0, takes: 0, refused: 0 },
      stoppedBecause: this.failure ?? null,
    };
  }

  /** Takes another state (a restore): undefined forgets the market's start. */
  load(saved: MarketState | undefined): void {
    this.cancelTimer?.();
    this.cancelTimer = undefined;
    if (!saved) {
      this.state = undefined;
      this.prices = undefined;
      this.act = undefined;
      this.deps.clock.holdBy(undefined);
      return;
    }
    this.state = { ...saved, counts: { ...saved.counts } };
    this.prices = new FairPrices(this.settings.model, saved.path);
    this.act = new Random(saved.act);
    if (saved.running) this.start();
    else this.deps.clock.holdBy(undefined);
  }

  private firstStart(): void {
    const { exchange, clock, seed } = this.deps;
    const startedAt = clock.now();
    exchange.runAt(startedAt, () => {
      this.openParticipants();
      // The seeded ladder never moves: the participants' quotes take its place.
      if (exchange.hasAccount(MARKET_MAKER_ID)) {
        for (const view of this.views) {
          if (exchange.openOrders(MARKET_MAKER_ID, view.symbol).length > 0)
            exchange.cancelAllOrders(MARKET_MAKER_ID, view.symbol);
        }
      }
    });
    const starts = Object.fromEntries(this.views.map((view) => [view.symbol, this.startingPrice(view)]));
    this.prices = FairPrices.initial(this.settings.model, seed, starts);
    this.act = new Random((seed ^ 0x3c6ef372) >>> 0);
    this.state = {
      running: false,
      startedAt,
      nextTick: startedAt + this.settings.tickMs,
      act: this.act.state,
      path: this.prices.state(),
      counts: { ticks: 0, orders: 0, cancels: 0, takes: 0, refused: 0 },
    };
    // Every maker quotes at once, so the books are never empty between the ladder's end and the first tick.
    const participants = this.participants(startedAt);
    exchange.runAt(startedAt, () => {
      for (const view of this.views) {
        for (const maker of MAKERS) refreshMaker(participants, maker, view, starts[view.symbol] as number);
      }
    });
  }

  private participants(time: number): Participants {
    const state = this.state as MarketState;
    return {
      exchange: this.deps.exchange,
      random: this.act as Random,
      gate: (accountId) => this.deps.gate(accountId, time),
      counts: state.counts,
      levelCap: this.levelCap(),
    };
  }

  private openParticipants(): void {
    const { exchange } = this.deps;
    const assets = new Set(this.views.flatMap((view) => [view.config.baseAsset, view.config.quoteAsset]));
    const balances = Object.fromEntries([...assets].sort().map((asset) => [asset, PARTICIPANT_BALANCE]));
    for (const id of PARTICIPANT_IDS) {
      if (!exchange.hasAccount(id)) exchange.addAccount(id, balances);
    }
  }

  /** Where the fair price starts: the last trade, else the middle of the book, else the reference price. */
  private startingPrice(view: SymbolView): number {
    const last = Number(this.deps.exchange.tickerPrice(view.symbol).price);
    if (last > 0) return last;
    const ticker = this.deps.exchange.bookTicker(view.symbol);
    const [bid, ask] = [Number(ticker.bidPrice), Number(ticker.askPrice)];
    if (bid > 0 && ask > 0) return (bid + ask) / 2;
    return Number(view.config.referencePrice);
  }

  private tick(time: number): void {
    const state = this.state as MarketState;
    const prices = this.prices as FairPrices;
    const act = this.act as Random;
    const { exchange } = this.deps;
    const participants = this.participants(time);
    const paused = this.deps.paused();
    const takersPerTick = (this.settings.takersPerMinute * this.settings.tickMs) / 60_000;
    exchange.runAt(time, () => {
      for (const view of this.views) {
        const fair = prices.step(view.symbol, this.settings.tickMs, time - state.startedAt);
        if (paused) continue;
        for (const maker of MAKERS) {
          if (act.next() < maker.refresh) refreshMaker(participants, maker, view, fair);
        }
        const takers = poisson(act, takersPerTick);
        for (let i = 0; i < takers; i += 1) takeOnce(participants, act.pick(TAKER_IDS), view, fair);
      }
    });
    state.counts.ticks += 1;
  }

  /** Levels per side and symbol a maker may keep within its open-order limits. */
  private levelCap(): number {
    const perAccount = this.deps.exchange.exchangeFilters()[0]?.maxNumOrders ?? 200;
    const perSymbol = Math.min(...this.views.map((view) => view.rules.maxNumOrders ?? 200));
    const symbols = Math.max(1, this.views.length);
    // A tenth kept free: a refresh places a level before the one it replaces is gone.
    return Math.max(1, Math.floor(Math.min((perAccount * 0.9) / symbols, perSymbol * 0.9) / 2));
  }

  private schedule(): void {
    if (this.cancelTimer || !this.running) return;
    const state = this.state as MarketState;
    const { clock } = this.deps;
    const now = clock.now();
    if (state.nextTick <= now) {
      const handle = setImmediate(() => this.pump());
      this.cancelTimer = () => clearImmediate(handle);
    } else if (clock.rate > 0) {
      const handle = setTimeout(
        () => this.pump(),
        Math.max(1, Math.ceil((state.nextTick - now) / clock.rate)),
      );
      handle.unref();
      this.cancelTimer = () => clearTimeout(handle);
    }
    // Paused clock: the ticks run when an advance passes them.
  }

  private pump(): void {
    this.cancelTimer = undefined;
    this.runUntil(this.deps.clock.now(), SLICE_MS, false);
    this.schedule();
  }
}

function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
