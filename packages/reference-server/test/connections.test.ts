// Connection limits: caps per address and in total, clients that never read their answers, and
// header / body timeouts that fire when configured (not up to 30 s later).
import { connect, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { type RunningServer, startServer } from "../src/index.js";
import { stillClock } from "./support/still-clock.js";

let server: RunningServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function open(url: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => resolve(socket));
    socket.once("error", reject);
  });
}

/** Whether a new connection is served now (a ping answered 200), rather than refused. */
async function servedOnNewConnection(url: string): Promise<boolean> {
  const socket = await open(url);
  const answer = untilClosed(socket);
  socket.write("GET /api/v3/ping HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  return /^HTTP\/1\.1 200 OK/.test(await answer);
}

/** Everything the server sends until it closes the connection. */
function untilClosed(socket: Socket): Promise<string> {
  let text = "";
  socket.on("data", (chunk: Buffer) => {
    text += chunk.toString("latin1");
  });
  return new Promise((resolve) => {
    socket.once("close", () => resolve(text));
    socket.once("error", () => undefined);
  });
}

describe("connection caps", () => {
  it("answers 429 to connections over the per-address cap, and takes new ones once others close", async () => {
    server = await startServer({ empty: true, config: { network: { maxConnectionsPerAddress: 3 } } });
    const held = await Promise.all([open(server.url), open(server.url), open(server.url)]);
    const refused = await open(server.url);
    const answer = await untilClosed(refused);
    expect(answer).toMatch(/^HTTP\/1\.1 429 Too Many Requests\r\n/);
    expect(answer).toContain(
      '{"code":-1003,"msg":"Too many open connections from your address; the limit is 3."}',
    );
    held[0]?.destroy();
    // The server sees the close when it sees it (late on a loaded machine); then a new one is served.
    const url = server.url;
    await expect.poll(() => servedOnNewConnection(url)).toBe(true);
    for (const socket of held) socket.destroy();
  });

  it("answers 503 over the total cap", async () => {
    server = await startServer({ empty: true, config: { network: { maxConnections: 2 } } });
    const held = await Promise.all([open(server.url), open(server.url)]);
    const answer = await untilClosed(await open(server.url));
    expect(answer).toMatch(/^HTTP\/1\.1 503 Service Unavailable\r\n/);
    expect(answer).toContain('"code":-1001');
    for (const socket of held) socket.destroy();
  });

  it("holds at most the cap however many connections one client opens", async () => {
    server = await startServer({ empty: true, config: { network: { maxConnectionsPerAddress: 20 } } });
    const url = server.url;
    let refused = 0;
    let allRefused: () => void = () => undefined;
    const done = new Promise<void>((resolve) => {
      allRefused = resolve;
    });
    const sockets = await Promise.all(
      Array.from({ length: 200 }, async () => {
        const socket = await open(url);
        socket.on("error", () => undefined);
        socket.on("data", (chunk: Buffer) => {
          if (chunk.toString().startsWith("HTTP/1.1 429")) refused += 1;
          if (refused === 180) allRefused();
        });
        return socket;
      }),
    );
    await done;
    // The server closes the 180 it refused; the 20 within the cap stay open and are served (a
    // 429 would come first on its connection, so a served ping tells that none came).
    const stillOpen = () => sockets.filter((socket) => !socket.destroyed && !socket.readableEnded);
    await expect.poll(() => stillOpen().length).toBe(20);
    const answers = await Promise.all(
      stillOpen().map((socket) => {
        const answer = untilClosed(socket);
        socket.write("GET /api/v3/ping HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        return answer;
      }),
    );
    for (const answer of answers) expect(answer).toMatch(/^HTTP\/1\.1 200 OK/);
    expect(refused).toBe(180);
    for (const socket of sockets) socket.destroy();
  });
});

describe("banned clients", () => {
  it("get one 418 per connection, which closes it, and nothing of what they pipeline is served", async () => {
    server = await startServer({
      empty: true,
      now: stillClock,
      config: { rateLimits: { requestWeightPerMinute: 5, banAfter429s: 1, banSeconds: 60 } },
    });
    const ping = "GET /api/v3/ping HTTP/1.1\r\nHost: x\r\n\r\n";
    // Over the weight limit, twice: the second 429 bans the address; then a 418 closes the connection.
    const first = await open(server.url);
    const firstAnswers = untilClosed(first);
    first.write(ping.repeat(12));
    const text = await firstAnswers;
    expect(text.match(/HTTP\/1\.1 418/g)).toHaveLength(1);
    const teapot = text.slice(text.indexOf("HTTP/1.1 418"));
    expect(teapot).toMatch(/\r\nConnection: close\r\n/i);
    expect(teapot.match(/HTTP\/1\.1 /g)).toHaveLength(1); // nothing after the 418

    // A new connection from the banned address: one 418 at once, its 500 requests never parsed.
    const again = await open(server.url);
    const againAnswers = untilClosed(again);
    again.write(ping.repeat(500));
    const refused = await againAnswers;
    expect(refused).toMatch(/^HTTP\/1\.1 418 /);
    expect(refused.match(/HTTP\/1\.1 /g)).toHaveLength(1);
    expect(refused).toContain('"code":-1003');
  });
});

describe("timeouts", () => {
  it("drops a client that does not read its answers after the send timeout", async () => {
    // One connection per address: while the server holds the client that does not read, a new
    // connection is refused, and the first one served tells that the server has dropped it. A
    // waiting cap above what is pipelined: the send timeout, not the cap, is what drops it.
    server = await startServer({
      config: { network: { sendTimeoutMs: 300, maxConnectionsPerAddress: 1, maxWaitingRequests: 4096 } },
    });
    const socket = await open(server.url);
    socket.pause(); // does not read for a while
    // Watched from now: Node 22 and later notice the server's reset even on a paused socket, and
    // close it then, keeping what had arrived in its buffer (readableLength) rather than handing it out.
    let bufferedAtReset = 0;
    socket.on("error", () => {
      bufferedAtReset = socket.readableLength;
    });
    const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
    const pipelined = 2000;
    // Depth answers of ~10 kB each, pipelined, fill the socket buffers on both sides.
    const request = "GET /api/v3/depth?symbol=BTCUSDT&limit=5000 HTTP/1.1\r\nHost: x\r\n\r\n";
    socket.write(request.repeat(pipelined));
    const url = server.url;
    await expect.poll(() => servedOnNewConnection(url)).toBe(true);
    // Reading now gets what the kernel had buffered, then the end: the server gave up on the client.
    let received = "";
    socket.on("data", (chunk: Buffer) => {
      received += chunk.toString("latin1");
    });
    socket.resume();
    await closed;
    // One answer's body, read by a client that reads: more than a dropped client can have had of each.
    const answerBytes = (await (await fetch(`${server.url}${request.split(" ")[1]}`)).arrayBuffer())
      .byteLength;
    const receivedBytes = received.length + bufferedAtReset;
    expect(receivedBytes).toBeGreaterThan(0);
    expect(received.split("HTTP/1.1 200 OK").length - 1).toBeLessThan(pipelined);
    expect(receivedBytes).toBeLessThan(pipelined * answerBytes);
  });

  it("answers 408 when the headers do not arrive within the header timeout", async () => {
    server = await startServer({
      empty: true,
      config: { network: { headersTimeoutMs: 300, requestTimeoutMs: 600 } },
    });
    const socket = await open(server.url);
    socket.write("GET /api/v3/ping HTTP/1.1\r\nHost: x\r\n");
    // Only the header timeout answers 408 here (no clock is read). Node's default check interval
    // would take up to 30 s to send it; the configured one is far shorter.
    const answer = await untilClosed(socket);
    expect(answer).toMatch(/^HTTP\/1\.1 408 Request Timeout/);
  });

  it("answers 408 when the body does not arrive within the request timeout", async () => {
    server = await startServer({
      empty: true,
      config: { network: { headersTimeoutMs: 300, requestTimeoutMs: 600 } },
    });
    const socket = await open(server.url);
    socket.write(
      "POST /api/v3/order HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\nsymbol=",
    );
    const answer = await untilClosed(socket);
    expect(answer).toMatch(/408 Request Timeout/);
  });
});
