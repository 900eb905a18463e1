// Storage failures while running, on a small tmpfs this test mounts (needs root, as in CI): the
// server must refuse orders with a clear error, keep answering reads, keep nothing it could not
// save, and take orders again once the disk can be written.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer } from "../src/index.js";
import { send, sendSigned } from "./support/http.js";

const mountPoint = mkdtempSync(join(tmpdir(), "marketapi-tmpfs-"));

function tryMount(): string | undefined {
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=4m", "tmpfs", mountPoint], { stdio: "pipe" });
    return undefined;
  } catch (error) {
    return `cannot mount a tmpfs here (${(error as Error).message.split("\n")[0]}); run as root to test full and read-only disks`;
  }
}

const unavailable = process.platform === "linux" ? tryMount() : "Linux only";
if (unavailable) console.warn(`storage-faults: skipped: ${unavailable}`);
afterAll(() => {
  if (!unavailable) execFileSync("umount", ["-l", mountPoint]);
  rmSync(mountPoint, { recursive: true, force: true });
});

const demo = { apiKey: "marketapi-demo-api-key", apiSecret: "marketapi-demo-api-secret" };
const order = (price: number) =>
  `symbol=ETHUSDT&side=SELL&type=LIMIT&timeInForce=GTC&quantity=0.01&price=${price}`;

describe.skipIf(unavailable !== undefined)("storage failures while running", () => {
  let filler: string;
  beforeAll(() => {
    filler = join(mountPoint, "filler");
  });

  it("a full disk: orders refused with a clear error, reads served, nothing kept; then recovery", async () => {
    const statePath = join(mountPoint, "full.db");
    const server = await startServer({ statePath, empty: true });
    try {
      const before = await sendSigned(server.url, {
        ...demo,
        method: "POST",
        path: "/api/v3/order",
        query: order(5000),
      });
      expect(before.status).toBe(200);
      const openBefore = server.exchange.openOrders("demo");
      // Fill the disk: dd stops with "No space left on device".
      try {
        execFileSync("dd", ["if=/dev/zero", `of=${filler}`, "bs=64k"], { stdio: "pipe" });
      } catch {}
      const refused: number[] = [];
      for (let i = 0; i < 40 && refused.length === 0; i += 1) {
        const r = await sendSigned(server.url, {
          ...demo,
          method: "POST",
          path: "/api/v3/order",
          query: order(5001 + i),
        });
        if (r.status !== 200) {
          refused.push(r.status);
          expect(r.json).toMatchObject({ code: -1001 });
          expect((r.json as { msg: string }).msg).toMatch(
            /The state database cannot be written: the disk is full \(database or disk is full\); the server refuses orders/,
          );
        }
      }
      expect(refused).toEqual([503]);
      // Nothing that was refused stayed in the live state; reads keep working.
      const open = await sendSigned(server.url, { ...demo, method: "GET", path: "/api/v3/openOrders" });
      expect(open.status).toBe(200);
      const ids = (open.json as { orderId: number }[]).map((o) => o.orderId);
      const acceptedSince = ids.filter((id) => !openBefore.some((o) => o.orderId === id));
      expect((await send(server.url, { path: "/api/v3/depth", query: "symbol=ETHUSDT" })).status).toBe(200);
      const next = await sendSigned(server.url, {
        ...demo,
        method: "POST",
        path: "/api/v3/order",
        query: order(6000),
      });
      expect(next.status).toBe(503);

      // Space again: after the next probe (every 5 s) orders are taken again, however late a loaded
      // machine runs it (the poll's limit is for hangs).
      rmSync(filler);
      await expect
        .poll(
          async () =>
            (
              await sendSigned(server.url, {
                ...demo,
                method: "POST",
                path: "/api/v3/order",
                query: order(7000),
              })
            ).status,
          { interval: 200 },
        )
        .toBe(200);
      await server.close();
      // Every order answered 200 is in the database; the refused ones are not.
      const reopened = await startServer({ statePath });
      const reopenedIds = reopened.exchange.openOrders("demo").map((o) => o.orderId);
      for (const id of acceptedSince) expect(reopenedIds).toContain(id);
      expect(reopened.exchange.openOrders("demo").some((o) => o.price === "7000.00000000")).toBe(true);
      expect(reopened.exchange.openOrders("demo").some((o) => o.price === "6000.00000000")).toBe(false);
      await reopened.close();
    } finally {
      rmSync(filler, { force: true });
      await server.close();
    }
  });

  it("a state file deleted while running: orders refused, reads served", async () => {
    const statePath = join(mountPoint, "deleted.db");
    const server = await startServer({ statePath, empty: true });
    try {
      expect(
        (await sendSigned(server.url, { ...demo, method: "POST", path: "/api/v3/order", query: order(5000) }))
          .status,
      ).toBe(200);
      for (const suffix of ["", "-wal", "-shm"]) rmSync(`${statePath}${suffix}`, { force: true });
      const r = await sendSigned(server.url, {
        ...demo,
        method: "POST",
        path: "/api/v3/order",
        query: order(5100),
      });
      expect(r.status).toBe(503);
      expect((r.json as { msg: string }).msg).toMatch(/The state database cannot be written/);
      expect(
        (await sendSigned(server.url, { ...demo, method: "GET", path: "/api/v3/openOrders" })).status,
      ).toBe(200);
      expect(server.exchange.openOrders("demo").map((o) => o.price)).toEqual(["5000.00000000"]);
    } finally {
      await server.close();
    }
  });

  it("a state file replaced while running (another renamed over it): orders refused, the other file untouched", async () => {
    const statePath = join(mountPoint, "replaced.db");
    const other = join(mountPoint, "other.db");
    const server = await startServer({ statePath, empty: true });
    try {
      expect(
        (await sendSigned(server.url, { ...demo, method: "POST", path: "/api/v3/order", query: order(5000) }))
          .status,
      ).toBe(200);
      writeFileSync(other, "not the state database");
      renameSync(other, statePath);
      const r = await sendSigned(server.url, {
        ...demo,
        method: "POST",
        path: "/api/v3/order",
        query: order(5100),
      });
      expect(r.status).toBe(503);
      expect((r.json as { msg: string }).msg).toMatch(/deleted or replaced/);
      expect(readFileSync(statePath, "utf8")).toBe("not the state database");
    } finally {
      await server.close();
    }
  });

  it("a read-only folder at start-up is exit code 2 material (a StateFileError)", async () => {
    writeFileSync(join(mountPoint, "keep"), "");
    execFileSync("mount", ["-o", "remount,ro", mountPoint]);
    try {
      await expect(startServer({ statePath: join(mountPoint, "new.db"), empty: true })).rejects.toThrow(
        /state file .*new\.db: cannot be (opened or created|written)/,
      );
    } finally {
      execFileSync("mount", ["-o", "remount,rw", mountPoint]);
    }
  });
});
