// One process per state file, for the process's whole life. Two real `marketapi-server --state S`
// processes on one file: the second exits 2 at once, naming the file and the process that holds
// it (never with a false "… is not below …" damage message, while the first is busy committing);
// kill -9 of the first releases the lock, and the next server starts with every order the first
// acknowledged. In one process, a second open of the same file is refused too, and a lock file
// removed under a running server stops its writes.
import { mkdtempSync, rmSync } from "node:fs";
import { Agent } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { StateFileError, startServer } from "../src/index.js";
import { baseUrlOf, type CliRun, runCli as spawnCli } from "./support/cli.js";
import { sendSigned } from "./support/http.js";

const folder = mkdtempSync(join(tmpdir(), "marketapi-one-writer-"));
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

/** Orders sent one after another on `lanes` keep-alive connections until `stop.now`; the acknowledged ids. */
async function keepOrdering(url: string, stop: { now: boolean }, lanes = 4): Promise<number[]> {
  const acked: number[] = [];
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
          ).catch(() => undefined);
          if (!r) break;
          if (r.status === 200) acked.push((r.json as { orderId: number }).orderId);
        }
      } finally {
        agent.destroy();
      }
    }),
  );
  return acked;
}

/** The exit code, or "started" (the server is stopped then) when it came up instead of exiting. */
async function exitOrStart(run: CliRun): Promise<number | string> {
  const started = baseUrlOf(run).then(
    () => "started",
    () => undefined,
  );
  const outcome = await Promise.race([run.exited, started]);
  if (outcome === "started") {
    run.child.kill("SIGKILL");
    await run.exited;
  }
  return outcome ?? (await run.exited);
}

describe("one process per state file", () => {
  it("a second marketapi-server on the file exits 2 at once naming the holder; kill -9 releases the lock", async () => {
    const statePath = join(folder, "shared.db");
    const first = runCli(["--port", "0", "--state", statePath]);
    const firstUrl = await baseUrlOf(first);
    const stop = { now: false };
    const ordering = keepOrdering(firstUrl, stop);
    try {
      // Three tries while the first commits batch after batch (where a load without one snapshot
      // read counters and trades from different commits).
      for (let i = 0; i < 3; i += 1) {
        const second = runCli(["--port", "0", "--state", statePath]);
        expect(await exitOrStart(second)).toBe(2);
        expect(second.stderr()).toContain(
          `state file ${statePath}: is in use by another process (PID ${first.child.pid}:`,
        );
        expect(second.stderr()).toContain(`${statePath}.lock`);
        expect(second.stderr()).not.toMatch(/is not below|inconsistent|damaged/);
      }
    } finally {
      first.child.kill("SIGKILL");
      stop.now = true;
    }
    const acked = await ordering;
    await first.exited;
    expect(acked.length).toBeGreaterThan(0);

    // kill -9 released the lock: the next server starts on the file at once.
    const third = runCli(["--port", "0", "--state", statePath]);
    await baseUrlOf(third);
    third.child.kill("SIGTERM");
    expect(await third.exited).toBe(0);

    const server = await startServer({ statePath });
    try {
      for (const orderId of acked)
        expect(server.exchange.queryOrder("demo", { symbol: "BTCUSDT", orderId }).orderId).toBe(orderId);
    } finally {
      await server.close();
    }
  });

  it("a second open in the same process is refused; the first keeps the file", async () => {
    const statePath = join(folder, "same-process.db");
    const server = await startServer({ statePath });
    try {
      const error = await startServer({ statePath }).then(
        async (other) => {
          await other.close();
          return new Error("the second server started");
        },
        (e: Error) => e,
      );
      expect(error).toBeInstanceOf(StateFileError);
      expect(error.message).toContain(`is in use by this process (PID ${process.pid})`);
      // The refused attempt did not release the first's lock.
      const other = runCli(["--port", "0", "--state", statePath]);
      expect(await exitOrStart(other)).toBe(2);
      expect(other.stderr()).toContain(`is in use by another process (PID ${process.pid}:`);
      const placed = await sendSigned(server.url, {
        ...demo,
        method: "POST",
        path: "/api/v3/order",
        query: order(1),
      });
      expect(placed.status).toBe(200);
    } finally {
      await server.close();
    }
    // Closed: the lock is free again.
    const again = await startServer({ statePath });
    await again.close();
  });

  it("a lock file removed under a running server stops its writes (a second server could lock a new one)", async () => {
    const statePath = join(folder, "lock-removed.db");
    const server = await startServer({ statePath });
    try {
      expect(
        (await sendSigned(server.url, { ...demo, method: "POST", path: "/api/v3/order", query: order(1) }))
          .status,
      ).toBe(200);
      rmSync(`${statePath}.lock`);
      const refused = await sendSigned(server.url, {
        ...demo,
        method: "POST",
        path: "/api/v3/order",
        query: order(3),
      });
      expect(refused.status).toBe(503);
      expect((refused.json as { msg: string }).msg).toContain(
        `the lock file ${statePath}.lock was deleted or replaced while the server ran`,
      );
    } finally {
      await server.close();
    }
  });
});
