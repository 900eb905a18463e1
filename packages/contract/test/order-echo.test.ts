// What an order shows of what placed it (kit/order-echo.ts), given/want.
import { describe, expect, it } from "vitest";
import type { ParamList } from "../src/http/request.js";
import { echoProblems, unsentProblems } from "../src/kit/order-echo.js";

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
    {
      name: "a field sent left out of a view of the order's state",
      given: { ...SHOWN, stopPrice: undefined },
      want: ["leaves out stopPrice; the order was placed with stopPrice=61000.00"],
    },
    {
      name: "an ACK, which shows no state, leaves fields out",
      given: { symbol: "BTCUSDT", clientOrderId: "run-7" },
      want: [],
    },
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

describe("unsentProblems", () => {
  const limit: ParamList = [
    ["symbol", "BTCUSDT"],
    ["side", "BUY"],
    ["type", "LIMIT_MAKER"],
    ["price", "60000"],
    ["quantity", "0.0010"],
  ];
  const stopMarket: ParamList = [
    ["symbol", "BTCUSDT"],
    ["side", "SELL"],
    ["type", "STOP_LOSS"],
    ["quantity", "0.0010"],
    ["stopPrice", "50000"],
  ];
  const trailing: ParamList = [
    ...stopMarket.filter(([name]) => name !== "stopPrice"),
    ["trailingDelta", "100"],
  ];
  const view = {
    price: "60000.00000000",
    stopPrice: "0.00000000",
    icebergQty: "0.00000000",
    origQuoteOrderQty: "0.00000000",
    selfTradePreventionMode: "NONE",
    orderListId: -1,
    workingTime: 1_700_000_000_000,
  };
  const defaults = { selfTradePreventionMode: "NONE" };
  it.each([
    { name: "a LIMIT_MAKER as placed", sent: limit, given: view, want: [] },
    {
      name: "a stop price where none was sent",
      sent: limit,
      given: { ...view, stopPrice: "59000.00000000" },
      want: ['stopPrice "59000.00000000"; no stopPrice was sent'],
    },
    {
      name: "a stop market order's price, not sent, as its stop price",
      sent: stopMarket,
      given: { ...view, price: "50000.00000000", stopPrice: "50000.00000000", workingTime: -1 },
      want: ['price "50000.00000000"; no price was sent'],
    },
    {
      name: "a trailing stop's stop price is not judged (it may show where it activates)",
      sent: trailing,
      given: { ...view, price: "0.00000000", stopPrice: "51000.00000000", workingTime: -1 },
      want: [],
    },
    {
      name: "an iceberg quantity and a quote budget not sent",
      sent: limit,
      given: { ...view, icebergQty: "0.00050000", origQuoteOrderQty: "60.00000000" },
      want: ["icebergQty", "origQuoteOrderQty"],
    },
    {
      name: "a self-trade prevention mode other than the symbol's default",
      sent: limit,
      given: { ...view, selfTradePreventionMode: "EXPIRE_MAKER" },
      want: ['selfTradePreventionMode "EXPIRE_MAKER"; none was sent, and the symbol\'s default is NONE'],
    },
    {
      name: "the mode sent is the echo's to judge",
      sent: [...limit, ["selfTradePreventionMode", "EXPIRE_TAKER"]] as ParamList,
      given: { ...view, selfTradePreventionMode: "EXPIRE_TAKER" },
      want: [],
    },
    {
      name: "an order list id of 0",
      sent: limit,
      given: { ...view, orderListId: 0 },
      want: ["orderListId 0"],
    },
    {
      name: "an order without a stop not working",
      sent: limit,
      given: { ...view, workingTime: -1 },
      want: ["workingTime -1"],
    },
    { name: "fields a view leaves out", sent: limit, given: {}, want: [] },
  ])("$name", ({ sent, given, want }) => {
    const problems = unsentProblems(sent, given, "the view", defaults);
    expect(problems).toHaveLength(want.length);
    want.forEach((part, i) => {
      expect(problems[i]).toContain(part);
    });
  });
});
