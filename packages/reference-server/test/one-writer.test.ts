// One process per state file, for the process's whole life, whatever name or release opens it.
// Two real `marketapi-server --state S` processes on one file: the second exits 2 at once, naming
// the file and the process that holds it (never with a false "… is not below …" damage message,
// while the first is busy committing); kill -9 of the first releases the lock, and the next server
// starts with every order the first acknowledged. In one process, a second open of the same file
// is refused too, and a lock file removed under a running server stops its writes. Through another
// name (a symbolic link, a hard link) a second server, a restore and a backup meet the same
// refusal; the release before (a writer with no lock, plain SQLite in WAL mode) and an SQLite
// shell are refused a start while they have the file open, and their first commit while this
// server serves stops its writes, every acknowledged order kept; a lock or log path that is a
// link is refused with the state file left byte for byte as it was.
import { createHash } from "node:crypto";
import {
  existsSync,
  linkSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { Agent } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { StateFileError, startServer } from "../src/index.js";
import { loadDriver } from "../src/store/driver.js";
import { baseUrlOf, type CliRun, exitOrStart, runCli as spawnCli } from "./support/cli.js";
import { type ForeignWriter, previousRelease, sqliteShell } from "./support/foreign-writers.js";
import { sendSigned } from "./support/http.js";

// Resolved, so that messages name the same path as the tests (macOS's tmpdir is under a link).
const folder = realpathSync(mkdtempSync(join(tmpdir(), "marketapi-one-writer-")));
const writers: ForeignWriter[] = [];
/** Every command started here: one still running after a failed test is killed with the file's tests. */
const started: CliRun[] = [];
function runCli(args: string[]): CliRun {
  const run = spawnCli(args);
  started.push(run);
  return run;
}
afterAll(async () => {
  for (const writer of writers) writer.child.kill("SIGKILL");
  await Promise.all(writers.map((writer) => writer.exited));
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

function sha256(path: string): string {
  return createHash("sha256").update(readFileSync(path)).digest("hex");
}

/** A state file a server made and closed cleanly (no log beside it). */
async function closedStateFile(name: string): Promise<string> {
  const statePath = join(folder, name);
  const server = await startServer({ statePath });
  await server.close();
  return statePath;
}

/** Orders on `lanes` connections until `stop.now`: the ids acknowledged, and the refusals' messages. */
async function ordering(url: string, stop: { now: boolean }, lanes = 2) {
  const acked: number[] = [];
  const refused: string[] = [];
  let n = 0;
  const done = Promise.all(
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
          else refused.push(`${r.status} ${(r.json as { msg?: string }).msg}`);
        }
      } finally {
        agent.destroy();
      }
    }),
  );
  return { acked, refused, done };
}

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 20));
}

/** The account of each order of BTCUSDT in the file, by order id. */
function ownersOf(statePath: string): Map<number, string> {
  const db = new (loadDriver())(statePath, { readonly: true, fileMustExist: true });
  try {
    const rows = db.prepare("SELECT order_id, account FROM orders_0").all() as {
      order_id: number;
      account: string;
    }[];
    return new Map(rows.map((row) => [row.order_id, row.account]));
  } finally {
    db.close();
  }
}

