// Damaged state files found at start-up, with real files: an empty file is not a new exchange,
// and a page zeroed in the middle of the file is found by the integrity check before any request;
// a refused file is left as it was, also with the log a crash left beside it.

import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  closeSync,
  existsSync,
  linkSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { StateFileError, startServer } from "../src/index.js";
import { baseUrlOf, runCli } from "./support/cli.js";

const folder = mkdtempSync(join(tmpdir(), "marketapi-damaged-"));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const ACCOUNTS = [{ id: "bot", apiKey: "bot-key", apiSecret: "bot-secret" }];
const CONFIG = { symbols: ["BTCUSDT"], accounts: ACCOUNTS };

async function refusal(statePath: string): Promise<Error> {
  const error = await startServer({ statePath, config: CONFIG }).then(
    async (server) => {
      await server.close();
      return new Error("the server started");
    },
    (e: Error) => e,
  );
  expect(error).toBeInstanceOf(StateFileError);
  return error;
}

describe("damaged state files", () => {
  it("an empty file is refused as damaged, not taken for a new exchange", async () => {
    const empty = join(folder, "empty.db");
    writeFileSync(empty, "");
    expect((await refusal(empty)).message).toMatch(/is empty \(0 bytes\), so it is damaged/);
    expect(statSync(empty).size).toBe(0);
  });

  // An operation that links its finished file into place, killed before it removed its aside name.
  const linkedAside = [
    { given: "a creation", aside: "creating", want: "a new state file being created" },
    { given: "a backup (the file is its output)", aside: "partial", want: "a backup being written" },
  ];
  for (const { given, aside, want } of linkedAside) {
    it(`${given} killed between linking the file into place and removing its aside name: the next start serves`, async () => {
      const statePath = join(folder, `linked-${aside}.db`);
      await (await startServer({ statePath, config: CONFIG })).close();
      // The aside name a killed operation left on the file itself (a process id no process has now).
      const pid = spawnSync(process.execPath, ["-e", ""]).pid as number;
      linkSync(statePath, `${statePath}.${aside}-${pid}`);
      const run = runCli(["--port", "0", "--state", statePath]);
      try {
        await baseUrlOf(run);
        expect(run.stderr()).toContain(`linked-${aside}.db.${aside}-${pid} (${want}`);
        expect(statSync(statePath).nlink).toBe(1);
      } finally {
        run.child.kill("SIGTERM");
        expect(await run.exited).toBe(0);
      }
    });

    it(`a second name given to the file is still refused, beside ${given}'s aside name`, async () => {
      const statePath = join(folder, `two-names-${aside}.db`);
      await (await startServer({ statePath, config: CONFIG })).close();
      const pid = spawnSync(process.execPath, ["-e", ""]).pid as number;
      linkSync(statePath, `${statePath}.${aside}-${pid}`);
      linkSync(statePath, join(folder, `other-name-${aside}.db`));
      expect((await refusal(statePath)).message).toMatch(/has 2 names \(hard links\)/);
      rmSync(`${statePath}.${aside}-${pid}`);
      rmSync(join(folder, `other-name-${aside}.db`));
    });
  }

  it("a new state file is created whole: never empty, even when the server is killed at once", async () => {
    const statePath = join(folder, "new.db");
    const run = runCli(["--port", "0", "--state", statePath, "--empty"]);
    await baseUrlOf(run);
    run.child.kill("SIGKILL");
    await run.exited;
    expect(statSync(statePath).size).toBeGreaterThan(0);
    expect(readdirSync(folder).filter((name) => name.includes(".creating-"))).toEqual([]);
    const again = await startServer({ statePath, config: CONFIG });
    await again.close();
  });

  it("a page zeroed in the middle of the file is refused by the integrity check", async () => {
    const statePath = join(folder, "zeroed.db");
    const server = await startServer({ statePath, config: CONFIG, empty: true });
    for (let i = 0; i < 3000; i += 1) {
      const price = String(50_000 + (i % 500));
      server.exchange.newOrder("bot", {
        symbol: "BTCUSDT",
        side: "BUY",
        type: "LIMIT",
        timeInForce: "IOC",
        price,
        quantity: "0.001",
      });
    }
    await server.close();
    expect(existsSync(`${statePath}-wal`)).toBe(false);
    const pageSize = 4096;
    const pages = statSync(statePath).size / pageSize;
    expect(pages).toBeGreaterThan(20);
    const fd = openSync(statePath, "r+");
    writeSync(fd, Buffer.alloc(pageSize), 0, pageSize, Math.floor(pages / 2) * pageSize);
    closeSync(fd);
    expect((await refusal(statePath)).message).toMatch(/is (damaged|corrupt)/);
  });

  it("a file cut short with its log left by kill -9 is refused and left as it was, log and all", async () => {
    const statePath = join(folder, "crashed.db");
    const run = runCli(["--port", "0", "--state", statePath, "--empty"]);
    await baseUrlOf(run);
    run.child.kill("SIGKILL");
    await run.exited;
    expect(statSync(`${statePath}-wal`).size).toBeGreaterThan(0);
    truncateSync(statePath, Math.floor(statSync(statePath).size / 2));
    const before = fingerprints();
    expect((await refusal(statePath)).message).toMatch(/is (damaged|corrupt|truncated)/);
    // Closing the claim's probe last would have applied the log to the file and removed it.
    expect(fingerprints()).toEqual(before);
  });
});

/**
 * The bytes of every file of the folder, by name, but SQLite's shared-memory index (`-shm`): a
 * connection rebuilds it from the log, and it holds nothing of its own.
 */
function fingerprints(): Record<string, string> {
  const prints: Record<string, string> = {};
  for (const name of readdirSync(folder).filter((n) => !n.endsWith("-shm")))
    prints[name] = createHash("sha256")
      .update(readFileSync(join(folder, name)))
      .digest("hex");
  return prints;
}
