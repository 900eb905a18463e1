/**
 * Consistency rules of a live state, checked whenever a state is loaded: a state that breaks one
 * is refused with every fault named, instead of being served and failing later.
 */
import type { Account } from "./accounts.js";
import type { Decimal } from "./decimal.js";
import * as dec from "./decimal.js";
import type { ExchangeState } from "./state.js";
import { isOpen, type Order } from "./types.js";

const plain = dec.toPlain;

/** Every broken rule, as sentences naming the account, asset, order or counter at fault. */
export function stateFaults(state: ExchangeState): string[] {
  return [...balanceFaults(state), ...orderFaults(state), ...lockFaults(state), ...conservationFaults(state)];
}

function balanceFaults(state: ExchangeState): string[] {
  const faults: string[] = [];
  for (const account of state.accounts.values()) {
    for (const [asset, b] of account.balances) {
      if (b.free < 0n)
        faults.push(`account "${account.id}" ${asset}: free balance is negative (${plain(b.free)})`);
      if (b.locked < 0n)
        faults.push(`account "${account.id}" ${asset}: locked balance is negative (${plain(b.locked)})`);
    }
  }
  for (const [asset, fee] of state.ledger.fees) {
    if (fee < 0n) faults.push(`fees ${asset}: negative (${plain(fee)})`);
  }
  return faults;
}

function orderFaults(state: ExchangeState): string[] {
  const faults: string[] = [];
  for (const market of state.markets.values()) {
    const symbol = market.config.symbol;
    for (const order of market.openOrders.values()) {
      const name = `order ${symbol}#${order.orderId}`;
      if (!isOpen(order)) faults.push(`${name}: listed as open but its status is ${order.status}`);
      if (order.orderId >= market.nextOrderId)
        faults.push(`${name}: id is not below the symbol's next order id ${market.nextOrderId}`);
      if (order.bookSeq >= market.nextBookSeq)
        faults.push(
          `${name}: book position ${order.bookSeq} is not below the next one ${market.nextBookSeq}`,
        );
      if (order.locked < 0n) faults.push(`${name}: locks a negative amount (${plain(order.locked)})`);
      if (order.origQty > 0n && order.executedQty > order.origQty)
        faults.push(`${name}: executed ${plain(order.executedQty)} of only ${plain(order.origQty)}`);
      if (!state.accounts.has(order.accountId)) faults.push(`${name}: unknown account "${order.accountId}"`);
    }
    const last = market.lastTrade;
    if (last && last.id >= market.nextTradeId)
      faults.push(
        `symbol ${symbol}: trade id ${last.id} is not below the next trade id ${market.nextTradeId}`,
      );
  }
  for (const account of state.accounts.values()) {
    const open = [...state.markets.values()].reduce(
      (n, m) => n + [...m.openOrders.values()].filter((o) => o.accountId === account.id).length,
      0,
    );
    if (open !== account.openOrders.size) {
      faults.push(
        `account "${account.id}": ${open} open orders but ${account.openOrders.size} distinct client order ids among them`,
      );
    }
  }
  return faults;
}

function spendAssetOf(state: ExchangeState, order: Order): string {
  const config = state.markets.get(order.symbol)?.config;
  return (order.side === "BUY" ? config?.quoteAsset : config?.baseAsset) ?? "?";
}

function lockFaults(state: ExchangeState): string[] {
  const expected = new Map<Account, Map<string, Decimal>>();
  for (const market of state.markets.values()) {
    for (const order of market.openOrders.values()) {
      const account = state.accounts.get(order.accountId);
      if (!account) continue;
      const byAsset = expected.get(account) ?? new Map<string, Decimal>();
      expected.set(account, byAsset);
      const asset = spendAssetOf(state, order);
      byAsset.set(asset, (byAsset.get(asset) ?? 0n) + order.locked);
    }
  }
  const faults: string[] = [];
  for (const account of state.accounts.values()) {
    const byAsset = expected.get(account) ?? new Map<string, Decimal>();
    const assets = new Set([...account.balances.keys(), ...byAsset.keys()]);
    for (const asset of assets) {
      const locked = account.balances.get(asset)?.locked ?? 0n;
      const want = byAsset.get(asset) ?? 0n;
      if (locked !== want) {
        faults.push(
          `account "${account.id}" ${asset}: locked balance ${plain(locked)} but its open orders lock ${plain(want)}`,
        );
      }
    }
  }
  return faults;
}

/** Every asset's free + locked balances plus collected fees equal what was deposited. */
function conservationFaults(state: ExchangeState): string[] {
  const totals = new Map<string, Decimal>(state.ledger.fees);
  for (const account of state.accounts.values()) {
    for (const [asset, b] of account.balances)
      totals.set(asset, (totals.get(asset) ?? 0n) + b.free + b.locked);
  }
  const faults: string[] = [];
  for (const asset of new Set([...totals.keys(), ...state.ledger.deposits.keys()])) {
    const total = totals.get(asset) ?? 0n;
    const deposited = state.ledger.deposits.get(asset) ?? 0n;
    if (total !== deposited) {
      faults.push(
        `asset ${asset}: balances and fees add up to ${plain(total)} but ${plain(deposited)} was deposited`,
      );
    }
  }
  return faults;
}
