// A state database of each schema version (test/fixtures/state-v1.db.gz: schema 1, release
// 0.1.0; state-v2.db.gz: schema 2; state-v3.db.gz: schema 3; state-v4.db.gz: schema 4, today's;
// see test/fixtures/README.md for how each was made) loads with today's schema and answers as its
// release answered, with candles made from its trades when it had none; an
// upgraded file's original is kept beside it (the way back), with the same contents. A schema-2
// file that fails its consistency check (state-v2-inconsistent.db.gz) is refused before it is
// migrated and left byte for byte as it was; so is a current file refused at load whose recent
// commits are still in its write-ahead log. What an upgrade killed midway leaves beside the file
// (its trial copy with its log and lock, a partial original) is removed at the next start, which
// says so.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";
import { type Exchange, StateFileError, startServer } from "../src/index.js";
import { loadDriver } from "../src/store/driver.js";
import { SCHEMA_VERSION } from "../src/store/schema.js";
import { fixtureViews } from "./fixtures/state-v1-views.js";
import { fixtureViewsV2 } from "./fixtures/state-v2-views.js";
import { fixtureViewsV4 } from "./fixtures/state-v4-views.js";
import { baseUrlOf, runCli } from "./support/cli.js";
import { sendSigned } from "./support/http.js";

const folder = mkdtempSync(join(tmpdir(), "marketapi-migration-"));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const fixtures = new URL("./fixtures/", import.meta.url);
const demo = { apiKey: "marketapi-demo-api-key", apiSecret: "marketapi-demo-api-secret" };

/** The fixture, unpacked into a folder of its own (so that the files beside it can be listed). */
function releaseDatabase(fixture: string): string {
  const own = join(folder, fixture.replace(/\.db\.gz$/, ""));
  mkdirSync(own, { recursive: true });
  const path = join(own, "state.db");
  writeFileSync(path, gunzipSync(readFileSync(new URL(fixture, fixtures))));
  return path;
}

function sha256(path: string): string {
  return createHash("sha256").update(readFileSync(path)).digest("hex");
}

/** A database's identity, version and every row of every table, to compare two files' contents. */
function contents(path: string): unknown {
  const db = new (loadDriver())(path, { readonly: true });
  try {
    const tables = db
      .prepare(
        "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
      )
      .pluck()
      .all() as string[];
    return {
      version: db.pragma("user_version", { simple: true }),
      application: db.pragma("application_id", { simple: true }),
      rows: Object.fromEntries(
        tables.map((t) => [t, db.prepare(`SELECT * FROM "${t}" ORDER BY 1, 2`).all()]),
      ),
    };
  } finally {
    db.close();
  }
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
      afterRestart: timeBoundsHold,
    },
  ],
  [
    "written with schema version 3",
    {
      database: "state-v3.db.gz",
      views: "state-v3.views.json",
      schemaVersion: 3,
      read: fixtureViewsV2,
      afterRestart: timeBoundsHold,
    },
  ],
  [
    "written with schema version 4 (today's: opened as it is)",
    {
      database: "state-v4.db.gz",
      views: "state-v4.views.json",
      schemaVersion: 4,
      read: fixtureViewsV4,
      afterRestart: timeBoundsHold,
    },
  ],
];

/**
 * The candles a database answers are those its trades make: every minute with trades, its count,
 * open, high, low and close folded again here from the trades (a migrated file's candles were made
 * by its migration, today's by the server as it traded).
 */
function candlesMatchTrades(ex: Exchange): void {
  for (const symbol of ex.symbols()) {
    const trades = ex.historicalTrades(symbol, { fromId: 0, limit: 1000 });
    expect(trades.length).toBeLessThan(1000);
    const want = new Map<number, [string, string, string, string, number]>();
    for (const t of trades) {
      const open = Math.floor(t.time / 60_000) * 60_000;
      const c = want.get(open);
      const price = Number(t.price);
      if (!c) want.set(open, [t.price, t.price, t.price, t.price, 1]);
      else {
        if (price > Number(c[1])) c[1] = t.price;
        if (price < Number(c[2])) c[2] = t.price;
        c[3] = t.price;
        c[4] += 1;
      }
    }
    const first = trades[0]?.time ?? 0;
    const have = ex
      .klines(symbol, { interval: "1m", startTime: first - (first % 60_000), offsetMs: 0, limit: 1000 })
      .filter((row) => row[8] > 0)
      .map((row) => [row[0], [row[1], row[2], row[3], row[4], row[8]]]);
    expect(have).toEqual([...want]);
  }
}

function timeBoundsHold(ex: Exchange, want: Record<string, unknown>, clock: number): void {
  const views = JSON.parse(JSON.stringify(fixtureViewsV2(ex)));
  expect(views.aggBetween).toEqual(want.aggBetween);
  expect(views.allOrdersUntil).toEqual(want.allOrdersUntil);
  const found = ex.queryOrder("demo", { symbol: "ETHUSDT", origClientOrderId: "after" });
  expect(ex.allOrders("demo", { symbol: "ETHUSDT", startTime: clock })).toEqual([found]);
}

