import type { Account } from "./accounts.js";
import type { EngineContext } from "./context.js";
import type { Decimal } from "./decimal.js";
import * as dec from "./decimal.js";
import type { Market } from "./market.js";
import type { PlannedFill } from "./matching.js";
import { observePrice } from "./stops.js";
import {
  type AggTrade,
  isOpen,
  isPricedType,
  isStopType,
  type Order,
  type OrderStatus,
  type Trade,
  type TradeParty,
} from "./types.js";

/** The asset an order pays with: quote for BUY, base for SELL. */
export function spendAsset(market: Market, order: Order): string {
  return order.side === "BUY" ? market.config.quoteAsset : market.config.baseAsset;
}

/** Reserves `amount` of the order's spend asset (throws -2010 when the free balance is short). */
export function lockFor(ctx: EngineContext, market: Market, order: Order, amount: Decimal): void {
  ctx.ledger.lock(ctx.account(order.accountId), spendAsset(market, order), amount);
  order.locked += amount;
  touch(ctx, market, order);
}

export function releaseLock(ctx: EngineContext, market: Market, order: Order): void {
  if (order.locked === 0n) return;
  ctx.ledger.unlock(ctx.account(order.accountId), spendAsset(market, order), order.locked);
  order.locked = 0n;
  touch(ctx, market, order);
}

/** Notes that an order changed, so that its new state reaches the history. */
export function touch(ctx: EngineContext, market: Market, order: Order): void {
  ctx.journal.order(market, order);
}

/**
 * Ends an open order: frees what it still reserves and takes it out of the book, the stop
 * queue and its account's open set.
 */
export function finishOrder(
  ctx: EngineContext,
  market: Market,
  order: Order,
  status: OrderStatus,
  time: number,
): void {
  if (!isOpen(order)) return;
  releaseLock(ctx, market, order);
  if (order.bookSeq > 0) {
    market.book.remove(order);
    market.lastUpdateId += 1;
  }
  if (isStopType(order.type) && !order.isWorking) {
    market.pendingStops = market.pendingStops.filter((stop) => stop !== order);
  }
  order.status = status;
  order.updateTime = time;
  touch(ctx, market, order);
  market.openOrders.delete(order.orderId);
  const account = ctx.account(order.accountId);
  if (account.openOrders.get(order.clientOrderId) === order) account.openOrders.delete(order.clientOrderId);
}

/** Puts a working GTC order into the book behind everything already at its price. */
export function restInBook(ctx: EngineContext, market: Market, order: Order): void {
  touch(ctx, market, order);
  order.bookSeq = market.nextBookSeq;
  market.nextBookSeq += 1;
  market.book.add(order);
  market.lastUpdateId += 1;
}

/** Settles one planned fill between the taker and a resting maker and records the trade. */
export function executeFill(
  ctx: EngineContext,
  market: Market,
  taker: Order,
  fill: PlannedFill,
  time: number,
): Trade {
  const buyer = taker.side === "BUY" ? taker : fill.maker;
  const seller = taker.side === "BUY" ? fill.maker : taker;
  const quoteQty = dec.mul(fill.price, fill.qty);
  const buyerParty = settleBuyer(ctx, market, buyer, fill, quoteQty, buyer === fill.maker);
  const sellerParty = settleSeller(ctx, market, seller, fill, quoteQty, seller === fill.maker);
  for (const order of [buyer, seller]) {
    recordExecution(order, fill.qty, quoteQty, time);
    touch(ctx, market, order);
  }
  if (fill.maker.executedQty === fill.maker.origQty) finishOrder(ctx, market, fill.maker, "FILLED", time);
  else market.lastUpdateId += 1;
  const trade = appendTrade(
    market,
    { fill, quoteQty, time, isBuyerMaker: buyer === fill.maker },
    buyerParty,
    sellerParty,
  );
  ctx.journal.trade(market, trade);
  ctx.journal.aggTrade(appendAggTrade(market, trade, taker.orderId));
  observeStops(ctx, market, trade.price, time);
  return trade;
}

function commissionOn(ctx: EngineContext, market: Market, gross: Decimal, isMaker: boolean): Decimal {
  const rate = isMaker ? ctx.commission.maker : ctx.commission.taker;
  const decimals = Math.max(market.config.baseCommissionPrecision, market.config.quoteCommissionPrecision);
  return dec.truncate(dec.mul(gross, rate), decimals);
}

