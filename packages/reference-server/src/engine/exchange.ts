import { invalidSymbol, unknownAccount } from "../errors.js";
import { Account, type AccountOptions } from "./accounts.js";
import { type KlineRow, type KlinesQuery, klines } from "./candles.js";
import { generatedClientOrderId } from "./client-order-ids.js";
import type { EngineContext } from "./context.js";
import * as dec from "./decimal.js";
import type { History } from "./history.js";
import type { Market } from "./market.js";
import * as marketData from "./market-data.js";
import * as orderFlow from "./order-flow.js";
import * as orderOps from "./order-ops.js";
import type { PageQuery } from "./paging.js";
import type { NewOrderParams } from "./params.js";
import { randomClientOrderId } from "./random.js";
import { type ExchangeState, type LiveSnapshot, liveSnapshot } from "./state.js";
import { exchangeInfoSymbol, type SymbolConfig } from "./symbols.js";
import type { TickerType } from "./types.js";
import type { CancelReport, FullResponse, OrderResponse } from "./views.js";

export interface ExchangeOptions {
  symbols?: readonly SymbolConfig[];
  /** Milliseconds since the epoch; defaults to Date.now. */
  now?: () => number;
  /** Seeds liquidity and generated client order ids; same seed and clock → same state. */
  seed?: number;
  /** false: start with empty books and no market maker. Default true. */
  liquidity?: boolean;
  /** Open orders one account may have across all symbols (EXCHANGE_MAX_NUM_ORDERS). Default 200. */
  maxOpenOrdersPerAccount?: number;
  /** Commission rates as decimal fractions; default 0.001 (0.1 %) for both. */
  commission?: { maker?: string; taker?: string };
  /** Where closed orders and trades go; default a MemoryHistory that keeps everything. */
  history?: History;
}

export interface BalanceResponse {
  asset: string;
  free: string;
  locked: string;
}

/** GET /api/v3/account. */
export interface AccountInformation {
  makerCommission: number;
  takerCommission: number;
  buyerCommission: number;
  sellerCommission: number;
  commissionRates: { maker: string; taker: string; buyer: string; seller: string };
  canTrade: boolean;
  canWithdraw: boolean;
  canDeposit: boolean;
  brokered: boolean;
  requireSelfTradePrevention: boolean;
  preventSor: boolean;
  updateTime: number;
  accountType: "SPOT";
  balances: BalanceResponse[];
  permissions: "SPOT"[];
  uid: number;
}

export interface ExchangeFilter {
  filterType: "EXCHANGE_MAX_NUM_ORDERS";
  maxNumOrders: number;
}

const BALANCE_DECIMALS = 8;

/** A commission rate (a fraction) in whole basis points, as the live API's account shows it. */
function basisPoints(rate: dec.Decimal): number {
  return Number((rate * 10_000n) / dec.ONE);
}

function isZeroText(amount: string): boolean {
  return /^0(\.0*)?$/.test(amount);
}

/** An in-memory spot exchange: accounts, books, matching and market data for a set of symbols. */
export class Exchange {
  private state: ExchangeState;
  /** Counts replaceState calls: a version read before a swap never matches one read after it. */
  private generation = 0;
  private readonly clock: () => number;
  private pinnedTime: number | undefined;
  private ctx: EngineContext;

  constructor(state: ExchangeState, now: () => number = Date.now) {
    this.state = state;
    this.clock = now;
    this.ctx = this.contextFor(state);
  }

  /** Swaps in another live state (the state database reloads the committed one after a failed commit). */
  replaceState(state: ExchangeState): void {
    this.state = state;
    this.ctx = this.contextFor(state);
    this.generation += 1;
  }

  /** Which live state is served; it changes when the state is swapped (see replaceState). */
  get stateGeneration(): number {
    return this.generation;
  }

  /** A number that changes whenever the symbol's book changes (depth's lastUpdateId). */
  bookVersion(symbol: string): number {
    return this.market(symbol).lastUpdateId;
  }

  /** A number that changes whenever the symbol trades (the next trade id). */
  tradeVersion(symbol: string): number {
    return this.market(symbol).nextTradeId;
  }

  private contextFor(state: ExchangeState): EngineContext {
    return {
      ledger: state.ledger,
      commission: state.commission,
      maxOpenOrdersPerAccount: state.maxOpenOrdersPerAccount,
      journal: state.journal,
      history: state.history,
      account: (id) => this.requireAccount(id),
      newClientOrderId: () => randomClientOrderId(state.random),
      clientOrderIdFor: (orderId) => generatedClientOrderId(state.random, orderId),
    };
  }

  /** The live state as plain JSON (history excluded): for comparisons in tests and diagnostics. */
  toJSON(): LiveSnapshot {
    return liveSnapshot(this.state);
  }

  /** The internal state, for the state database (loading, saving changes, consistency checks). */
  internalState(): ExchangeState {
    return this.state;
  }

