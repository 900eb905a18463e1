// The new-order answer's JSON writer (src/http/order-json.ts) against JSON.stringify of the shaped
// object it stands for: every answer type, order type and optional field of real engine answers,
// and strings that JSON must escape.
import { describe, expect, test } from "vitest";
import {
  type FullResponse,
  type NewOrderParams,
  type NewOrderRespType,
  shapeNewOrderResponse,
} from "../src/engine/index.js";
import { newOrderJson } from "../src/http/order-json.js";
import { bareExchange, limit, market } from "./engine/support.js";

const RESP_TYPES: NewOrderRespType[] = ["ACK", "RESULT", "FULL"];

/** Real answers: resting, filled over several fills, stops, trailing stops, icebergs, strategies. */
function engineAnswers(): [name: string, full: FullResponse][] {
  const { ex, clock } = bareExchange();
  ex.addAccount("alice", { USDT: "100000000", BTC: "10000" });
  ex.addAccount("bob", { USDT: "100000000", BTC: "10000" });
  const place = (account: string, params: NewOrderParams) => {
    clock.advance(1);
    return ex.newOrder(account, params);
  };
  const stop: NewOrderParams = {
    symbol: "BTCUSDT",
    side: "SELL",
    type: "STOP_LOSS_LIMIT",
    timeInForce: "GTC",
    quantity: "0.01",
    price: "50000",
    stopPrice: "50000",
  };
  return [
    ["resting limit", place("alice", limit("SELL", "60000", "0.5"))],
    ["second level", place("alice", limit("SELL", "60001.5", "0.25"))],
    ["taker over two fills", place("bob", limit("BUY", "60002", "0.6"))],
    ["market by quote", place("bob", market("BUY", { quoteOrderQty: "100" }))],
    ["strategy ids", place("alice", limit("BUY", "50000", "0.1", { strategyId: 7, strategyType: 1000000 }))],
    ["client order id", place("alice", limit("BUY", "50000", "0.1", { newClientOrderId: "my-order_1" }))],
    ["stop limit", place("alice", stop)],
    ["trailing stop", place("alice", { ...stop, stopPrice: undefined, trailingDelta: 100 })],
    ["iceberg", place("alice", limit("BUY", "50000", "1", { icebergQty: "0.2" }))],
    ["immediate or cancel", place("bob", limit("SELL", "59000", "0.001", { timeInForce: "IOC" }))],
  ];
}

describe("newOrderJson writes the bytes of JSON.stringify(shapeNewOrderResponse(...))", () => {
  const answers = engineAnswers();

  test("the answers cover fills, stops, trailing, icebergs and strategies", () => {
    const keys = new Set(answers.flatMap(([, full]) => Object.keys(full)));
    for (const key of [
      "stopPrice",
      "icebergQty",
      "trailingDelta",
      "trailingTime",
      "strategyId",
      "strategyType",
    ])
      expect(keys).toContain(key);
    expect(Math.max(...answers.map(([, full]) => full.fills.length))).toBeGreaterThan(1);
  });

  for (const [name, full] of answers) {
    for (const respType of RESP_TYPES) {
      test(`${name}, ${respType}`, () => {
        const want = JSON.stringify(shapeNewOrderResponse(full, respType));
        const got = newOrderJson(full, respType);
        expect(got.text).toBe(want);
        expect(got.byteLength).toBe(Buffer.byteLength(want));
      });
    }
  }

  const strange: [name: string, text: string][] = [
    ["quote and backslash", 'a"b\\c'],
    ["control characters", "tab\there\nline\u0001"],
    ["non-ASCII", "prix-€-ü"],
    ["lone surrogate", "x\ud800y"],
    ["DEL", "a\u007fb"],
  ];
  for (const [name, text] of strange) {
    test(`strings JSON must escape or count as multi-byte: ${name}`, () => {
      const [, base] = answers[2] as [string, FullResponse];
      const full: FullResponse = {
        ...base,
        symbol: text,
        clientOrderId: text,
        fills: base.fills.map((fill) => ({ ...fill, commissionAsset: text })),
      };
      for (const respType of RESP_TYPES) {
        const want = JSON.stringify(shapeNewOrderResponse(full, respType));
        const got = newOrderJson(full, respType);
        expect(got.text).toBe(want);
        expect(got.byteLength).toBe(Buffer.byteLength(want));
      }
    });
  }

  test("numbers JSON writes as null", () => {
    const [, base] = answers[0] as [string, FullResponse];
    const full: FullResponse = { ...base, transactTime: Number.NaN, workingTime: Number.POSITIVE_INFINITY };
    expect(newOrderJson(full, "FULL").text).toBe(JSON.stringify(full));
  });
});