describe("another name for the same file", () => {
  it("a symbolic link or a hard link meets the same refusal: start, restore and backup; a backup through a link works", async () => {
    const real = await closedStateFile("real.db");
    const link = join(folder, "link.db");
    symlinkSync(real, link);
    const backup = join(folder, "real-backup.db");
    const taken = runCli(["backup", "--state", link, "--out", backup]);
    expect(await taken.exited).toBe(0);

    const first = runCli(["--port", "0", "--state", link]);
    await baseUrlOf(first);
    try {
      const second = runCli(["--port", "0", "--state", real]);
      expect(await exitOrStart(second)).toBe(2);
      expect(second.stderr()).toContain(
        `state file ${real}: is in use by another process (PID ${first.child.pid}:`,
      );

      // A restore through either name replaces nothing while the file is served.
      const before = sha256(real);
      for (const target of [link, real]) {
        const restore = runCli(["restore", "--from", backup, "--state", target]);
        expect(await restore.exited).toBe(2);
        expect(restore.stderr()).toContain(`is in use by another process (PID ${first.child.pid}:`);
      }
      expect(existsSync(link)).toBe(true);
      expect(readdirNames().filter((name) => name.startsWith("real.db.replaced"))).toEqual([]);
      expect(sha256(real)).toBe(before);

      // A hard link is a second name with a log of its own: refused before anything is opened.
      const hard = join(folder, "hard.db");
      linkSync(real, hard);
      try {
        const viaHard = runCli(["--port", "0", "--state", hard]);
        expect(await exitOrStart(viaHard)).toBe(2);
        expect(viaHard.stderr()).toContain(`state file ${hard}: has 2 names (hard links)`);
        const backupViaHard = runCli(["backup", "--state", hard, "--out", join(folder, "via-hard.db")]);
        expect(await backupViaHard.exited).toBe(2);
        expect(backupViaHard.stderr()).toContain("has 2 names (hard links)");
        expect(existsSync(`${hard}-wal`)).toBe(false);
      } finally {
        rmSync(hard);
      }
    } finally {
      first.child.kill("SIGTERM");
      expect(await first.exited).toBe(0);
    }
  });
});

function readdirNames(): string[] {
  return readdirSync(folder);
}

describe("the release before, and an SQLite shell", () => {
  it("the release before serving the file: this release's start is refused, naming it", async () => {
    const statePath = await closedStateFile("previous-first.db");
    const previous = previousRelease(statePath);
    writers.push(previous);
    const ready = await previous.event("ready");
    const ours = runCli(["--port", "0", "--state", statePath]);
    expect(await exitOrStart(ours)).toBe(2);
    expect(ours.stderr()).toContain(
      `state file ${statePath}: is in use by another process (PID ${ready.pid}:`,
    );
    previous.send("close");
    await previous.event("closed");
  });

  it("the release before starting while this one serves: its first commit stops this server's writes, and no acknowledged order is lost", async () => {
    const statePath = await closedStateFile("previous-second.db");
    const server = runCli(["--port", "0", "--state", statePath]);
    const url = await baseUrlOf(server);
    const stop = { now: false };
    const load = await ordering(url, stop);
    let theirs: number[] = [];
    let loadedNext = 0;
    try {
      await until(() => load.acked.length >= 50);
      const previous = previousRelease(statePath);
      writers.push(previous);
      const ready = await previous.event("ready");
      loadedNext = ready.nextOrderId as number;
      // This server's next commit sees the other's and stops; orders are refused from then on
      // (a server that went on would acknowledge hundreds more meanwhile).
      const ackedThen = load.acked.length;
      await until(() => load.refused.length >= 5 || load.acked.length >= ackedThen + 300);
      expect(load.refused.length).toBeGreaterThanOrEqual(5);
      expect(load.refused[0]).toContain("503");
      expect(load.refused[0]).toContain(`another process (PID ${ready.pid}:`);
      expect(load.refused[0]).toContain(
        `committed to the state file ${statePath} while this server served it`,
      );
      for (let i = 0; i < 3; i += 1) {
        previous.send("order");
        theirs.push((await previous.event("acked")).orderId as number);
      }
      previous.send("close");
      await previous.event("closed");
    } finally {
      stop.now = true;
      await load.done;
      server.child.kill("SIGKILL");
      await server.exited;
    }
    // Every order this server acknowledged is in the file under its account, and the other
    // program's orders took ids after them (it loaded after its first commit, which this server saw).
    const owners = ownersOf(statePath);
    expect(load.acked.length).toBeGreaterThanOrEqual(50);
    for (const orderId of load.acked) expect(owners.get(orderId)).toBe("demo");
    expect(loadedNext).toBeGreaterThan(Math.max(...load.acked));
    theirs = theirs.filter((id) => load.acked.includes(id));
    expect(theirs).toEqual([]);
  });

  it("the way back after a crash: the release before opens the file, serves and closes it; this release starts on it again, nothing missing", async () => {
    const statePath = await closedStateFile("way-back.db");
    const server = runCli(["--port", "0", "--state", statePath]);
    const url = await baseUrlOf(server);
    const ours: number[] = [];
    for (let n = 0; n < 20; n += 1) {
      const r = await sendSigned(url, { ...demo, method: "POST", path: "/api/v3/order", query: order(n) });
      ours.push((r.json as { orderId: number }).orderId);
    }
    server.child.kill("SIGKILL");
    await server.exited;
    expect(existsSync(`${statePath}-wal`)).toBe(true);
    const previous = previousRelease(statePath);
    writers.push(previous);
    await previous.event("ready");
    previous.send("order");
    const theirs = (await previous.event("acked")).orderId as number;
    previous.send("close");
    await previous.event("closed");
    // Its clean close applied the log and removed it; this release's mark is still in the file.
    expect(existsSync(`${statePath}-wal`)).toBe(false);

    const again = runCli(["--port", "0", "--state", statePath]);
    try {
      await baseUrlOf(again);
      expect(again.stderr()).toContain(
        `The state file ${statePath} was left open by a server of this release (process ${server.child.pid} on`,
      );
    } finally {
      again.child.kill("SIGTERM");
      expect(await again.exited).toBe(0);
    }
    const owners = ownersOf(statePath);
    for (const orderId of ours) expect(owners.get(orderId)).toBe("demo");
    expect(owners.get(theirs)).toBe("previous");
  });

  it("an SQLite shell: its commit stops this server's writes; while it has the file open, a start is refused", async () => {
    const statePath = await closedStateFile("shell.db");
    const server = runCli(["--port", "0", "--state", statePath]);
    const url = await baseUrlOf(server);
    const placed = await sendSigned(url, { ...demo, method: "POST", path: "/api/v3/order", query: order(1) });
    expect(placed.status).toBe(200);
    const shell = sqliteShell(
      statePath,
      "INSERT OR REPLACE INTO meta (key, value) VALUES ('note', 'by hand')",
    );
    writers.push(shell);
    await shell.event("ready");
    const refused = await sendSigned(url, {
      ...demo,
      method: "POST",
      path: "/api/v3/order",
      query: order(2),
    });
    expect(refused.status).toBe(503);
    expect((refused.json as { msg: string }).msg).toMatch(new RegExp(`PID ${shell.child.pid}: \\S*python3`));
    server.child.kill("SIGTERM");
    expect(await server.exited).toBe(0);

    const again = runCli(["--port", "0", "--state", statePath]);
    expect(await exitOrStart(again)).toBe(2);
    expect(again.stderr()).toMatch(
      new RegExp(`is in use by another process \\(PID ${shell.child.pid}: \\S*python3`),
    );
    shell.send("close");
    await shell.event("closed");
    const afterwards = runCli(["--port", "0", "--state", statePath]);
    await baseUrlOf(afterwards);
    afterwards.child.kill("SIGTERM");
    expect(await afterwards.exited).toBe(0);
  });
});

