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
  private readonly orders = new Set<Order>();
  private trades: Trade[] = [];
  private readonly aggTrades = new Set<AggTrade>();
  private balances = new Map<Account, Set<string>>();
  private readonly fees = new Set<string>();
  private readonly deposits = new Set<string>();
  private accounts: Account[] = [];
  private readonly markets = new Set<Market>();

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

  /**
   * The changes recorded since the last call, which starts a new, empty record. Runs once per
   * operation: what was not touched is one shared empty list, sets are emptied only when they
   * hold something, and the balances touched become a list only when someone reads them (the
   * state database does; the in-memory history does not).
   */
  drain(): ChangeSet {
    const touched = this.balances.size === 0 ? undefined : this.balances;
    const changes = new DrainedChanges(
      listOf(this.orders),
      this.trades.length === 0 ? NONE : this.trades,
      listOf(this.aggTrades),
      touched,
      listOf(this.fees),
      listOf(this.deposits),
      this.accounts.length === 0 ? NONE : this.accounts,
      listOf(this.markets),
    );
    if (this.trades.length > 0) this.trades = [];
    if (this.accounts.length > 0) this.accounts = [];
    if (touched) this.balances = new Map();
    emptied(this.orders);
    emptied(this.aggTrades);
    emptied(this.fees);
    emptied(this.deposits);
    emptied(this.markets);
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

function listOf<T>(set: ReadonlySet<T>): readonly T[] {
  return set.size === 0 ? NONE : [...set];
}

/** Clearing a set makes it a new table even when empty; an empty one is left as it is. */
function emptied(set: Set<unknown>): void {
  if (set.size > 0) set.clear();
}
