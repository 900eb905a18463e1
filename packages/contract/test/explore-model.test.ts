// The exploration's model (src/explore/model.ts): how a taker matches the sequence's own resting
// orders and the book's foreign levels, and what each order's state becomes (table-driven).
import { describe, expect, it } from "vitest";
import { formatDec, parseDec } from "../src/core/decimal.js";
import { passedOver, shortTaker } from "../src/explore/judge.js";
import { ExplorationModel, type ModelOrder, type TakerSpec } from "../src/kit/matching-model.js";

const d = parseDec;
const STEP = d("0.0001");

/** A model whose book has bids at 99 and 98, asks at 101 and 102 (1 each), with own orders rested. */
function model(own: Array<{ side: "BUY" | "SELL"; price: string; qty: string }> = []): ExplorationModel {
  const m = new ExplorationModel(
    [
      { price: d("99"), qty: d("1") },
      { price: d("98"), qty: d("1") },
    ],
    [
      { price: d("101"), qty: d("1") },
      { price: d("102"), qty: d("1") },
    ],
    STEP,
  );
  own.forEach((o, i) => {
    m.accept(
      {
        step: i + 1,
        clientOrderId: `own${i}`,
        orderId: 100 + i,
        side: o.side,
        type: "LIMIT",
        timeInForce: "GTC",
        price: d(o.price),
        stopPrice: undefined,
        icebergQty: undefined,
        origQty: d(o.qty),
        quoteOrderQty: undefined,
      },
      [],
      true,
    );
  });
  return m;
}

const fills = (m: ExplorationModel, taker: TakerSpec) => {
  const plan = m.plan(taker);
  return {
    fills: plan.fills.map(
      (f) => `${formatDec(f.qty)}@${formatDec(f.price)}${f.maker ? `:${f.maker.clientOrderId}` : ""}`,
    ),
    exhausts: plan.exhausts,
  };
};

describe("the model's matching", () => {
  it.each([
    {
      given: "a BUY at 100.5 against an own SELL at 100.5 of 0.3",
      own: [{ side: "SELL" as const, price: "100.5", qty: "0.3" }],
      taker: { side: "BUY" as const, limit: d("100.5"), maxQty: d("0.5"), maxQuote: undefined },
      want: { fills: ["0.3@100.5:own0"], exhausts: false },
    },
    {
      given: "a BUY at 101 takes the own SELL first, then the book's best ask",
      own: [{ side: "SELL" as const, price: "100.5", qty: "0.3" }],
      taker: { side: "BUY" as const, limit: d("101"), maxQty: d("0.5"), maxQuote: undefined },
      want: { fills: ["0.3@100.5:own0", "0.2@101"], exhausts: false },
    },
    {
      given: "a SELL at 99 takes own bids best first, oldest first at one price",
      own: [
        { side: "BUY" as const, price: "99.5", qty: "0.1" },
        { side: "BUY" as const, price: "99.7", qty: "0.1" },
        { side: "BUY" as const, price: "99.7", qty: "0.1" },
      ],
      taker: { side: "SELL" as const, limit: d("99.5"), maxQty: d("0.25"), maxQuote: undefined },
      want: { fills: ["0.1@99.7:own1", "0.1@99.7:own2", "0.05@99.5:own0"], exhausts: false },
    },
    {
      given: "a market BUY for more than every known ask walks past what is known",
      own: [],
      taker: { side: "BUY" as const, limit: undefined, maxQty: d("3"), maxQuote: undefined },
      want: { fills: ["1@101", "1@102"], exhausts: true },
    },
    {
      given: "a quote budget buys what the step allows at each price",
      own: [],
      taker: { side: "BUY" as const, limit: undefined, maxQty: undefined, maxQuote: d("150") },
      want: { fills: ["1@101", "0.4803@102"], exhausts: false },
    },
  ])("$given", ({ own, taker, want }) => {
    expect(fills(model(own), taker)).toEqual(want);
  });
});