describe("a companion path that is a link", () => {
  const companions: [string, (statePath: string) => string][] = [
    ["the lock file, a link to the state file", (statePath) => `${statePath}.lock`],
    ["the shared memory, a link to the state file", (statePath) => `${statePath}-shm`],
    ["the write-ahead log, a link to another file", (statePath) => `${statePath}-wal`],
  ];
  it.each(companions)(
    "is refused before anything is opened, the state file byte for byte as it was: %s",
    async (name, companion) => {
      const statePath = await closedStateFile(`companion-${name.split(",")[0]?.replace(/\W+/g, "-")}.db`);
      const target = name.includes("another file") ? join(folder, "elsewhere") : statePath;
      if (target !== statePath) writeFileSync(target, "");
      rmSync(companion(statePath), { force: true }); // the lock file a server leaves
      symlinkSync(target, companion(statePath));
      const hash = sha256(statePath);
      const run = runCli(["--port", "0", "--state", statePath]);
      expect(await exitOrStart(run)).toBe(2);
      expect(run.stderr()).toContain(`state file ${statePath}: its `);
      expect(run.stderr()).toContain(`${companion(statePath)} is a symbolic link`);
      expect(sha256(statePath)).toBe(hash);
      rmSync(companion(statePath));
    },
  );
});
