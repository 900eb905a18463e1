// A clean stop is a stop: after SIGTERM the marketapi-server command (a real child process, with a
// state database to look into afterwards) acknowledges no new order, even on open keep-alive
// connections; the request in flight at the signal finishes, and then the process exits.
import { mkdtempSync, rmSync } from "node:fs";
import { Agent } from "node:http";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DEMO_CREDENTIALS, startServer } from "../src/index.js";
import { baseUrlOf, runCli } from "./support/cli.js";
import { hmac, isErrorBody, sendSigned } from "./support/http.js";

const folder = mkdtempSync(join(tmpdir(), "marketapi-shutdown-"));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const SYMBOL = "BTCUSDT";
/** An IOC order in an empty book: it expires at once, so any number can be placed. */
const order = (id: string) =>
  `symbol=${SYMBOL}&side=BUY&type=LIMIT&timeInForce=IOC&quantity=0.001&price=20000&newClientOrderId=${id}`;

interface Attempt {
  id: string;
  /** Sent after the server had printed that it is shutting down. */
  afterNotice: boolean;
  status: number | "error";
  connection?: string | undefined;
  body?: unknown;
  settled?: boolean;
}

function open(url: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => resolve(socket));
    socket.once("error", reject);
  });
}

function received(socket: Socket): { text: () => string; closed: Promise<void> } {
  let text = "";
  socket.on("data", (chunk: Buffer) => {
    text += chunk.toString("latin1");
  });
  socket.on("error", () => undefined);
  return { text: () => text, closed: new Promise((resolve) => socket.once("close", () => resolve())) };
}

/** Waits until `condition` holds, however long a loaded machine takes (the poll's limit is for hangs). */
async function until(condition: () => boolean, what: string): Promise<void> {
  await expect.poll(condition, { message: `waiting for ${what}`, interval: 10 }).toBe(true);
}

describe("SIGTERM", () => {
  it("refuses new requests with 503 and Connection: close, finishes the one in flight, then exits", async () => {
    const statePath = join(folder, "stop.db");
    const run = runCli(["--port", "0", "--empty", "--state", statePath]);
    const url = await baseUrlOf(run);
    const noticed = () => /SIGTERM: shutting down/.test(run.stdout());

    // In flight at the signal: a signed order whose headers the server has taken (it said
    // "100 Continue") and whose body comes only after the signal.
    const inFlightId = "in-flight";
    const body = `${order(inFlightId)}&timestamp=${Date.now()}&recvWindow=60000`;
    const signed = `${body}&signature=${hmac(DEMO_CREDENTIALS.apiSecret, body)}`;
    const slow = await open(url);
    const slowAnswer = received(slow);
    slow.write(
      `POST /api/v3/order HTTP/1.1\r\nHost: x\r\nX-MBX-APIKEY: ${DEMO_CREDENTIALS.apiKey}\r\n` +
        `Content-Type: application/x-www-form-urlencoded\r\nContent-Length: ${signed.length}\r\n` +
        "Expect: 100-continue\r\n\r\n",
    );
    await until(() => slowAnswer.text().includes("100 Continue"), "100 Continue");

    // Started before the signal, completed after it: a new request on an open connection.
    const late = await open(url);
    const lateAnswer = received(late);
    late.write("GET /api/v3/ping HTTP/1.1\r\nHost: x\r\n");

    // Keep-alive clients placing orders without pause, before and after the signal.
    const attempts: Attempt[] = [];
    let stopped = false;
    const loops = Array.from({ length: 4 }, async (_, loop) => {
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      let sending = true;
      for (let n = 0; sending && !stopped; n += 1) {
        const attempt: Attempt = { id: `l${loop}-${n}`, afterNotice: noticed(), status: "error" };
        attempts.push(attempt);
        try {
          const r = await sendSigned(
            url,
            { ...DEMO_CREDENTIALS, method: "POST", path: "/api/v3/order", query: order(attempt.id) },
            agent,
          );
          attempt.status = r.status;
          attempt.connection = r.headers.connection as string | undefined;
          attempt.body = r.json;
        } catch {
          // Refused or reset: the server no longer takes this connection.
          if (run.child.exitCode !== null || attempt.afterNotice) sending = false;
        } finally {
          attempt.settled = true;
        }
      }
      agent.destroy();
    });
    await until(() => attempts.filter((a) => a.status === 200).length >= 100, "100 placed orders");
    run.child.kill("SIGTERM");
    await until(noticed, "the shutdown notice");
    // Each loop has had an answer (or a refused connection) to a request sent after the notice.
    const settledAfterNotice = (loop: number) =>
      attempts.some((a) => a.afterNotice && a.id.startsWith(`l${loop}-`) && a.settled);
    await until(() => [0, 1, 2, 3].every(settledAfterNotice), "answers to requests sent after the notice");
    expect(run.child.exitCode).toBeNull(); // the order in flight holds the process

    late.write("\r\n");
    await lateAnswer.closed;
    expect(lateAnswer.text()).toMatch(/^HTTP\/1\.1 503 Service Unavailable\r\n/);
    expect(lateAnswer.text()).toMatch(/\r\nConnection: close\r\n/i);
    const lateBody = JSON.parse(lateAnswer.text().split("\r\n\r\n")[1] ?? "");
    expect(isErrorBody(lateBody)).toBe(true);
    expect(lateBody).toMatchObject({ code: -1001 });

    slow.write(signed);
    await slowAnswer.closed;
    const finalAnswer = slowAnswer.text().split("HTTP/1.1 100 Continue\r\n\r\n")[1] ?? "";
    expect(finalAnswer).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(finalAnswer).toMatch(/\r\nConnection: close\r\n/i);
    expect(finalAnswer).toContain(`"clientOrderId":"${inFlightId}"`);

    expect(await run.exited).toBe(0);
    stopped = true;
    await Promise.all(loops);
    expect(run.stdout()).toContain("Stopped.");

    const afterNotice = attempts.filter((a) => a.afterNotice);
    expect(afterNotice.length).toBeGreaterThan(0);
    expect(afterNotice.filter((a) => a.status === 200)).toEqual([]);
    for (const refused of afterNotice.filter((a) => a.status !== "error")) {
      expect(refused).toMatchObject({ status: 503, connection: "close", body: { code: -1001 } });
    }
    // Those sent before the notice but after the signal were refused the same way, or reset.
    for (const refused of attempts.filter((a) => a.status !== 200 && a.status !== "error")) {
      expect(refused).toMatchObject({ status: 503, connection: "close", body: { code: -1001 } });
    }

    // What the state database holds is exactly what was acknowledged.
    const reopened = await startServer({ statePath, empty: true });
    try {
      const exists = (id: string) => {
        try {
          reopened.exchange.queryOrder("demo", { symbol: SYMBOL, origClientOrderId: id });
          return true;
        } catch {
          return false;
        }
      };
      expect(exists(inFlightId)).toBe(true);
      const wrong = attempts.filter((a) => exists(a.id) !== (a.status === 200));
      expect(wrong).toEqual([]);
    } finally {
      await reopened.close();
    }
  });
});
