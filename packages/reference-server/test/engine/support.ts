import { expect } from "vitest";
import {
  ApiError,
  createExchange,
  type Exchange,
  type ExchangeOptions,
  type NewOrderParams,
} from "../../src/engine/index.js";

export const T0 = 1_700_000_000_000;

export interface TestClock {
  now: () => number;
  advance(ms: number): void;
}

export function testClock(start = T0): TestClock {
  let current = start;
  return {
    now: () => current,
    advance: (ms) => {
      current += ms;
    },
  };
}

/** An exchange with empty books and a controllable clock. */
export function bareExchange(options: ExchangeOptions = {}): { ex: Exchange; clock: TestClock } {
  const clock = testClock();
  const ex = createExchange({ liquidity: false, now: clock.now, ...options });
  return { ex, clock };
}

export function limit(
  side: "BUY" | "SELL",
  price: string,
  quantity: string,
  extra: Partial<NewOrderParams> = {},
): NewOrderParams {
  return { symbol: "BTCUSDT", side, type: "LIMIT", timeInForce: "GTC", price, quantity, ...extra };
}

export function market(side: "BUY" | "SELL", extra: Partial<NewOrderParams>): NewOrderParams {
  return { symbol: "BTCUSDT", side, type: "MARKET", ...extra };
}

/** Runs `action` and returns the ApiError it throws (failing the test otherwise). */
export function rejection(action: () => unknown): ApiError {
  try {
    action();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error("expected an ApiError, but the call succeeded");
}

export function expectRejected(action: () => unknown, code: number, msg?: string): void {
  const error = rejection(action);
  expect({ code: error.code, ...(msg === undefined ? {} : { msg: error.msg }) }).toEqual({
    code,
    ...(msg === undefined ? {} : { msg }),
  });
}

export function balance(ex: Exchange, accountId: string, asset: string): { free: string; locked: string } {
  const found = ex.balances(accountId).find((b) => b.asset === asset);
  return found ? { free: found.free, locked: found.locked } : { free: "0.00000000", locked: "0.00000000" };
}
