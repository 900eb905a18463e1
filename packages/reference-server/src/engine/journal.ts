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
  private readonly orders = new UniqueList<Order>();
  private trades: Trade[] = [];
  private readonly aggTrades = new UniqueList<AggTrade>();
  private balances = new Map<Account, Set<string>>();
  private readonly fees = new UniqueList<string>();
  private readonly deposits = new UniqueList<string>();
  private accounts: Account[] = [];
  private readonly markets = new UniqueList<Market>();

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

  /** The accounts whose balances the record holds changes of. */
  balanceAccounts(): Iterable<Account> {
    return this.balances.keys();
  }

  isEmpty(): boolean {
    return (
      this.orders.size === 0 &&
      this.balances.size === 0 &&
      this.accounts.length === 0 &&
      this.markets.size === 0
    );
  }

  /**
   * The changes recorded since the last call, which starts a new, empty record. Runs once per
   * operation: what was not touched is one shared empty list, sets are emptied only when they
   * hold something, and the balances touched become a list only when someone reads them (the
   * state database does; the in-memory history does not).
   */
  drain(): ChangeSet {
    const touched = this.balances.size === 0 ? undefined : this.balances;
    const changes = new DrainedChanges(
      this.orders.take(),
      this.trades.length === 0 ? NONE : this.trades,
      this.aggTrades.take(),
      touched,
      this.fees.take(),
      this.deposits.take(),
      this.accounts.length === 0 ? NONE : this.accounts,
      this.markets.take(),
    );
    if (this.trades.length > 0) this.trades = [];
    if (this.accounts.length > 0) this.accounts = [];
    if (touched) this.balances = new Map();
    return changes;
  }
}

/** A drained record; its balance list is made from the touched balances when first read. */
class DrainedChanges implements ChangeSet {
  private balanceList: readonly { account: Account; asset: string }[] | undefined;

  constructor(
    readonly orders: readonly Order[],
    readonly trades: readonly Trade[],
    readonly aggTrades: readonly AggTrade[],
    private readonly touched: ReadonlyMap<Account, ReadonlySet<string>> | undefined,
    readonly fees: readonly string[],
    readonly deposits: readonly string[],
    readonly accounts: readonly Account[],
    readonly markets: readonly Market[],
  ) {}

  get balances(): readonly { account: Account; asset: string }[] {
    if (this.balanceList === undefined) {
      const list: { account: Account; asset: string }[] = [];
      for (const [account, assets] of this.touched ?? [])
        for (const asset of assets) list.push({ account, asset });
      this.balanceList = list.length === 0 ? NONE : list;
    }
    return this.balanceList;
  }
}

/** What a drained record holds of anything it did not touch (frozen: shared by every record). */
const NONE: readonly never[] = Object.freeze([]);

/** Items past which a UniqueList looks items up in a set instead of its list. */
const SEARCHED_UP_TO = 8;

/**
 * Distinct items in the order first added, handed over as a list. An operation touches an order
 * or two, a market, an aggregate trade: a few items, found faster by a look through the list than
 * in a set, and handed over as that list itself (a set costs a new table on every clear and a
 * copy to become a list). Past SEARCHED_UP_TO items a set is built, so a large operation (a
 * market order through many levels) stays linear.
 */
class UniqueList<T> {
  private items: T[] = [];
  private index: Set<T> | undefined;

  get size(): number {
    return this.items.length;
  }

  add(item: T): void {
    if (this.index !== undefined) {
      if (this.index.has(item)) return;
      this.index.add(item);
    } else {
      if (this.items.includes(item)) return;
      if (this.items.length === SEARCHED_UP_TO) this.index = new Set([...this.items, item]);
    }
    this.items.push(item);
  }

  /** The items, oldest first; the list starts empty again. */
  take(): readonly T[] {
    if (this.items.length === 0) return NONE;
    const taken = this.items;
    this.items = [];
    this.index = undefined;
    return taken;
  }
}
