// One client cannot starve the others: connections from two loopback addresses pipeline thousands
// of exchangeInfo requests each and never read an answer. The server (a real child process) serves
// only a bounded number of them, its memory stays bounded, and a third address keeps being served.
// Sizes are counted, never timed.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { Agent } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { baseUrlOf, runCli } from "./support/cli.js";
import { send } from "./support/http.js";
import { memoryOf, pipeliningAttack } from "./support/pipelining-attack.js";

const folder = mkdtempSync(join(tmpdir(), "marketapi-abuse-"));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const CONNECTIONS = 40;
const PIPELINED = 2000;
const EXCHANGE_INFO_WEIGHT = 20;

/** Requests the server served to an address this minute, read from its used-weight header. */
async function servedTo(url: string, localAddress: string): Promise<number> {
  const r = await send(url, { path: "/api/v3/time" }, new Agent({ localAddress } as never));
  return Number(r.headers["x-mbx-used-weight-1m"]) - 1;
}

describe("pipelining clients that never read", () => {
  it("are served a bounded number of answers while another address is served throughout", async () => {
    const config = join(folder, "config.json");
    writeFileSync(config, JSON.stringify({ network: { maxConnectionsPerAddress: CONNECTIONS } }));
    const run = runCli(["--port", "0", "--config", config]);
    try {
      const url = await baseUrlOf(run);
      const pid = run.child.pid as number;
      await send(url, { path: "/api/v3/exchangeInfo" }, new Agent({ localAddress: "127.0.0.9" } as never));
      const before = await memoryOf(pid);

      const attack = await pipeliningAttack(url, {
        connections: CONNECTIONS,
        requestsPerConnection: PIPELINED,
        addresses: ["127.0.0.1", "127.0.0.2"],
      });
      // A bystander on a third address, a fresh connection per ping, during the attack.
      const statuses: number[] = [];
      for (let i = 0; i < 20; i += 1) {
        const r = await send(
          url,
          { path: "/api/v3/ping" },
          new Agent({ localAddress: "127.0.0.3" } as never),
        );
        statuses.push(r.status);
      }
      await attack.stop();
      const after = await memoryOf(pid);

      expect(statuses).toEqual(Array(20).fill(200));
      const sent = (CONNECTIONS / 2) * PIPELINED;
      for (const address of ["127.0.0.1", "127.0.0.2"]) {
        const served = (await servedTo(url, address)) / EXCHANGE_INFO_WEIGHT;
        // Unbounded, every one of the `sent` requests is answered into buffers nobody reads.
        expect(served).toBeLessThan(sent / 10);
      }
      // The answers would be 40 × 2000 × 4.8 kB = 390 MB. Unbounded, the peak grew 322 MB in this
      // test; bounded, 85 to 190 MB (most of it parsing the requests Node reads before the drop).
      expect(after.peak - before.rss).toBeLessThan(250 * 1024 * 1024);
    } finally {
      run.child.kill("SIGKILL");
      await run.exited;
    }
  });
});
