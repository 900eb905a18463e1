// Decimal text is checked against the parameter's pattern (x-wire-pattern) before anything is
// sent, on every call (the compiled pattern is reused).
import { describe, expect, it } from "vitest";
import { createSpotClient } from "../src/index.js";
import { checkDecimalText } from "../src/runtime/decimal-text.js";

const decimals = { price: "^[0-9]+(\\.[0-9]+)?$" };

describe("checkDecimalText", () => {
  it.each([
    { given: "29985.00", want: "accepted" },
    { given: 0.1, want: "accepted" },
    { given: undefined, want: "accepted" },
    { given: "1e5", want: "refused" },
    { given: " 1", want: "refused" },
    { given: "abc", want: "refused" },
  ])("price $given is $want, on the first call and again", ({ given, want }) => {
    for (let call = 0; call < 2; call++) {
      const check = () => checkDecimalText("new_order", decimals, { price: given });
      if (want === "accepted") expect(check).not.toThrow();
      else expect(check).toThrow(/new_order: price must be a number or decimal text matching/);
    }
  });
});

describe("a client call with decimal text its pattern refuses", () => {
  it("throws before anything is sent", async () => {
    let sent = 0;
    const client = createSpotClient({
      baseUrl: "http://127.0.0.1:1",
      apiKey: "key",
      apiSecret: "secret",
      fetch: async () => {
        sent++;
        return new Response("{}", { headers: { "content-type": "application/json" } });
      },
    });
    const order = {
      symbol: "BTCUSDT",
      side: "BUY",
      type: "LIMIT",
      timeInForce: "GTC",
      quantity: "1",
    } as const;
    await expect(client.new_order({ ...order, price: "1e5" })).rejects.toThrow(TypeError);
    await expect(client.new_order({ ...order, price: "1e5" })).rejects.toThrow(/price must be/);
    expect(sent).toBe(0);
    await client.new_order({ ...order, price: "29985.00" });
    expect(sent).toBe(1);
  });
});
