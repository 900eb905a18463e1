// Generated client order ids carry their orderId, so the histories find a generated id's order by
// decoding it (no map entry). Table-driven: encoding, decoding, and the generator they advance.
import { describe, expect, it } from "vitest";
import {
  generatedClientOrderId,
  generatedOrderId,
  namesItsOrder,
  packGeneratedId,
  unpackGeneratedId,
} from "../../src/engine/client-order-ids.js";
import { Random, randomClientOrderId } from "../../src/engine/random.js";
import { bareExchange, limit } from "./support.js";

const BINANCE_LIKE = /^[A-Za-z0-9]{22}$/;

describe("generated client order ids", () => {
  it.each([0, 1, 61, 62, 3843, 3844, 1_000_000, 2 ** 31, Number.MAX_SAFE_INTEGER])(
    "order %i: 22 characters of [A-Za-z0-9] that decode to the orderId",
    (orderId) => {
      const random = new Random(17);
      for (let draw = 0; draw < 50; draw += 1) {
        const id = generatedClientOrderId(random, orderId);
        expect(id).toMatch(BINANCE_LIKE);
        expect(generatedOrderId(id)).toBe(orderId);
        expect(namesItsOrder(id, orderId)).toBe(true);
        expect(namesItsOrder(id, orderId + 1)).toBe(false);
      }
    },
  );

  it("differ from draw to draw for one orderId (a retry after a clash gets another id)", () => {
    const random = new Random(5);
    const ids = new Set(Array.from({ length: 100 }, () => generatedClientOrderId(random, 42)));
    expect(ids.size).toBe(100);
  });

  it("advance the generator as the 22 single draws of the random ids did", () => {
    const generated = new Random(99);
    const drawn = new Random(99);
    generatedClientOrderId(generated, 7);
    randomClientOrderId(drawn);
    expect(generated.state).toBe(drawn.state);
  });

  it.each([
    { given: "", why: "empty" },
    { given: "c-1", why: "short" },
    { given: "A".repeat(21), why: "21 characters" },
    { given: "A".repeat(23), why: "23 characters" },
    { given: `${"A".repeat(21)}-`, why: "a character outside the alphabet" },
    { given: `${"A".repeat(21)}é`, why: "a character above ASCII" },
    { given: "9".repeat(22), why: "digits above the largest safe integer" },
  ])("$given ($why) names no order", ({ given }) => {
    expect(generatedOrderId(given)).toBeUndefined();
  });

  it("namesItsOrder agrees with decoding, for ids with any one character changed", () => {
    const random = new Random(3);
    const characters = "Az09-_é".split("");
    let named = 0;
    for (let n = 0; n < 300; n += 1) {
      const orderId = random.int(0, 1_000_000);
      const id = generatedClientOrderId(random, orderId);
      for (let place = 0; place < id.length; place += 1) {
        const changed = `${id.slice(0, place)}${random.pick(characters)}${id.slice(place + 1)}`;
        const decoded = generatedOrderId(changed);
        for (const candidate of [orderId, decoded ?? -1, (decoded ?? 0) + 1]) {
          expect(namesItsOrder(changed, candidate)).toBe(decoded === candidate);
          if (decoded === candidate) named += 1;
        }
      }
    }
    expect(named).toBeGreaterThan(300 * 10);
  });

  it.each([0, 1, 62, 1_000_000, 2 ** 31, Number.MAX_SAFE_INTEGER])(
    "order %i: packed into two numbers and unpacked, the id comes back (packed at once or after others)",
    (orderId) => {
      const random = new Random(23);
      const packed = new Float64Array(2);
      const other = orderId === 0 ? 1 : orderId - 1;
      for (let draw = 0; draw < 20; draw += 1) {
        const id = generatedClientOrderId(random, orderId);
        expect(packGeneratedId(id, orderId, packed, 0)).toBe(true);
        const [high, low] = [packed[0] as number, packed[1] as number];
        expect(unpackGeneratedId(orderId, high, low)).toBe(id);
        // Another id generated since: the first is then decoded, not compared, and packs the same.
        generatedClientOrderId(random, other);
        expect(packGeneratedId(id, orderId, packed, 0)).toBe(true);
        expect([packed[0], packed[1]]).toEqual([high, low]);
        expect(packGeneratedId(id, other, packed, 0)).toBe(false);
      }
    },
  );

  it.each([
    { given: "mine-1", why: "a client's id" },
    { given: "A".repeat(22), why: "22 characters that name another order" },
  ])("$given ($why) is not packed, and nothing is written", ({ given }) => {
    const packed = Float64Array.of(7, 7);
    expect(packGeneratedId(given, 5, packed, 0)).toBe(false);
    expect([...packed]).toEqual([7, 7]);
  });

  it("rejects an orderId that is not a safe non-negative integer", () => {
    expect(() => generatedClientOrderId(new Random(1), -1)).toThrow(/safe non-negative orderId, got -1/);
  });
});