  /** Current exchange time; never earlier than the last recorded event. */
  time(): number {
    return Math.max(this.pinnedTime ?? this.clock(), this.state.lastEventTime);
  }

  // Times of state changes never go backwards, so trades and orders stay sorted by time.
  private stamp(): number {
    this.state.lastEventTime = this.time();
    return this.state.lastEventTime;
  }

  /** Runs `action` with the clock pinned to `time` (used to seed a history in the past). */
  runAt<T>(time: number, action: () => T): T {
    const previous = this.pinnedTime;
    this.pinnedTime = time;
    try {
      return action();
    } finally {
      this.pinnedTime = previous;
    }
  }

  // ---- symbols and accounts ----

  symbols(): string[] {
    return [...this.state.markets.keys()];
  }

  hasSymbol(symbol: string): boolean {
    return this.state.markets.has(symbol);
  }

  /** The exchangeInfo entry of a symbol (-1121 when unknown). */
  symbolInfo(symbol: string): ReturnType<typeof exchangeInfoSymbol> {
    return exchangeInfoSymbol(this.market(symbol).config);
  }

  symbolConfig(symbol: string): SymbolConfig {
    return structuredClone(this.market(symbol).config);
  }

  exchangeFilters(): ExchangeFilter[] {
    return [{ filterType: "EXCHANGE_MAX_NUM_ORDERS", maxNumOrders: this.state.maxOpenOrdersPerAccount }];
  }

  addAccount(id: string, balances: Record<string, string> = {}, options: AccountOptions = {}): void {
    if (this.state.accounts.has(id)) throw new Error(`Account "${id}" already exists`);
    const amounts = Object.entries(balances).map(([asset, amount]) => [asset, dec.parse(amount)] as const);
    this.change(() => {
      const account = new Account(id, options);
      this.state.accounts.set(id, account);
      this.state.journal.account(account);
      for (const [asset, amount] of amounts) this.state.ledger.deposit(account, asset, amount);
    });
  }

  hasAccount(id: string): boolean {
    return this.state.accounts.has(id);
  }

  accountIds(): string[] {
    return [...this.state.accounts.keys()];
  }

  deposit(accountId: string, asset: string, amount: string): void {
    const account = this.requireAccount(accountId);
    const value = dec.parse(amount);
    this.change(() => this.state.ledger.deposit(account, asset, value));
  }

  /**
   * Sets the account's free balance of `asset` (what open orders lock is left as it is): the
   * difference is deposited or taken out. Throws a RangeError for a negative amount.
   */
  setFreeBalance(accountId: string, asset: string, amount: string): void {
    const account = this.requireAccount(accountId);
    const target = dec.parse(amount);
    const free = account.free(asset);
    if (target === free) return;
    this.change(() => {
      if (target > free) this.state.ledger.deposit(account, asset, target - free);
      else this.state.ledger.withdraw(account, asset, free - target);
    });
  }

  /** Free and locked balance per asset, sorted by asset. */
  balances(accountId: string): BalanceResponse[] {
    const account = this.requireAccount(accountId);
    return [...account.balances.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([asset, b]) => ({
        asset,
        free: dec.format(b.free, BALANCE_DECIMALS),
        locked: dec.format(b.locked, BALANCE_DECIMALS),
      }));
  }

  /**
   * The account as the live API's `GET /api/v3/account` shows it: commission rates, permissions and
   * balances (free and what open orders lock), sorted by asset.
   */
  accountInformation(accountId: string, options: { omitZeroBalances?: boolean } = {}): AccountInformation {
    const account = this.requireAccount(accountId);
    const balances = this.balances(accountId).filter(
      (b) => !options.omitZeroBalances || !(isZeroText(b.free) && isZeroText(b.locked)),
    );
    const { maker, taker } = this.state.commission;
    return {
      makerCommission: basisPoints(maker),
      takerCommission: basisPoints(taker),
      buyerCommission: 0,
      sellerCommission: 0,
      commissionRates: {
        maker: dec.format(maker, BALANCE_DECIMALS),
        taker: dec.format(taker, BALANCE_DECIMALS),
        buyer: dec.format(0n, BALANCE_DECIMALS),
        seller: dec.format(0n, BALANCE_DECIMALS),
      },
      canTrade: true,
      canWithdraw: false,
      canDeposit: false,
      brokered: false,
      requireSelfTradePrevention: false,
      preventSor: false,
      updateTime: account.updateTime,
      accountType: "SPOT",
      balances,
      permissions: ["SPOT"],
      uid: this.accountIds().indexOf(accountId) + 1,
    };
  }

  /** Commission collected so far per asset. */
  feesCollected(): Record<string, string> {
    const entries = [...this.state.ledger.fees.entries()].sort(([a], [b]) => a.localeCompare(b));
    return Object.fromEntries(entries.map(([asset, fee]) => [asset, dec.format(fee, BALANCE_DECIMALS)]));
  }

