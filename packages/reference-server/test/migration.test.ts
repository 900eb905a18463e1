// State databases written by earlier releases (schema version 1, test/fixtures/state-v1.db.gz, and schema
// version 2, state-v2.db.gz, both made by test/fixtures/make-state.ts) load with
// today's schema and answer as those releases answered.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";
import { type Exchange, startServer } from "../src/index.js";
import { loadDriver } from "../src/store/driver.js";
import { SCHEMA_VERSION } from "../src/store/schema.js";
import { fixtureViews } from "./fixtures/state-v1-views.js";
import { fixtureViewsV2 } from "./fixtures/state-v2-views.js";
import { sendSigned } from "./support/http.js";

const folder = mkdtempSync(join(tmpdir(), "marketapi-migration-"));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const fixtures = new URL("./fixtures/", import.meta.url);
const demo = { apiKey: "marketapi-demo-api-key", apiSecret: "marketapi-demo-api-secret" };

function releaseDatabase(fixture: string): string {
  const path = join(folder, fixture.replace(/\.gz$/, ""));
  writeFileSync(path, gunzipSync(readFileSync(new URL(fixture, fixtures))));
  return path;
}

/** SQLite keeps user_version at byte 60 of the header, big-endian. */
function userVersion(path: string): number {
  return readFileSync(path).readUInt32BE(60);
}

interface Fixture {
  /** The fixture's database and what its writer answered from it, in test/fixtures/. */
  database: string;
  views: string;
  schemaVersion: number;
  /** The answers compared, read through the exchange. */
  read: (ex: Exchange) => unknown;
  /** What is checked after the migrated database is reopened with one order more. */
  afterRestart: (ex: Exchange, want: Record<string, unknown>, clock: number) => void;
}

const FIXTURES: [string, Fixture][] = [
  [
    "written by release 0.1.0",
    {
      database: "state-v1.db.gz",
      views: "state-v1.views.json",
      schemaVersion: 1,
      read: fixtureViews,
      afterRestart: (ex, want) => {
        expect(ex.queryOrder("demo", { symbol: "ETHUSDT", origClientOrderId: "resting-b" })).toEqual(
          want.byClientId,
        );
      },
    },
  ],
  [
    "written with schema version 2 (time bounds included)",
    {
      database: "state-v2.db.gz",
      views: "state-v2.views.json",
      schemaVersion: 2,
      read: fixtureViewsV2,
      afterRestart: (ex, want, clock) => {
        const views = JSON.parse(JSON.stringify(fixtureViewsV2(ex)));
        expect(views.aggBetween).toEqual(want.aggBetween);
        expect(views.allOrdersUntil).toEqual(want.allOrdersUntil);
        const found = ex.queryOrder("demo", { symbol: "ETHUSDT", origClientOrderId: "after" });
        expect(ex.allOrders("demo", { symbol: "ETHUSDT", startTime: clock })).toEqual([found]);
      },
    },
  ],
];

describe.each(FIXTURES)("state database %s", (_, fixture) => {
  it("is migrated to the current schema and answers as before", async () => {
    const path = releaseDatabase(fixture.database);
    expect(userVersion(path)).toBe(fixture.schemaVersion);
    const want = JSON.parse(readFileSync(new URL(fixture.views, fixtures), "utf8"));
    let clock = 1_700_000_008_000; // the clock when the fixture was read (rolling statistics depend on it)
    const server = await startServer({ statePath: path, now: () => clock });
    try {
      expect(JSON.parse(JSON.stringify(fixture.read(server.exchange)))).toEqual(want);
      clock += 1000;
      const placed = await sendSigned(server.url, {
        ...demo,
        method: "POST",
        path: "/api/v3/order",
        query:
          "symbol=ETHUSDT&side=SELL&type=LIMIT&timeInForce=GTC&quantity=0.2&price=4300&newClientOrderId=after",
        timestamp: clock,
      });
      expect(placed.status).toBe(200);
    } finally {
      await server.close();
    }
    const db = new (loadDriver())(path, { readonly: true });
    try {
      expect(db.pragma("user_version", { simple: true })).toBe(SCHEMA_VERSION);
      expect(db.pragma("integrity_check", { simple: true })).toBe("ok");
    } finally {
      db.close();
    }
    const again = await startServer({ statePath: path, now: () => clock });
    try {
      const found = again.exchange.queryOrder("demo", { symbol: "ETHUSDT", origClientOrderId: "after" });
      expect(found.price).toBe("4300.00000000");
      fixture.afterRestart(again.exchange, want, clock);
    } finally {
      await again.close();
    }
  });
});
