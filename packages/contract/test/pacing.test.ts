// A good citizen on a server that enforces its limits: the run paces itself by exchangeInfo's
// rateLimits and the spec's x-weight (the shared @marketapi/pacer), finishes without a single 429,
// and says how long the limits made it wait. The default run uses a small ORDERS limit (its window
// is ten seconds, so the test waits seconds, not minutes); the whole default run against the live
// API's limits (6000 weight a minute: about two minutes) is opt-in: MARKETAPI_CONTRACT_LIVE_LIMITS=1.
import { type RunningServer, startServer } from "@marketapi/reference-server";
import { afterEach, describe, expect, it } from "vitest";
import type { ContractResult } from "../src/index.js";
import { reportText, summaryText } from "../src/report/text.js";
import { runContract } from "./support/run.js";

const LIVE_LIMITS = { requestWeightPerMinute: 6000, ordersPer10s: 100, ordersPerDay: 200_000 };

let server: RunningServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function runAgainst(rateLimits: Record<string, number>, options: Parameters<typeof runContract>[0]) {
  server = await startServer({ port: 0, host: "127.0.0.1", config: { rateLimits } });
  const rateLimited: string[] = [];
  const result = await runContract({
    baseUrl: server.url,
    apiKey: server.demo.apiKey,
    apiSecret: server.demo.apiSecret,
    referenceExtras: true,
    allowTrading: true,
    seed: 1,
    ...options,
    onExchange: (exchange) => {
      const status = exchange.response?.status;
      if (status === 429 || status === 418) rateLimited.push(`${exchange.op.operationId}: ${status}`);
    },
  });
  return { result, rateLimited };
}

function explain(result: ContractResult): string {
  return reportText(result, { color: false });
}

describe("pacing by the target's announced limits", () => {
  it("places more orders than one ORDERS window allows without a 429, and says it waited", async () => {
    // 5 orders a 10-second window; order_arithmetic alone places about a dozen.
    const { result, rateLimited } = await runAgainst(
      { ordersPer10s: 5 },
      { only: ["order_arithmetic"], exploreBudget: 0, maxSymbols: 1 },
    );
    expect(rateLimited, explain(result)).toEqual([]);
    expect(result.exitCode, explain(result)).toBe(0);
    expect(result.stats.rateLimited).toBe(0);
    expect(result.stats.pacedBy).toContain("5 ORDERS per 10 SECOND");
    // The run had to wait for the order window: more orders than one window holds were placed.
    expect(result.stats.pacedMs ?? 0).toBeGreaterThan(0);
    expect(summaryText(result, { color: false })).toMatch(
      /rate limits: 1000000 REQUEST_WEIGHT per 1 MINUTE, 5 ORDERS per 10 SECOND.*; the run waited [\d.]+ s for them; 0 answer\(s\) 429 or 418/,
    );
  });

  it.runIf(process.env.MARKETAPI_CONTRACT_LIVE_LIMITS === "1")(
    "a default run against the live API's limits finishes with 0 × 429",
    async () => {
      const { result, rateLimited } = await runAgainst(LIVE_LIMITS, {});
      expect(rateLimited, explain(result)).toEqual([]);
      expect(result.exitCode, explain(result)).toBe(0);
      console.log(summaryText(result, { color: false }));
    },
    600_000,
  );
});
