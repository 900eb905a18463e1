// No false alarms: the reference server passes every check, the behaviour and relation checks
// included, in memory and with a state database, under ten seeds of the tester and of the server.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startServer } from "@marketapi/reference-server";
import { afterAll, describe, expect, it } from "vitest";
import { checksAt } from "../src/checks/index.js";
import { reportText } from "../src/report/text.js";
import { runContract } from "./support/run.js";

const scratch = mkdtempSync(join(tmpdir(), "contract-clean-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const SEEDS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];

describe("the reference server passes clean", () => {
  it.each(SEEDS.flatMap((seed) => [[seed, "memory"] as const, [seed, "state"] as const]))(
    "seed %i, %s",
    async (seed, kind) => {
      // A second account (apiKey/apiSecret add one), so account_isolation judges both.
      const second = { apiKey: `second-${seed}-${kind}`, apiSecret: `second-secret-${seed}` };
      const server = await startServer({
        port: 0,
        seed,
        ...second,
        ...(kind === "state" ? { statePath: join(scratch, `state-${seed}.db`) } : {}),
      });
      try {
        const result = await runContract({
          baseUrl: server.url,
          apiKey: server.demo.apiKey,
          apiSecret: server.demo.apiSecret,
          secondApiKey: second.apiKey,
          secondApiSecret: second.apiSecret,
          allowTrading: true,
          // A sandbox of our own: stops are fired by moving the price (stop_triggers judges them).
          movePrices: true,
          seed,
        });
        expect(result.exitCode, reportText(result, { color: false })).toBe(0);
        // Every behaviour and relation check really judged something (none passed by being skipped
        // everywhere).
        for (const { name: check } of [
          ...checksAt("behaviour"),
          ...checksAt("trading-behaviour"),
          ...checksAt("relation"),
        ]) {
          expect(
            result.cells.some((c) => c.check === check && c.status === "passed"),
            check,
          ).toBe(true);
        }
      } finally {
        await server.close();
      }
    },
  );
});
