/**
 * What one exchange operation changed: the orders it created or touched, the trades it made,
 * the balances it moved and the counters it advanced. The exchange hands each operation's
 * changes to its history (memory, or the state database), so only the changes are ever written.
 */
import type { Account } from "./accounts.js";
import type { Market } from "./market.js";
import type { AggTrade, Order, Trade } from "./types.js";

export interface ChangeSet {
  readonly orders: readonly Order[];
  readonly trades: readonly Trade[];
  readonly aggTrades: readonly AggTrade[];
  readonly balances: readonly { account: Account; asset: string }[];
  /** Assets whose collected fees changed. */
  readonly fees: readonly string[];
  /** Assets whose deposit total changed. */
  readonly deposits: readonly string[];
  readonly accounts: readonly Account[];
  /** Markets whose counters (next ids, lastUpdateId) may have moved. */
  readonly markets: readonly Market[];
}

export class Journal {
  private orders = new Set<Order>();
  private trades: Trade[] = [];
  private aggTrades = new Set<AggTrade>();
  private balances = new Map<Account, Set<string>>();
  private fees = new Set<string>();
  private deposits = new Set<string>();
  private accounts: Account[] = [];
  private markets = new Set<Market>();

  order(market: Market, order: Order): void {
    this.orders.add(order);
    this.markets.add(market);
  }

  trade(market: Market, trade: Trade): void {
    this.trades.push(trade);
    this.markets.add(market);
  }

  aggTrade(aggTrade: AggTrade): void {
    this.aggTrades.add(aggTrade);
  }

  market(market: Market): void {
    this.markets.add(market);
  }

  balance(account: Account, asset: string): void {
    let assets = this.balances.get(account);
    if (!assets) {
      assets = new Set();
      this.balances.set(account, assets);
    }
    assets.add(asset);
  }

  fee(asset: string): void {
    this.fees.add(asset);
  }

  deposit(asset: string): void {
    this.deposits.add(asset);
  }

  account(account: Account): void {
    this.accounts.push(account);
  }

  /** Takes in another record's changes (the state database gathers operations into one batch). */
  add(changes: ChangeSet): void {
    for (const order of changes.orders) this.orders.add(order);
    for (const trade of changes.trades) this.trades.push(trade);
    for (const agg of changes.aggTrades) this.aggTrades.add(agg);
    for (const { account, asset } of changes.balances) this.balance(account, asset);
    for (const asset of changes.fees) this.fees.add(asset);
    for (const asset of changes.deposits) this.deposits.add(asset);
    for (const account of changes.accounts) this.accounts.push(account);
    for (const market of changes.markets) this.markets.add(market);
  }

  isEmpty(): boolean {
    return (
      this.orders.size === 0 &&
      this.balances.size === 0 &&
      this.accounts.length === 0 &&
      this.markets.size === 0
    );
  }

  /** The changes recorded since the last call, which starts a new, empty record. */
  drain(): ChangeSet {
    const changes: ChangeSet = {
      orders: [...this.orders],
      trades: this.trades,
      aggTrades: [...this.aggTrades],
      balances: [...this.balances].flatMap(([account, assets]) =>
        [...assets].map((asset) => ({ account, asset })),
      ),
      fees: [...this.fees],
      deposits: [...this.deposits],
      accounts: this.accounts,
      markets: [...this.markets],
    };
    this.orders = new Set();
    this.trades = [];
    this.aggTrades = new Set();
    this.balances = new Map();
    this.fees = new Set();
    this.deposits = new Set();
    this.accounts = [];
    this.markets = new Set();
    return changes;
  }
}
