// Ledger invariants checked from outside the engine's own bookkeeping: no value created or lost,
// locked balances equal to the open orders' locks, and every order's executedQty equal to the sum
// of its trades.
import { decimal as dec, type Exchange, stateFaults } from "../../src/index.js";

export interface AccountSetup {
  id: string;
  balances: Record<string, string>;
}

/** Every broken invariant, as a readable line (empty when the ledger holds). */
export function ledgerFaults(
  exchange: Exchange,
  symbols: readonly string[],
  accounts: readonly AccountSetup[],
  given: ReadonlyMap<string, bigint>,
): string[] {
  const state = exchange.internalState();
  const faults = [...stateFaults(state)];
  const locks = new Map<string, bigint>();
  for (const market of state.markets.values()) {
    for (const order of market.openOrders.values()) {
      const asset = order.side === "BUY" ? market.config.quoteAsset : market.config.baseAsset;
      const key = `${order.accountId}|${asset}`;
      locks.set(key, (locks.get(key) ?? 0n) + order.locked);
    }
  }
  const held = new Map<string, bigint>();
  for (const { id } of accounts) {
    for (const b of exchange.balances(id)) {
      held.set(b.asset, (held.get(b.asset) ?? 0n) + dec.parse(b.free) + dec.parse(b.locked));
      const expected = locks.get(`${id}|${b.asset}`) ?? 0n;
      if (dec.parse(b.locked) !== expected)
        faults.push(`${id} ${b.asset}: locked ${b.locked} but its open orders lock ${dec.toPlain(expected)}`);
    }
    for (const symbol of symbols) faults.push(...executedFaults(exchange, symbol, id));
  }
  for (const [asset, fee] of Object.entries(exchange.feesCollected())) {
    held.set(asset, (held.get(asset) ?? 0n) + dec.parse(fee));
  }
  for (const [asset, amount] of given) {
    const now = held.get(asset) ?? 0n;
    if (now !== amount)
      faults.push(`${asset}: ${dec.toPlain(now)} held and collected, ${dec.toPlain(amount)} given`);
  }
  return faults;
}

/** What the accounts were given, per asset. */
export function givenTotals(accounts: readonly AccountSetup[]): Map<string, bigint> {
  const given = new Map<string, bigint>();
  for (const account of accounts)
    for (const [asset, amount] of Object.entries(account.balances))
      given.set(asset, (given.get(asset) ?? 0n) + dec.parse(amount));
  return given;
}

function executedFaults(exchange: Exchange, symbol: string, accountId: string): string[] {
  // A self-trade shows twice (as buyer and as seller): views are told apart by order and side.
  const seen = new Set<string>();
  const traded = new Map<number, bigint>();
  for (let fromId = 0; ; ) {
    const page = exchange.myTrades(accountId, { symbol, fromId, limit: 1000 });
    for (const t of page) {
      const key = `${t.id}|${t.orderId}|${t.isBuyer}`;
      if (seen.has(key)) continue;
      seen.add(key);
      traded.set(t.orderId, (traded.get(t.orderId) ?? 0n) + dec.parse(t.qty));
    }
    if (page.length < 1000) break;
    fromId = page.at(-1)?.id ?? 0;
  }
  const faults: string[] = [];
  for (let orderId = 0; ; ) {
    const page = exchange.allOrders(accountId, { symbol, orderId, limit: 1000 });
    for (const order of page) {
      const sum = traded.get(order.orderId) ?? 0n;
      if (dec.parse(order.executedQty) !== sum)
        faults.push(
          `${accountId} order ${order.orderId}: executedQty ${order.executedQty}, its trades ${dec.toPlain(sum)}`,
        );
    }
    if (page.length < 1000) break;
    orderId = (page.at(-1)?.orderId ?? 0) + 1;
  }
  return faults;
}
