/**
 * The simulated participants: accounts of the exchange that quote, cancel and take through the
 * engine's own calls (`newOrder`, `cancelOrder`), so every filter, balance check, open-order limit
 * and the matching apply to them as to any client; their new orders also count against the
 * order-rate limits (the `gate`). A refusal is taken as a client takes it: that action is dropped.
 *
 * - Makers keep a ladder of GTC limit orders on each side of the fair price: a half-spread and a
 *   step between levels, in basis points of the price (a tick at least). When they refresh, they
 *   cancel the orders that are off their ladder (too close to the fair price or too far from it)
 *   and place the missing levels, so a move of the price costs a cancel and an order per side.
 * - Takers arrive at random (Poisson), buy or sell (more often on the side that brings the touch
 *   back to the fair price), with IOC limit orders of a heavy-tailed size a few basis points through
 *   the fair price, now and then far through it: those sweep several levels.
 */

import type { Account } from "../engine/accounts.js";
import type { Decimal } from "../engine/decimal.js";
import * as dec from "../engine/decimal.js";
import type { Exchange } from "../engine/exchange.js";
import type { Random } from "../engine/random.js";
import { compileRules, type SymbolConfig, type SymbolRules } from "../engine/symbols.js";
import type { Side } from "../engine/types.js";
import { ApiError } from "../errors.js";
import { gaussian } from "./draws.js";

export interface MakerProfile {
  id: string;
  /** Distance of the first level from the fair price, in basis points. */
  halfSpreadBp: number;
  /** Distance between levels, in basis points. */
  stepBp: number;
  /** Levels per side and symbol (fewer when the open-order limit would not allow them). */
  levels: number;
  /** Chance of refreshing a symbol's ladder at each tick. */
  refresh: number;
  /** Notional of one level, in multiples of the symbol's minimum notional. */
  size: readonly [number, number];
}

export const MAKERS: readonly MakerProfile[] = [
  { id: "sim-maker-1", halfSpreadBp: 1, stepBp: 1, levels: 5, refresh: 0.5, size: [20, 100] },
  { id: "sim-maker-2", halfSpreadBp: 4, stepBp: 3, levels: 8, refresh: 0.2, size: [60, 300] },
  { id: "sim-maker-3", halfSpreadBp: 15, stepBp: 8, levels: 12, refresh: 0.05, size: [400, 3000] },
];

export const TAKER_IDS: readonly string[] = ["sim-taker-1", "sim-taker-2"];

/** Every account the simulated market trades with. */
export const PARTICIPANT_IDS: readonly string[] = [...MAKERS.map((maker) => maker.id), ...TAKER_IDS];

/** Balance of each participant in every asset: enough for years of trading at any price path. */
export const PARTICIPANT_BALANCE = "1000000000";

/** What the participants know of one symbol, derived once from its configuration. */
export interface SymbolView {
  symbol: string;
  config: SymbolConfig;
  rules: SymbolRules;
  tick: Decimal;
  tickSize: number;
  minNotional: Decimal;
  priceDecimals: number;
  qtyDecimals: number;
}

export function symbolView(config: SymbolConfig): SymbolView {
  const rules = compileRules(config);
  const tick = rules.price?.step && rules.price.step > 0n ? rules.price.step : dec.parse("0.00000001");
  const minNotional = rules.notional?.min && rules.notional.min > 0n ? rules.notional.min : tick;
  return {
    symbol: config.symbol,
    config,
    rules,
    tick,
    tickSize: Number(dec.toPlain(tick)),
    minNotional,
    priceDecimals: config.quotePrecision,
    qtyDecimals: config.baseAssetPrecision,
  };
}

/** Counts of what the participants did, for the market's status. */
export interface ActivityCounts {
  orders: number;
  cancels: number;
  takes: number;
  refused: number;
}

export interface Participants {
  exchange: Exchange;
  random: Random;
  /** May the account place one more order now (the order-rate limits)? Counts it when it may. */
  gate(accountId: string): boolean;
  counts: ActivityCounts;
  /** Levels per side a maker may keep on a symbol, within the open-order limits. */
  levelCap: number;
}

/** A maker's refresh of its ladder on one symbol around `fair`. */
export function refreshMaker(p: Participants, maker: MakerProfile, view: SymbolView, fair: number): void {
  const account = p.exchange.internalState().accounts.get(maker.id);
  if (!account) return;
  const levels = Math.min(maker.levels, p.levelCap);
  for (const side of ["BUY", "SELL"] as const) {
    const ladder = ladderPrices(view, maker, side, fair, levels);
    const best = ladder[0] as Decimal;
    const worst = ladder[ladder.length - 1] as Decimal;
    const kept = new Set<Decimal>();
    for (const order of ownOrders(account, view.symbol, side)) {
      const inside =
        side === "BUY"
          ? order.price <= best && order.price >= worst
          : order.price >= best && order.price <= worst;
      if (inside && !kept.has(order.price)) kept.add(order.price);
      else cancel(p, maker.id, view.symbol, order.orderId);
    }
    for (const price of ladder) {
      if (kept.size >= levels) break;
      if (kept.has(price)) continue;
      const notional = view.minNotional * BigInt(p.random.int(maker.size[0], maker.size[1]));
      if (place(p, maker.id, view, side, "GTC", price, notional)) kept.add(price);
    }
  }
}

