// Backups that work. `marketapi-server backup` copies a state database while a server process
// acknowledges orders, and `restore` puts the copy in place: every order acknowledged before the
// backup began is in it. A copy of the main file made without its write-ahead log is refused
// (never started as a new exchange, never with commits silently missing); restore
// --accept-missing-wal takes it deliberately. A file that carries this server's identity but
// whose schema or contents are partial is refused as damaged.
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { Agent } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { StateFileError, startServer } from "../src/index.js";
import { loadDriver } from "../src/store/driver.js";
import { SCHEMA_VERSION } from "../src/store/schema.js";
import { baseUrlOf, type CliRun, runCli as spawnCli } from "./support/cli.js";
import { sendSigned } from "./support/http.js";

const folder = mkdtempSync(join(tmpdir(), "marketapi-backup-"));
/** Every command started here: one still running after a failed test is killed with the file's tests. */
const started: CliRun[] = [];
function runCli(args: string[]): CliRun {
  const run = spawnCli(args);
  started.push(run);
  return run;
}
afterAll(async () => {
  for (const run of started)
    if (run.child.exitCode === null && run.child.signalCode === null) run.child.kill("SIGKILL");
  await Promise.all(started.map((run) => run.exited));
  rmSync(folder, { recursive: true, force: true });
});

const demo = { apiKey: "marketapi-demo-api-key", apiSecret: "marketapi-demo-api-secret" };
// Market orders against the seeded book: each trades at once, so open orders stay within the limit.
const order = (n: number) => `symbol=BTCUSDT&side=${n % 2 ? "BUY" : "SELL"}&type=MARKET&quantity=0.001`;

async function refusal(statePath: string): Promise<Error> {
  return startServer({ statePath }).then(
    async (server) => {
      await server.close();
      return new Error("the server started");
    },
    (e: Error) => e,
  );
}

function sha256(path: string): string {
  return createHash("sha256").update(readFileSync(path)).digest("hex");
}

/** Orders on `lanes` keep-alive connections until `stop.now`; each acknowledged id with when it was answered. */
async function keepOrdering(url: string, stop: { now: boolean }, acked: [number, number][], lanes = 4) {
  let n = 0;
  await Promise.all(
    Array.from({ length: lanes }, async () => {
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      try {
        while (!stop.now) {
          n += 1;
          const r = await sendSigned(
            url,
            { ...demo, method: "POST", path: "/api/v3/order", query: order(n) },
            agent,
          );
          if (r.status === 200) acked.push([(r.json as { orderId: number }).orderId, performance.now()]);
        }
      } finally {
        agent.destroy();
      }
    }),
  );
}

describe("marketapi-server backup and restore", () => {
  it("a backup taken while the server acknowledges orders, restored, holds every order acknowledged before it began", async () => {
    const statePath = join(folder, "live.db");
    const backupPath = join(folder, "live-backup.db");
    const restoredPath = join(folder, "restored.db");
    const server = runCli(["--port", "0", "--state", statePath]);
    const url = await baseUrlOf(server);
    const stop = { now: false };
    const acked: [number, number][] = [];
    const ordering = keepOrdering(url, stop, acked);
    let ackedBefore: number[];
    try {
      while (acked.length < 300) await new Promise((resolve) => setTimeout(resolve, 20));
      const began = performance.now();
      ackedBefore = acked.filter(([, at]) => at < began).map(([id]) => id);
      const backup = runCli(["backup", "--state", statePath, "--out", backupPath]);
      expect(await backup.exited).toBe(0);
      expect(backup.stdout()).toMatch(
        new RegExp(
          `^Backed up ${statePath} to ${backupPath} \\(schema version ${SCHEMA_VERSION}, [\\d,]+ orders`,
        ),
      );
      const during = acked.filter(([, at]) => at >= began).length;
      expect(during).toBeGreaterThan(0); // the server kept acknowledging orders while the backup ran

      // No restore over a file a server serves.
      const over = runCli(["restore", "--from", backupPath, "--state", statePath]);
      expect(await over.exited).toBe(2);
      expect(over.stderr()).toContain(`is in use by another process (PID ${server.child.pid}:`);
    } finally {
      stop.now = true;
      await ordering.catch(() => undefined);
      server.child.kill("SIGKILL");
      await server.exited;
    }

    const restore = runCli(["restore", "--from", backupPath, "--state", restoredPath]);
    expect(await restore.exited).toBe(0);
    expect(restore.stdout()).toContain(`Restored ${restoredPath} from ${backupPath}`);
    const restored = await startServer({ statePath: restoredPath });
    try {
      expect(ackedBefore.length).toBeGreaterThanOrEqual(300);
      for (const orderId of ackedBefore)
        expect(restored.exchange.queryOrder("demo", { symbol: "BTCUSDT", orderId }).orderId).toBe(orderId);
    } finally {
      await restored.close();
    }
  });

  it("a backup never overwrites a file, and refuses what is not a state database", async () => {
    const statePath = join(folder, "small.db");
    const server = await startServer({ statePath, empty: true });
    await server.close();
    const existing = join(folder, "existing.db");
    writeFileSync(existing, "keep me");
    const onto = runCli(["backup", "--state", statePath, "--out", existing]);
    expect(await onto.exited).toBe(2);
    expect(onto.stderr()).toContain(`backup ${existing}: exists already; a backup never overwrites a file`);
    expect(readFileSync(existing, "utf8")).toBe("keep me");
    const absent = runCli(["backup", "--state", join(folder, "absent.db"), "--out", join(folder, "x.db")]);
    expect(await absent.exited).toBe(2);
    expect(absent.stderr()).toContain("absent.db: does not exist");
  });
});

