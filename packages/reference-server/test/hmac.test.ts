// HmacKey against node:crypto's createHmac: the same hex for every kind of secret and payload,
// whether the one-shot form applies (ASCII secret of up to one block, ASCII payload) or not.
import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { HmacKey } from "../src/http/hmac.js";

const ORDER = "symbol=BTCUSDT&side=BUY&type=LIMIT&timeInForce=GTC&quantity=0.001&price=100.00&timestamp=1";
const LATIN1 = "symbol=BTCUSDT&note=caf\u00e9&x=\u00ff\u0080";

const table: { given: { secret: string; payload: string } }[] = [
  { given: { secret: "bench-secret-a", payload: ORDER } },
  { given: { secret: "bench-secret-a", payload: "" } },
  { given: { secret: "", payload: ORDER } },
  { given: { secret: "s".repeat(63), payload: ORDER } },
  { given: { secret: "s".repeat(64), payload: ORDER } },
  { given: { secret: "s".repeat(65), payload: ORDER } },
  { given: { secret: "s".repeat(300), payload: ORDER } },
  { given: { secret: "bench-secret-a", payload: LATIN1 } },
  { given: { secret: "secr\u00e8te", payload: ORDER } },
  { given: { secret: "\u{1f511}key", payload: LATIN1 } },
  { given: { secret: "bench-secret-a", payload: ORDER.repeat(40) } },
];

describe("HmacKey", () => {
  it.each(table)("$given.secret.length-character secret: the same hex as createHmac", ({ given }) => {
    const want = createHmac("sha256", given.secret).update(given.payload, "latin1").digest("hex");
    const key = new HmacKey(given.secret);
    expect(key.hex(given.payload)).toBe(want);
    // Twice: the outer input is reused from one request to the next.
    expect(key.hex(`${given.payload}&`)).toBe(
      createHmac("sha256", given.secret).update(`${given.payload}&`, "latin1").digest("hex"),
    );
    expect(key.hex(given.payload)).toBe(want);
  });
});
