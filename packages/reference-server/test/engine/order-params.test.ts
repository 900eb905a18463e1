import { describe, expect, it } from "vitest";
import { ApiError } from "../../src/engine/index.js";
import { parseOrderRequest } from "../../src/engine/params.js";
import { DEFAULT_SYMBOLS } from "../../src/engine/symbols.js";

const BTCUSDT = DEFAULT_SYMBOLS.find((s) => s.symbol === "BTCUSDT");
if (!BTCUSDT) throw new Error("BTCUSDT is a default symbol");
const limit = (price: string, quantity: string) =>
  parseOrderRequest(
    { symbol: "BTCUSDT", side: "BUY", type: "LIMIT", timeInForce: "GTC", price, quantity },
    BTCUSDT,
  );

// Decimal texts already read are looked up, not parsed again: the value must be the same either way.
describe("request decimals read again", () => {
  const cases: { given: [string, string]; want: [bigint, bigint] }[] = [
    { given: ["30000.01", "0.001"], want: [3_000_001n * 10n ** 18n, 10n ** 17n] },
    { given: ["30000.01", "0.001"], want: [3_000_001n * 10n ** 18n, 10n ** 17n] },
    { given: ["30000.010", "0.00100000"], want: [3_000_001n * 10n ** 18n, 10n ** 17n] },
    { given: ["0.01", "0.001"], want: [10n ** 18n, 10n ** 17n] },
  ];
  it.each(cases)("$given", ({ given, want }) => {
    const request = limit(...given);
    expect([request.price, request.quantity]).toEqual(want);
  });

  it("a malformed text is refused every time, also right after valid ones", () => {
    for (let i = 0; i < 2; i += 1) {
      limit("30000.01", "0.001");
      expect(() => limit("3e4", "0.001")).toThrow(ApiError);
      expect(() => limit("30000.01", "1e-3")).toThrow(ApiError);
    }
  });

  it("past the table's size (it starts afresh) every text still reads as its value", () => {
    for (let i = 0; i < 10_000; i += 1) {
      const cents = 1_000_000 + i;
      const price = `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, "0")}`;
      expect(limit(price, "0.001").price).toBe(BigInt(cents) * 10n ** 18n);
    }
    expect(limit("30000.01", "0.001").price).toBe(3_000_001n * 10n ** 18n);
  });
});
