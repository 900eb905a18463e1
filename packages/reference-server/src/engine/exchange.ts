import { Account, type AccountOptions, Ledger } from "./accounts.js";
import type { CommissionRates, EngineContext } from "./context.js";
import * as dec from "./decimal.js";
import { invalidSymbol, unknownAccount } from "./errors.js";
import { createMarket, type Market } from "./market.js";
import * as marketData from "./marketData.js";
import * as orderFlow from "./orderFlow.js";
import * as orderOps from "./orderOps.js";
import type { PageQuery } from "./paging.js";
import type { NewOrderParams } from "./params.js";
import { Random, randomClientOrderId } from "./random.js";
import { type ExchangeSnapshot, restoreState, snapshotState } from "./state.js";
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
}

/** The mutable state of an exchange; everything in it is persisted by toJSON. */
export interface ExchangeState {
  readonly markets: Map<string, Market>;
  readonly accounts: Map<string, Account>;
  readonly ledger: Ledger;
  readonly random: Random;
  readonly commission: CommissionRates;
  readonly maxOpenOrdersPerAccount: number;
  lastEventTime: number;
}

export interface BalanceResponse {
  asset: string;
  free: string;
  locked: string;
}

export interface ExchangeFilter {
  filterType: "EXCHANGE_MAX_NUM_ORDERS";
  maxNumOrders: number;
}

const DEFAULT_COMMISSION = "0.001";
const DEFAULT_MAX_OPEN_ORDERS = 200;
const BALANCE_DECIMALS = 8;

export function initialState(options: ExchangeOptions, symbols: readonly SymbolConfig[]): ExchangeState {
  return {
    markets: new Map(symbols.map((config) => [config.symbol, createMarket(config)])),
    accounts: new Map(),
    ledger: new Ledger(),
    random: new Random((options.seed ?? 1) ^ 0x5eed),
    commission: {
      maker: dec.parse(options.commission?.maker ?? DEFAULT_COMMISSION),
      taker: dec.parse(options.commission?.taker ?? DEFAULT_COMMISSION),
    },
    maxOpenOrdersPerAccount: options.maxOpenOrdersPerAccount ?? DEFAULT_MAX_OPEN_ORDERS,
    lastEventTime: 0,
  };
}

/** An in-memory spot exchange: accounts, books, matching and market data for a set of symbols. */
export class Exchange {
  private readonly state: ExchangeState;
  private readonly clock: () => number;
  private pinnedTime: number | undefined;
  private readonly ctx: EngineContext;

  constructor(state: ExchangeState, now: () => number = Date.now) {
    this.state = state;
    this.clock = now;
    this.ctx = {
      ledger: state.ledger,
      commission: state.commission,
      maxOpenOrdersPerAccount: state.maxOpenOrdersPerAccount,
      account: (id) => this.requireAccount(id),
      newClientOrderId: () => randomClientOrderId(state.random),
    };
  }

  static fromJSON(snapshot: ExchangeSnapshot, options: { now?: () => number } = {}): Exchange {
    return new Exchange(restoreState(snapshot), options.now);
  }

  toJSON(): ExchangeSnapshot {
    return snapshotState(this.state);
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
    const account = new Account(id, options);
    this.state.accounts.set(id, account);
    for (const [asset, amount] of Object.entries(balances)) this.deposit(id, asset, amount);
  }

  hasAccount(id: string): boolean {
    return this.state.accounts.has(id);
  }

  accountIds(): string[] {
    return [...this.state.accounts.keys()];
  }

  deposit(accountId: string, asset: string, amount: string): void {
    this.state.ledger.deposit(this.requireAccount(accountId), asset, dec.parse(amount));
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
    return orderFlow.placeOrder(this.ctx, market, account, params, this.stamp());
  }

  cancelOrder(accountId: string, params: orderOps.CancelOrderParams): CancelReport {
    const account = this.requireAccount(accountId);
    return orderOps.cancelOrder(this.ctx, account, this.market(params.symbol), params, this.stamp());
  }

  cancelAllOrders(accountId: string, symbol: string): CancelReport[] {
    const account = this.requireAccount(accountId);
    return orderOps.cancelAllOrders(this.ctx, account, this.market(symbol), this.stamp());
  }

  queryOrder(accountId: string, lookup: orderOps.OrderLookup): OrderResponse {
    return orderOps.queryOrder(this.requireAccount(accountId), this.market(lookup.symbol), lookup);
  }

  openOrders(accountId: string, symbol?: string): OrderResponse[] {
    const markets = symbol === undefined ? [...this.state.markets.values()] : [this.market(symbol)];
    return orderOps.openOrders(this.requireAccount(accountId), markets);
  }

  allOrders(accountId: string, query: orderOps.AllOrdersQuery): OrderResponse[] {
    return orderOps.allOrders(this.requireAccount(accountId), this.market(query.symbol), query);
  }

  myTrades(accountId: string, query: orderOps.MyTradesQuery): orderOps.MyTradeResponse[] {
    return orderOps.myTrades(this.requireAccount(accountId), this.market(query.symbol), query);
  }

  // ---- market data ----

  depth(symbol: string, limit?: number): marketData.DepthResponse {
    return marketData.depth(this.market(symbol), limit);
  }

  trades(symbol: string, limit?: number): marketData.TradeResponse[] {
    return marketData.recentTrades(this.market(symbol), limit);
  }

  historicalTrades(
    symbol: string,
    query: { fromId?: number; limit?: number } = {},
  ): marketData.TradeResponse[] {
    return marketData.historicalTrades(this.market(symbol), query);
  }

  aggTrades(symbol: string, query: PageQuery = {}): marketData.AggTradeResponse[] {
    return marketData.aggTrades(this.market(symbol), query);
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
    return marketData.ticker24hr(this.market(symbol), this.time(), type);
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
