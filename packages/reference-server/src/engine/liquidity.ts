import type { Decimal } from "./decimal.js";
import * as dec from "./decimal.js";
import type { Exchange } from "./exchange.js";
import { Random } from "./random.js";
import { compileRules, type SymbolConfig, type SymbolRules } from "./symbols.js";
import type { Side } from "./types.js";

export const MARKET_MAKER_ID = "market-maker";

export interface LiquidityOptions {
  seed: number;
  /** Resting price levels per side and symbol; enough for a full default depth of 100. */
  levelsPerSide?: number;
  /** Number of crossing market orders that form the seeded trade history. */
  tradeCount?: number;
  /** How far back the history starts, in ms. */
  historyMs?: number;
}

const MAKER_BALANCE = "1000000000";
const SPACING_FRACTION = dec.parse("0.0001");

interface Ladder {
  config: SymbolConfig;
  rules: SymbolRules;
  reference: Decimal;
  tick: Decimal;
  minNotional: Decimal;
}

/**
 * Creates the market-maker account (exempt from order-count limits) with a ladder of GTC
 * limit orders on both sides of every symbol, then lets it send small market orders against
 * its own book so every symbol has a short trade history. Deterministic for a given seed.
 */
export function seedLiquidity(exchange: Exchange, options: LiquidityOptions): void {
  const random = new Random(options.seed);
  const levels = options.levelsPerSide ?? 150;
  const tradeCount = options.tradeCount ?? 40;
  const historyMs = options.historyMs ?? 10 * 60_000;
  const ladders = exchange.symbols().map((symbol) => ladderFor(exchange.symbolConfig(symbol)));
  exchange.addAccount(MARKET_MAKER_ID, makerBalances(ladders), { exemptFromOrderLimits: true });
  const start = exchange.time() - historyMs;
  exchange.runAt(start, () => {
    for (const ladder of ladders) placeLadder(exchange, random, ladder, levels);
  });
  const step = Math.floor(historyMs / (tradeCount + 1));
  for (let i = 1; i <= tradeCount; i += 1) {
    exchange.runAt(start + i * step, () => crossOnce(exchange, random, random.pick(ladders)));
  }
}

function ladderFor(config: SymbolConfig): Ladder {
  const rules = compileRules(config);
  return {
    config,
    rules,
    reference: dec.parse(config.referencePrice),
    tick: rules.price?.step ?? dec.parse("0.00000001"),
    minNotional: rules.notional?.min ?? 0n,
  };
}

function makerBalances(ladders: readonly Ladder[]): Record<string, string> {
  const assets = ladders.flatMap((l) => [l.config.baseAsset, l.config.quoteAsset]);
  return Object.fromEntries(assets.map((asset) => [asset, MAKER_BALANCE]));
}

function placeLadder(exchange: Exchange, random: Random, ladder: Ladder, levels: number): void {
  const spacing = dec.max(
    ladder.tick,
    dec.floorToStep(dec.mul(ladder.reference, SPACING_FRACTION), ladder.tick),
  );
  let offset = 0n;
  for (let level = 0; level < levels; level += 1) {
    offset += spacing * BigInt(random.int(1, 3));
    placeMakerOrder(exchange, random, ladder, "BUY", ladder.reference - offset);
    placeMakerOrder(exchange, random, ladder, "SELL", ladder.reference + offset);
  }
}

function placeMakerOrder(
  exchange: Exchange,
  random: Random,
  ladder: Ladder,
  side: Side,
  price: Decimal,
): void {
  const notional = ladder.minNotional * BigInt(random.int(10, 2000));
  exchange.newOrder(MARKET_MAKER_ID, {
    symbol: ladder.config.symbol,
    side,
    type: "LIMIT",
    timeInForce: "GTC",
    quantity: dec.format(qtyFor(ladder, notional, price), ladder.config.baseAssetPrecision),
    price: dec.format(price, ladder.config.quotePrecision),
  });
}

// The smallest valid quantity worth at least `notional` at `price`.
function qtyFor(ladder: Ladder, notional: Decimal, price: Decimal): Decimal {
  const step = ladder.rules.stepSize;
  const raw = dec.div(notional, price);
  const rounded = dec.floorToStep(raw, step);
  const qty = rounded < raw ? rounded + step : rounded;
  return dec.max(qty, ladder.rules.lot?.min ?? step);
}

function crossOnce(exchange: Exchange, random: Random, ladder: Ladder): void {
  const notional = ladder.minNotional * BigInt(random.int(2, 60));
  exchange.newOrder(MARKET_MAKER_ID, {
    symbol: ladder.config.symbol,
    side: random.next() < 0.5 ? "BUY" : "SELL",
    type: "MARKET",
    quantity: dec.format(qtyFor(ladder, notional, ladder.reference), ladder.config.baseAssetPrecision),
  });
}