describe("the model's state after an order", () => {
  const place = (m: ExplorationModel, taker: TakerSpec, restsIfLeft: boolean): ModelOrder =>
    m.accept(
      {
        step: 9,
        clientOrderId: "taker",
        orderId: 200,
        side: taker.side,
        type: "LIMIT",
        timeInForce: restsIfLeft ? "GTC" : "IOC",
        price: taker.limit,
        stopPrice: undefined,
        icebergQty: undefined,
        origQty: taker.maxQty ?? d("0"),
        quoteOrderQty: undefined,
      },
      m.plan(taker).fills,
      restsIfLeft,
    );

  it("a GTC taker larger than the maker rests PARTIALLY_FILLED; the maker is FILLED and off the book", () => {
    const m = model([{ side: "SELL", price: "100.5", qty: "0.3" }]);
    const taker = place(m, { side: "BUY", limit: d("100.5"), maxQty: d("0.5"), maxQuote: undefined }, true);
    expect([taker.status, formatDec(taker.executedQty), taker.resting]).toEqual([
      "PARTIALLY_FILLED",
      "0.3",
      true,
    ]);
    const maker = m.orders[0]!;
    expect([maker.status, maker.resting]).toEqual(["FILLED", false]);
    expect(m.trades.map((t) => formatDec(t.qty))).toEqual(["0.3"]);
    expect(m.netForeign).toBe(0n);
  });

  it("an IOC taker smaller than the maker: the taker FILLED, the maker PARTIALLY_FILLED", () => {
    const m = model([{ side: "SELL", price: "100.5", qty: "0.3" }]);
    const taker = place(m, { side: "BUY", limit: d("100.5"), maxQty: d("0.1"), maxQuote: undefined }, false);
    expect(taker.status).toBe("FILLED");
    expect([m.orders[0]!.status, formatDec(m.orders[0]!.executedQty)]).toEqual(["PARTIALLY_FILLED", "0.1"]);
  });

  it("an IOC taker that fills in part EXPIRES; what it took from the book counts as traded with others", () => {
    const m = model();
    const taker = place(m, { side: "BUY", limit: d("101"), maxQty: d("1.5"), maxQuote: undefined }, false);
    expect([taker.status, formatDec(taker.executedQty), formatDec(taker.cumQuote)]).toEqual([
      "EXPIRED",
      "1",
      "101",
    ]);
    expect(formatDec(m.netForeign)).toBe("1");
    expect(m.remainingForeign("SELL").map((l) => formatDec(l.price))).toEqual(["102"]);
  });

  it("a reused client id finds the open order first, else the newest", () => {
    const m = model([
      { side: "BUY", price: "99.5", qty: "0.1" },
      { side: "BUY", price: "99.6", qty: "0.1" },
    ]);
    m.orders[1]!.clientOrderId = "own0";
    expect(m.byClientOrderId("own0")?.orderId).toBe(100);
    m.cancel(m.orders[0]!);
    expect(m.byClientOrderId("own0")?.orderId).toBe(101);
    m.cancel(m.orders[1]!);
    expect(m.byClientOrderId("own0")?.orderId).toBe(101);
  });
});

describe("passedOver: a taker that expired short leaves no order of the sequence it reached", () => {
  const taker = (side: "BUY" | "SELL", price?: string) => ({
    step: 5,
    side,
    price: price === undefined ? undefined : parseDec(price),
  });
  const resting = (step: number, side: "BUY" | "SELL", price: string, type = "LIMIT") => ({
    step,
    side,
    type,
    price: parseDec(price),
  });
  it.each([
    { given: [taker("BUY", "100"), resting(3, "SELL", "100")], want: true },
    { given: [taker("BUY", "100"), resting(3, "SELL", "99.5", "LIMIT_MAKER")], want: true },
    { given: [taker("BUY", "100"), resting(3, "SELL", "100.5")], want: false },
    { given: [taker("BUY", "100"), resting(6, "SELL", "99")], want: false },
    { given: [taker("BUY", "100"), resting(3, "BUY", "99")], want: false },
    { given: [taker("BUY", "100"), resting(3, "SELL", "99", "STOP_LOSS_LIMIT")], want: false },
    { given: [taker("SELL", "100"), resting(3, "BUY", "100.5")], want: true },
    { given: [taker("SELL", "100"), resting(3, "BUY", "99.5")], want: false },
    { given: [taker("SELL"), resting(3, "BUY", "1")], want: true },
  ] as const)("$given.1.side $given.1.price (step $given.1.step) → $want", ({ given: [t, r], want }) => {
    expect(passedOver(t, r)).toBe(want);
  });
});

describe("shortTaker: an IOC or MARKET order that expired with quantity left", () => {
  const order = (type: string, timeInForce: string | undefined) =>
    ({ step: 4, side: "BUY", type, timeInForce, price: parseDec("100") }) as unknown as ModelOrder;
  it.each([
    {
      given: { type: "LIMIT", tif: "IOC", status: "EXPIRED", executed: "0.1" },
      want: { step: 4, price: "100" },
    },
    {
      given: { type: "MARKET", tif: undefined, status: "EXPIRED", executed: "0.1" },
      want: { step: 4, price: undefined },
    },
    { given: { type: "LIMIT", tif: "FOK", status: "EXPIRED", executed: "0" }, want: undefined },
    { given: { type: "LIMIT", tif: "IOC", status: "EXPIRED_IN_MATCH", executed: "0.1" }, want: undefined },
    { given: { type: "LIMIT", tif: "IOC", status: "FILLED", executed: "0.3" }, want: undefined },
  ])("$given.type $given.tif $given.status → $want", ({ given, want }) => {
    const short = shortTaker(
      { status: given.status, executedQty: given.executed, origQty: "0.3" },
      order(given.type, given.tif),
    );
    expect(
      short && { step: short.step, price: short.price === undefined ? undefined : formatDec(short.price) },
    ).toEqual(want);
  });
});