it("the fixtures cover every past schema version and today's", () => {
  const versions = FIXTURES.map(([, f]) => f.schemaVersion);
  expect(versions).toEqual(Array.from({ length: SCHEMA_VERSION }, (_, i) => i + 1));
});

describe.each(FIXTURES)("state database %s", (_, fixture) => {
  it("is migrated to the current schema and answers as before; an upgrade keeps the original beside it", async () => {
    const path = releaseDatabase(fixture.database);
    expect(userVersion(path)).toBe(fixture.schemaVersion);
    const before = contents(path);
    const original = `${path}.schema-${fixture.schemaVersion}-backup`;
    const want = JSON.parse(readFileSync(new URL(fixture.views, fixtures), "utf8"));
    let clock = 1_700_000_008_000; // the clock when the fixture was read (rolling statistics depend on it)
    const server = await startServer({ statePath: path, now: () => clock });
    try {
      expect(JSON.parse(JSON.stringify(fixture.read(server.exchange)))).toEqual(want);
      candlesMatchTrades(server.exchange);
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
    if (fixture.schemaVersion < SCHEMA_VERSION) {
      // The way back: the file as the earlier release left it, rows and schema version alike.
      expect(contents(original)).toEqual(before);
    } else {
      expect(existsSync(original)).toBe(false);
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

describe("a state database that fails its consistency check", () => {
  it("of schema version 2: refused before it is migrated, left byte for byte as it was", async () => {
    const path = releaseDatabase("state-v2-inconsistent.db.gz");
    const hash = sha256(path);
    const error = await startServer({ statePath: path }).then(
      async (server) => {
        await server.close();
        return new Error("the server started");
      },
      (e: Error) => e,
    );
    expect(error).toBeInstanceOf(StateFileError);
    expect(error.message).toContain(
      `state file ${path}: has schema version 2 and was not upgraded to ${SCHEMA_VERSION}: the upgraded copy is inconsistent`,
    );
    expect(error.message).toContain('account "demo" ETH: locked');
    expect(error.message).toContain("The file is left as it was");
    expect(sha256(path)).toBe(hash);
    expect(userVersion(path)).toBe(2);
    // Nothing else is left beside it but its lock file: no copy, no trial, no log.
    expect(readdirSync(join(path, "..")).sort()).toEqual(["state.db", "state.db.lock"]);
  });

  it("of today's schema, its last commits still in the write-ahead log: refused at load, both files as they were", async () => {
    const path = releaseDatabase("state-v3.db.gz");
    const Driver = loadDriver();
    // A write that stays in the log: a read-only connection closed last neither checkpoints nor removes it.
    const reader = new Driver(path, { readonly: true });
    reader.prepare("SELECT count(*) FROM meta").get();
    const writer = new Driver(path);
    writer.pragma("journal_mode = WAL");
    writer.prepare("UPDATE balances SET locked = '0' WHERE account = 'demo' AND asset = 'ETH'").run();
    writer.close();
    reader.close();
    expect(readFileSync(`${path}-wal`).length).toBeGreaterThan(0);
    const hashes = [sha256(path), sha256(`${path}-wal`)];
    const error = await startServer({ statePath: path }).catch((e: Error) => e);
    expect(error).toBeInstanceOf(StateFileError);
    expect((error as Error).message).toContain("is inconsistent and was not loaded");
    expect([sha256(path), sha256(`${path}-wal`)]).toEqual(hashes);
  });
});

describe("an upgrade killed midway", () => {
  it("leaves its trial copy, its log and lock and a partial original; the next start removes them and warns of it", async () => {
    const path = releaseDatabase("state-v2.db.gz");
    // A process id no process has any more: the upgrade's, killed.
    const pid = spawnSync(process.execPath, ["-e", ""]).pid as number;
    const leftovers = [
      `state.db.upgrade-trial-${pid}`,
      `state.db.upgrade-trial-${pid}-wal`,
      `state.db.upgrade-trial-${pid}-shm`,
      `state.db.upgrade-trial-${pid}.lock`,
      `state.db.schema-2-backup.partial-${pid}`,
      `state.db.creating-${pid}`,
    ];
    for (const name of leftovers) copyFileSync(path, join(path, "..", name));
    const run = runCli(["--port", "0", "--state", path]);
    try {
      await baseUrlOf(run);
      expect(run.stderr()).toContain(`Removed what interrupted work left beside ${path}`);
      expect(run.stderr()).toContain(`state.db.upgrade-trial-${pid} (the trial copy of an upgrade`);
      const left = readdirSync(join(path, ".."));
      for (const name of leftovers) expect(left).not.toContain(name);
      // The upgrade itself then ran whole: the original kept beside the file.
      expect(left).toContain("state.db.schema-2-backup");
    } finally {
      run.child.kill("SIGTERM");
      expect(await run.exited).toBe(0);
    }
  });
});