/** One taker's order on the symbol: side leaning to the fair price, a heavy-tailed size. */
export function takeOnce(p: Participants, takerId: string, view: SymbolView, fair: number): void {
  const ticker = p.exchange.bookTicker(view.symbol);
  const bid = Number(ticker.bidPrice);
  const ask = Number(ticker.askPrice);
  const mid = bid > 0 && ask > 0 ? (bid + ask) / 2 : fair;
  // The touch away from the fair price draws takers to the side that brings it back.
  const lean = Math.max(-0.4, Math.min(0.4, ((fair - mid) / fair) * 2500));
  const side: Side = p.random.next() < 0.5 + lean ? "BUY" : "SELL";
  const sweep = p.random.next() < SWEEP_SHARE;
  const throughBp = sweep ? p.random.int(8, 40) : p.random.int(1, 4);
  const size = sweep ? sweepSize(p.random) : Math.max(1, Math.round(8 * Math.exp(1.1 * gaussian(p.random))));
  const limit = fair * (side === "BUY" ? 1 + throughBp / 10_000 : 1 - throughBp / 10_000);
  const price = onTick(view, limit, side === "BUY" ? "up" : "down");
  if (price <= 0n) return;
  if (place(p, takerId, view, side, "IOC", price, view.minNotional * BigInt(size))) p.counts.takes += 1;
}

/** Share of takers that sweep: far through the fair price, with a heavy-tailed (Pareto) size. */
const SWEEP_SHARE = 0.1;

/** A sweep's notional in minimum notionals: Pareto with index 1.1 from 200, at most 100 times that. */
function sweepSize(random: Random): number {
  const u = Math.max(random.next(), 1e-6);
  return Math.round(Math.min(200 * u ** (-1 / 1.1), 20_000));
}

/** The ladder's prices from the level nearest the fair price outwards, one per tick at least. */
function ladderPrices(
  view: SymbolView,
  maker: MakerProfile,
  side: Side,
  fair: number,
  levels: number,
): Decimal[] {
  const prices: Decimal[] = [];
  const sign = side === "BUY" ? -1 : 1;
  let previous: Decimal | undefined;
  for (let level = 0; level < levels; level += 1) {
    const bp = maker.halfSpreadBp + level * maker.stepBp;
    let price = onTick(view, fair * (1 + (sign * bp) / 10_000), side === "BUY" ? "down" : "up");
    if (previous !== undefined && (side === "BUY" ? price >= previous : price <= previous)) {
      price = previous + BigInt(sign) * view.tick;
    }
    if (price <= 0n) break;
    prices.push(price);
    previous = price;
  }
  return prices;
}

/** `price` on the symbol's tick grid, rounded down or up, within its price filter. */
function onTick(view: SymbolView, price: number, rounding: "down" | "up"): Decimal {
  const ticks = price / view.tickSize;
  const whole = rounding === "down" ? Math.floor(ticks + 1e-9) : Math.ceil(ticks - 1e-9);
  let value = BigInt(Math.max(0, whole)) * view.tick;
  const bounds = view.rules.price;
  if (bounds) {
    if (bounds.max > 0n && value > bounds.max) value = bounds.max - ((bounds.max - bounds.min) % view.tick);
    if (value < bounds.min) value = bounds.min;
  }
  return value;
}

function ownOrders(account: Account, symbol: string, side: Side) {
  const orders = [...account.openOrders.values()].filter((o) => o.symbol === symbol && o.side === side);
  // By id, whatever order the map was rebuilt in at a restart: the same state, the same choices.
  return orders.sort((a, b) => a.orderId - b.orderId);
}

function place(
  p: Participants,
  accountId: string,
  view: SymbolView,
  side: Side,
  timeInForce: "GTC" | "IOC",
  price: Decimal,
  notional: Decimal,
): boolean {
  const quantity = quantityWorth(view, notional, price);
  if (quantity === undefined || !p.gate(accountId)) {
    p.counts.refused += 1;
    return false;
  }
  try {
    p.exchange.newOrder(accountId, {
      symbol: view.symbol,
      side,
      type: "LIMIT",
      timeInForce,
      quantity: dec.format(quantity, view.qtyDecimals),
      price: dec.format(price, view.priceDecimals),
    });
    p.counts.orders += 1;
    return true;
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    p.counts.refused += 1;
    return false;
  }
}

function cancel(p: Participants, accountId: string, symbol: string, orderId: number): void {
  try {
    p.exchange.cancelOrder(accountId, { symbol, orderId });
    p.counts.cancels += 1;
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    p.counts.refused += 1;
  }
}

/** The smallest quantity on the lot grid worth at least `notional` at `price`; undefined above the lot's maximum. */
function quantityWorth(view: SymbolView, notional: Decimal, price: Decimal): Decimal | undefined {
  const step = view.rules.stepSize;
  const raw = dec.div(notional, price);
  const rounded = step > 0n ? dec.floorToStep(raw, step) : raw;
  const qty = dec.max(rounded < raw ? rounded + step : rounded, view.rules.lot?.min ?? step);
  const max = view.rules.lot?.max;
  return max !== undefined && max > 0n && qty > max ? undefined : qty;
}
