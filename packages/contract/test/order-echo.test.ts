// What an order shows of what placed it (kit/order-echo.ts), given/want.
import { describe, expect, it } from "vitest";
import type { ParamList } from "../src/http/request.js";
import { echoProblems } from "../src/kit/order-echo.js";

const SENT: ParamList = [
  ["symbol", "BTCUSDT"],
  ["side", "BUY"],
  ["type", "STOP_LOSS_LIMIT"],
  ["timeInForce", "GTC"],
  ["price", "60000"],
  ["quantity", "0.0010"],
  ["stopPrice", "61000.00"],
  ["newClientOrderId", "run-7"],
];
const SHOWN = {
  symbol: "BTCUSDT",
  side: "BUY",
  type: "STOP_LOSS_LIMIT",
  timeInForce: "GTC",
  price: "60000.00000000",
  origQty: "0.00100000",
  stopPrice: "61000.00000000",
  clientOrderId: "run-7",
};

describe("echoProblems", () => {
  it.each([
    { name: "what was sent, decimals by value", given: SHOWN, want: [] },
    { name: "a field left out is not judged here", given: { ...SHOWN, stopPrice: undefined }, want: [] },
    {
      name: "the stop price zeroed",
      given: { ...SHOWN, stopPrice: "0.00000000" },
      want: ['stopPrice "0.00000000"'],
    },
    { name: "the quantity as another", given: { ...SHOWN, origQty: "0.00200000" }, want: ["origQty"] },
    {
      name: "a client id of the server's",
      given: { ...SHOWN, clientOrderId: "web_1" },
      want: ["newClientOrderId=run-7"],
    },
    { name: "the symbol's case is symbol_case's", given: { ...SHOWN, symbol: "btcusdt" }, want: [] },
    { name: "the side flipped", given: { ...SHOWN, side: "SELL" }, want: ['side "SELL"'] },
  ])("$name", ({ given, want }) => {
    const shown = Object.fromEntries(Object.entries(given).filter(([, v]) => v !== undefined));
    const problems = echoProblems(SENT, shown, "the view");
    expect(problems).toHaveLength(want.length);
    for (const [i, part] of want.entries()) expect(problems[i]).toContain(part);
  });

  it("judges no parameter sent twice (the server took one of them)", () => {
    expect(echoProblems([...SENT, ["price", "59000"]], SHOWN, "the view")).toEqual([]);
  });

  it("compares trailingDelta as a number and quoteOrderQty as origQuoteOrderQty", () => {
    const sent: ParamList = [
      ["trailingDelta", "100"],
      ["quoteOrderQty", "10"],
    ];
    expect(echoProblems(sent, { trailingDelta: 100, origQuoteOrderQty: "10.00000000" }, "v")).toEqual([]);
    expect(echoProblems(sent, { trailingDelta: 10, origQuoteOrderQty: "0.00000000" }, "v")).toHaveLength(2);
  });
});