describe("a main file copied without its write-ahead log", () => {
  it("is refused, whether copied before the first order or after many; restore --accept-missing-wal takes it as it is", async () => {
    const statePath = join(folder, "served.db");
    const early = join(folder, "copied-early.db");
    const late = join(folder, "copied-late.db");
    const server = await startServer({ statePath });
    try {
      copyFileSync(statePath, early);
      for (let n = 0; n < 200; n += 1) {
        const r = await sendSigned(server.url, {
          ...demo,
          method: "POST",
          path: "/api/v3/order",
          query: order(n),
        });
        expect(r.status).toBe(200);
      }
      expect(existsSync(`${statePath}-wal`)).toBe(true);
      copyFileSync(statePath, late);
    } finally {
      await server.close();
    }
    for (const copy of [early, late]) {
      const hash = sha256(copy);
      const error = await refusal(copy);
      expect(error).toBeInstanceOf(StateFileError);
      expect(error.message).toContain(
        `state file ${copy}: is damaged: was open in a server (process ${process.pid}`,
      );
      expect(error.message).toContain(`its write-ahead log ${copy}-wal is missing`);
      expect(sha256(copy)).toBe(hash);
      expect(existsSync(`${copy}-wal`)).toBe(false);
    }

    const refused = runCli(["restore", "--from", late, "--state", join(folder, "taken.db")]);
    expect(await refused.exited).toBe(2);
    expect(refused.stderr()).toContain("-wal is missing");
    const taken = runCli([
      "restore",
      "--from",
      late,
      "--state",
      join(folder, "taken.db"),
      "--accept-missing-wal",
    ]);
    expect(await taken.exited).toBe(0);
    expect(existsSync(`${late}-wal`)).toBe(false); // reading the copy left nothing beside it
    const again = await startServer({ statePath: join(folder, "taken.db") });
    await again.close();
  });
});

describe("a file with this server's identity whose schema or contents are partial", () => {
  const cases: [string, string, RegExp][] = [
    ["a symbol's table dropped", "DROP TABLE orders_0", /table orders_0 is missing/],
    ["a column gone", "ALTER TABLE fees DROP COLUMN total", /table fees lacks column total/],
    ["the exchange's mark gone", "DELETE FROM meta WHERE key = 'created_at'", /symbols but no exchange/],
    ["every symbol gone", "DELETE FROM symbols", /an exchange without symbols/],
  ];
  it.each(cases)("is refused as damaged, never started as a new exchange: %s", async (name, sql, fault) => {
    const statePath = join(folder, `partial-${name.replace(/\W+/g, "-")}.db`);
    const server = await startServer({ statePath, empty: true });
    await server.close();
    const db = new (loadDriver())(statePath);
    db.exec(sql);
    db.close();
    const hash = sha256(statePath);
    const error = await refusal(statePath);
    expect(error).toBeInstanceOf(StateFileError);
    expect(error.message).toMatch(
      new RegExp(
        `is damaged: it is a marketapi state database \\(schema version ${SCHEMA_VERSION}\\) whose contents are incomplete`,
      ),
    );
    expect(error.message).toMatch(fault);
    expect(sha256(statePath)).toBe(hash);
  });
});