// A limit buyer reserved its own price for every unit; trading cheaper returns the difference.
// At its own price (a maker buyer, always) that is the fill's quote quantity, already computed.
function buyerRelease(order: Order, fill: PlannedFill, quoteQty: Decimal): Decimal {
  return isPricedType(order.type) && order.price !== fill.price ? dec.mul(order.price, fill.qty) : quoteQty;
}

function payFromLock(
  ctx: EngineContext,
  market: Market,
  order: Order,
  released: Decimal,
  spent: Decimal,
): Account {
  const account = ctx.account(order.accountId);
  ctx.ledger.spendLocked(account, spendAsset(market, order), released, spent);
  order.locked -= released;
  return account;
}

function settleBuyer(
  ctx: EngineContext,
  market: Market,
  buyer: Order,
  fill: PlannedFill,
  quoteQty: Decimal,
  isMaker: boolean,
): TradeParty {
  const account = payFromLock(ctx, market, buyer, buyerRelease(buyer, fill, quoteQty), quoteQty);
  const commission = commissionOn(ctx, market, fill.qty, isMaker);
  ctx.ledger.receive(account, market.config.baseAsset, fill.qty, commission);
  return {
    accountId: account.id,
    orderId: buyer.orderId,
    commission,
    commissionAsset: market.config.baseAsset,
  };
}

function settleSeller(
  ctx: EngineContext,
  market: Market,
  seller: Order,
  fill: PlannedFill,
  quoteQty: Decimal,
  isMaker: boolean,
): TradeParty {
  const account = payFromLock(ctx, market, seller, fill.qty, fill.qty);
  const commission = commissionOn(ctx, market, quoteQty, isMaker);
  ctx.ledger.receive(account, market.config.quoteAsset, quoteQty, commission);
  return {
    accountId: account.id,
    orderId: seller.orderId,
    commission,
    commissionAsset: market.config.quoteAsset,
  };
}

// FILLED is set by finishOrder, so the order is still "open" while it leaves the book.
function recordExecution(order: Order, qty: Decimal, quoteQty: Decimal, time: number): void {
  order.executedQty += qty;
  order.cummulativeQuoteQty += quoteQty;
  order.status = "PARTIALLY_FILLED";
  order.updateTime = time;
}

interface Execution {
  fill: PlannedFill;
  quoteQty: Decimal;
  time: number;
  isBuyerMaker: boolean;
}

function appendTrade(market: Market, e: Execution, buyer: TradeParty, seller: TradeParty): Trade {
  const trade: Trade = {
    symbol: market.config.symbol,
    id: market.nextTradeId,
    price: e.fill.price,
    qty: e.fill.qty,
    quoteQty: e.quoteQty,
    time: e.time,
    isBuyerMaker: e.isBuyerMaker,
    buyer,
    seller,
  };
  market.nextTradeId += 1;
  market.lastTrade = trade;
  market.stats.add(trade);
  return trade;
}

// Consecutive fills of one taker at one price form a single aggregate trade.
function appendAggTrade(market: Market, trade: Trade, takerOrderId: number): AggTrade {
  const previous = market.lastAggTrade;
  if (
    previous &&
    previous.takerOrderId === takerOrderId &&
    previous.price === trade.price &&
    previous.lastTradeId === trade.id - 1
  ) {
    previous.qty += trade.qty;
    previous.lastTradeId = trade.id;
    return previous;
  }
  market.lastAggTrade = {
    symbol: market.config.symbol,
    id: market.nextAggTradeId,
    price: trade.price,
    qty: trade.qty,
    firstTradeId: trade.id,
    lastTradeId: trade.id,
    time: trade.time,
    isBuyerMaker: trade.isBuyerMaker,
    takerOrderId,
  };
  market.nextAggTradeId += 1;
  return market.lastAggTrade;
}

/** Moves every pending stop that this trade price fires into the `triggered` queue. */
function observeStops(ctx: EngineContext, market: Market, price: Decimal, time: number): void {
  if (market.pendingStops.length === 0) return;
  const stillPending: Order[] = [];
  for (const stop of market.pendingStops) {
    // A trailing stop's state moves with the price even when it does not fire.
    if (stop.trailing) touch(ctx, market, stop);
    if (observePrice(stop, price, time)) market.triggered.push(stop);
    else stillPending.push(stop);
  }
  market.pendingStops = stillPending;
}