  // ---- orders (each call is scoped to one account) ----

  /** Places an order; the FULL response (shape it with `shapeNewOrderResponse`). */
  newOrder(accountId: string, params: NewOrderParams): FullResponse {
    const account = this.requireAccount(accountId);
    const market = this.market(params.symbol);
    return this.change(() => orderFlow.placeOrder(this.ctx, market, account, params, this.stamp()));
  }

  cancelOrder(accountId: string, params: orderOps.CancelOrderParams): CancelReport {
    const account = this.requireAccount(accountId);
    const market = this.market(params.symbol);
    return this.change(() => orderOps.cancelOrder(this.ctx, account, market, params, this.stamp()));
  }

  cancelAllOrders(accountId: string, symbol: string): CancelReport[] {
    const account = this.requireAccount(accountId);
    const market = this.market(symbol);
    return this.change(() => orderOps.cancelAllOrders(this.ctx, account, market, this.stamp()));
  }

  queryOrder(accountId: string, lookup: orderOps.OrderLookup): OrderResponse {
    const account = this.requireAccount(accountId);
    return orderOps.queryOrder(this.state.history, account, this.market(lookup.symbol), lookup);
  }

  openOrders(accountId: string, symbol?: string): OrderResponse[] {
    const markets = symbol === undefined ? [...this.state.markets.values()] : [this.market(symbol)];
    return orderOps.openOrders(this.requireAccount(accountId), markets);
  }

  allOrders(accountId: string, query: orderOps.AllOrdersQuery): OrderResponse[] {
    const account = this.requireAccount(accountId);
    return orderOps.allOrders(this.state.history, account, this.market(query.symbol), query);
  }

  myTrades(accountId: string, query: orderOps.MyTradesQuery): orderOps.MyTradeResponse[] {
    const account = this.requireAccount(accountId);
    return orderOps.myTrades(this.state.history, account, this.market(query.symbol), query);
  }

  // ---- market data ----

  /** Candles built from the symbol's trades (the live API's klines; see candles.ts). */
  klines(symbol: string, query: KlinesQuery): KlineRow[] {
    const market = this.market(symbol);
    const history = this.state.history;
    const reader = {
      candles: (level: number, from: number, to: number) => history.candles(symbol, level, from, to),
      candleBefore: (level: number, time: number) => history.candleBefore(symbol, level, time),
      firstCandle: (level: number) => history.firstCandle(symbol, level),
    };
    return klines(reader, market.formats, this.time(), query);
  }

  depth(symbol: string, limit?: number): marketData.DepthResponse {
    return marketData.depth(this.market(symbol), limit);
  }

  trades(symbol: string, limit?: number): marketData.TradeResponse[] {
    return marketData.recentTrades(this.state.history, this.market(symbol), limit);
  }

  historicalTrades(
    symbol: string,
    query: { fromId?: number; limit?: number } = {},
  ): marketData.TradeResponse[] {
    return marketData.historicalTrades(this.state.history, this.market(symbol), query);
  }

  aggTrades(symbol: string, query: PageQuery = {}): marketData.AggTradeResponse[] {
    return marketData.aggTrades(this.state.history, this.market(symbol), query);
  }

  avgPrice(symbol: string): marketData.AvgPriceResponse {
    return marketData.avgPrice(this.market(symbol), this.time());
  }

  bookTicker(symbol: string): marketData.BookTickerResponse {
    return marketData.bookTicker(this.market(symbol));
  }

  tickerPrice(symbol: string): marketData.PriceTickerResponse {
    return marketData.priceTicker(this.market(symbol));
  }

  ticker24hr(symbol: string, type?: "FULL"): marketData.FullTickerResponse;
  ticker24hr(symbol: string, type: "MINI"): marketData.MiniTickerResponse;
  ticker24hr(symbol: string, type: TickerType): marketData.FullTickerResponse | marketData.MiniTickerResponse;
  ticker24hr(
    symbol: string,
    type: TickerType = "FULL",
  ): marketData.FullTickerResponse | marketData.MiniTickerResponse {
    return marketData.ticker24hr(this.state.history, this.market(symbol), this.time(), type);
  }

  /**
   * Runs a state change and hands what it changed to the history, also when it throws (a rejection
   * changes nothing, so then there is nothing to hand over).
   */
  private change<T>(action: () => T): T {
    try {
      return action();
    } finally {
      const journal = this.state.journal;
      if (!journal.isEmpty()) {
        const time = this.time();
        for (const account of journal.balanceAccounts()) account.updateTime = time;
        this.state.history.record(journal.drain(), time);
      }
    }
  }

  private market(symbol: string): Market {
    const market = this.state.markets.get(symbol);
    if (!market) throw invalidSymbol();
    return market;
  }

  private requireAccount(id: string): Account {
    const account = this.state.accounts.get(id);
    if (!account) throw unknownAccount();
    return account;
  }
}
