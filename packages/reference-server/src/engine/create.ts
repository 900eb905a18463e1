import { Exchange, type ExchangeOptions } from "./exchange.js";
import { seedLiquidity } from "./liquidity.js";
import { initialState } from "./state.js";
import { DEFAULT_SYMBOLS } from "./symbols.js";

/** A new exchange; seeded with market-maker liquidity and a short history unless `liquidity: false`. */
export function createExchange(options: ExchangeOptions = {}): Exchange {
  const exchange = new Exchange(initialState(options, options.symbols ?? DEFAULT_SYMBOLS), options.now);
  if (options.liquidity ?? true) seedLiquidity(exchange, { seed: options.seed ?? 1 });
  return exchange;
}