describe("query by a client order id that may have been generated", () => {
  function setup() {
    const { ex, clock } = bareExchange();
    ex.addAccount("alice", { USDT: "100000", BTC: "2" });
    ex.addAccount("bob", { USDT: "100000", BTC: "2" });
    return { ex, clock };
  }
  const query = (ex: ReturnType<typeof setup>["ex"], account: string, origClientOrderId: string) =>
    ex.queryOrder(account, { symbol: "BTCUSDT", origClientOrderId }) as { orderId: number };

  it("finds an order by its generated id, for its account only", () => {
    const { ex } = setup();
    const placed = ex.newOrder("alice", limit("BUY", "50000", "0.1"));
    // Closed, so that the query reads the history, not the open orders.
    ex.cancelOrder("alice", { symbol: "BTCUSDT", orderId: placed.orderId });
    expect(placed.clientOrderId).toMatch(BINANCE_LIKE);
    expect(query(ex, "alice", placed.clientOrderId).orderId).toBe(placed.orderId);
    expect(() => query(ex, "bob", placed.clientOrderId)).toThrow(/Order does not exist/);
  });

  it("answers a client's later order that reuses a generated id", () => {
    const { ex } = setup();
    const generated = ex.newOrder("alice", limit("BUY", "50000", "0.1"));
    ex.cancelOrder("alice", { symbol: "BTCUSDT", orderId: generated.orderId });
    const reused = ex.newOrder(
      "alice",
      limit("BUY", "50000", "0.1", { newClientOrderId: generated.clientOrderId }),
    );
    ex.cancelOrder("alice", { symbol: "BTCUSDT", orderId: reused.orderId });
    expect(query(ex, "alice", generated.clientOrderId).orderId).toBe(reused.orderId);
  });

  it("answers a generated order newer than a client's order with the same id", () => {
    const { ex } = setup();
    const state = ex.internalState();
    const nextOrderId = state.markets.get("BTCUSDT")?.nextOrderId ?? 0;
    // The id the order after the client's will get: the cancel in between draws a random id first.
    const predictor = new Random(0);
    predictor.state = state.random.state;
    randomClientOrderId(predictor);
    const upcoming = generatedClientOrderId(predictor, nextOrderId + 1);
    const clients = ex.newOrder("alice", limit("BUY", "50000", "0.1", { newClientOrderId: upcoming }));
    ex.cancelOrder("alice", { symbol: "BTCUSDT", orderId: clients.orderId });
    const generated = ex.newOrder("alice", limit("BUY", "50000", "0.1"));
    expect(generated.clientOrderId).toBe(upcoming);
    // Closed, so that the query reads the history, not the open orders.
    ex.cancelOrder("alice", { symbol: "BTCUSDT", orderId: generated.orderId });
    expect(query(ex, "alice", upcoming).orderId).toBe(generated.orderId);
    const again = ex.newOrder("alice", limit("BUY", "50000", "0.1", { newClientOrderId: upcoming }));
    ex.cancelOrder("alice", { symbol: "BTCUSDT", orderId: again.orderId });
    expect(query(ex, "alice", upcoming).orderId).toBe(again.orderId);
  });
});
