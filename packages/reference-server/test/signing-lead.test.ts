// The lead a timestamp may have over the server's clock is x-signing's, read through the spec model
// (`timestamp < serverTime + N` in its acceptance words): a pipeline built on a document that states
// another lead, or none, judges by that document, not by the live API's 1000 ms.
import { createServer, type Server } from "node:http";
import { loadOpenApi } from "@marketapi/spec";
import type { JsonObject } from "@marketapi/spec/model";
import { afterAll, describe, expect, it } from "vitest";
import { parseConfig } from "../src/config.js";
import { createExchange } from "../src/engine/index.js";
import { describeApi } from "../src/http/api.js";
import { KeyRing } from "../src/http/auth.js";
import { createPipeline } from "../src/http/pipeline.js";
import { RateLimiter } from "../src/http/rate-limits.js";
import { errorsOnlyLogger } from "../src/logger.js";
import { sendSigned } from "./support/http.js";

const NOW = 1_750_000_000_000;
const TRADER = { apiKey: "leadKey", apiSecret: "lead-secret" };
const servers: Server[] = [];
afterAll(() => Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve)))));

/** A server whose document says `acceptance` instead of the bundled spec's words. */
async function serverWith(acceptance: string): Promise<string> {
  const document = structuredClone(loadOpenApi()) as JsonObject;
  document.components.securitySchemes.signature["x-signing"].acceptance = acceptance;
  const exchange = createExchange({ seed: 1, now: () => NOW });
  exchange.addAccount("trader", { USDT: "1000" });
  const keys = new KeyRing();
  keys.add({ ...TRADER, accountId: "trader" });
  const listener = createPipeline({
    api: describeApi(document, null),
    exchange,
    keys,
    rateLimiter: new RateLimiter(parseConfig({}, "config").rateLimits),
    limits: { maxBodyBytes: 65536, maxParams: 64 },
    now: () => NOW,
    logger: errorsOnlyLogger,
    answerCache: false,
  });
  const server = createServer(listener);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  return `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
}

const openOrdersAt = (url: string, aheadMs: number) =>
  sendSigned(url, { ...TRADER, method: "GET", path: "/api/v3/openOrders", timestamp: NOW + aheadMs });

const cases = [
  {
    given: {
      acceptance: "timestamp < serverTime + 250 and serverTime - timestamp <= recvWindow",
      ahead: 249,
    },
    want: 200,
  },
  {
    given: {
      acceptance: "timestamp < serverTime + 250 and serverTime - timestamp <= recvWindow",
      ahead: 250,
    },
    want: "250ms ahead",
  },
  {
    given: {
      acceptance: "timestamp < serverTime + 1000 and serverTime - timestamp <= recvWindow",
      ahead: 999,
    },
    want: 200,
  },
  { given: { acceptance: "serverTime - timestamp <= recvWindow", ahead: 0 }, want: "0ms ahead" },
  { given: { acceptance: "serverTime - timestamp <= recvWindow", ahead: -1 }, want: 200 },
];

describe("the timestamp's lead is the document's", () => {
  it.each(cases)("$given.acceptance, $given.ahead ms ahead → $want", async ({ given, want }) => {
    const answer = await openOrdersAt(await serverWith(given.acceptance), given.ahead);
    if (want === 200) expect(answer.status, answer.text).toBe(200);
    else
      expect(answer.json).toEqual({
        code: -1021,
        msg: `Timestamp for this request was ${want} of the server's time.`,
      });
  });
});
