// The per-connection backpressure stops and restarts reading through Node's http internals
// (`socket._paused`, the parser's `onIncoming`) where a socket has them, and through the socket's
// public pause()/resume() where it does not. Both ways are run here against a real http server on
// 127.0.0.1: a client that pipelines and does not read is served a bounded number of answers while
// another client is served, and gets every answer once it reads; a connection answered with
// `Connection: close` is served nothing more. Counts only, never times.
import { createServer, type Server } from "node:http";
import { connect, createServer as createNetServer, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { AnswerBudget } from "../src/http/backpressure.js";
import { NODE_READING, PUBLIC_READING, type ReadingControl } from "../src/http/reading.js";
import { send } from "./support/http.js";

/** Large enough that a few answers fill the loopback's kernel buffers of a client that does not read. */
const BODY = Buffer.alloc(1024 * 1024, "x");
const PIPELINED = 48;
const LIMITS = {
  maxQueuedBytesPerConnection: 2 * BODY.length,
  maxQueuedBytes: 64 * BODY.length,
  maxWaitingRequests: 64,
};

interface Served {
  server: Server;
  url: string;
  /** Requests the listener was handed, by path. */
  served: Map<string, number>;
  /** Requests Node parsed and emitted, served or not. */
  parsed: () => number;
  budget: AnswerBudget;
}

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

async function serve(reading: ReadingControl): Promise<Served> {
  const served = new Map<string, number>();
  const budget = new AnswerBudget(LIMITS, reading);
  const server = createServer(
    budget.guard((req, res) => {
      const path = req.url ?? "";
      served.set(path, (served.get(path) ?? 0) + 1);
      if (path === "/big-head") {
        // Headers given to writeHead alone (as the pipeline writes its answers): getHeader sees none.
        res.writeHead(200, { "Content-Length": String(BODY.length) }).end(BODY);
        return;
      }
      if (path === "/close") res.setHeader("Connection", "close");
      res.setHeader("Content-Length", path === "/big" ? BODY.length : 2);
      // A slow answer keeps its request in service: more of them than the budget serves at once wait.
      if (path === "/slow") setTimeout(() => res.end("ok"), 5);
      else res.end(path === "/big" ? BODY : "ok");
    }),
  );
  let parsed = 0;
  server.prependListener("request", () => {
    parsed += 1;
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address() as { port: number };
  return { server, url: `http://127.0.0.1:${address.port}`, served, parsed: () => parsed, budget };
}

/** A raw connection that writes `count` pipelined GETs of `path` and does not read until told to. */
function pipelining(url: string, path: string, count: number) {
  const socket = connect(Number(new URL(url).port), "127.0.0.1");
  socket.pause();
  const chunks: Buffer[] = [];
  let bytes = 0;
  socket.on("data", (chunk: Buffer) => {
    chunks.push(chunk);
    bytes += chunk.length;
  });
  const closed = new Promise<void>((resolve) => socket.on("close", () => resolve()));
  socket.on("error", () => undefined);
  socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`.repeat(count));
  return {
    socket,
    closed,
    received: () => Buffer.concat(chunks).toString("latin1"),
    bytes: () => bytes,
  };
}

/** Requests pipelined after one whose answer closes the connection (one small write: one read). */
const CLOSING = 20;

/** More than the budget serves of one connection at once (16), so that some of them wait. */
const SLOW = 40;

function answers(received: string): number {
  return received.split("HTTP/1.1 200 OK").length - 1;
}

/** Waits until `value()` has stopped changing over a few checks. */
async function settled(value: () => number): Promise<number> {
  let last = -1;
  let same = 0;
  while (same < 5) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    const now = value();
    same = now === last ? same + 1 : 0;
    last = now;
  }
  return last;
}

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 20));
}

describe.each([
  // The parser stops at the message after the closing answer: only that one was parsed.
  { given: "Node's hooks", reading: NODE_READING, parsedAfterClose: [1, 1] },
  // Node parses the rest of what it had read (all of it, unless it came in two reads); the budget
  // drops those requests unserved.
  { given: "the public socket API only", reading: PUBLIC_READING, parsedAfterClose: [1, CLOSING] },
])("reading controlled through $given", ({ reading, parsedAfterClose }) => {
  it("serves a client that does not read a bounded number of answers, others throughout, and all once it reads", async () => {
    const { url, served } = await serve(reading);
    const client = pipelining(url, "/big", PIPELINED);
    const whileBlocked = await settled(() => served.get("/big") ?? 0);
    expect(whileBlocked).toBeGreaterThan(0);
    expect(whileBlocked).toBeLessThan(PIPELINED);

    const other = await send(url, { path: "/small" });
    expect(other.status).toBe(200);

    client.socket.resume();
    const answer = BODY.length + "HTTP/1.1 200 OK".length;
    await until(() => client.bytes() >= PIPELINED * answer);
    expect(served.get("/big")).toBe(PIPELINED);
    expect(client.received().split("HTTP/1.1 200 OK").length - 1).toBe(PIPELINED);
    client.socket.destroy();
  });

  it.each(["/big", "/big-head"])("counts the bytes of %s answers the client has not taken", async (path) => {
    const { url, served, budget } = await serve(reading);
    const client = pipelining(url, path, PIPELINED);
    await settled(() => served.get(path) ?? 0);
    // Blocked: at least the answer the network did not take is counted, whole. (Headers given to
    // writeHead alone are invisible to getHeader: counted by Content-Length, such an answer would
    // be a few hundred bytes.)
    expect(budget.queued).toBeGreaterThanOrEqual(BODY.length);
    expect(budget.queued).toBeLessThanOrEqual(LIMITS.maxQueuedBytesPerConnection + BODY.length + 1024);
    client.socket.destroy();
    await until(() => budget.queued === 0);
  });

  it("reads a connection again once the requests that waited are answered", async () => {
    const { url, served } = await serve(reading);
    const client = pipelining(url, "/slow", SLOW);
    client.socket.resume();
    await until(() => answers(client.received()) === SLOW);
    // Nothing of this request was read before: only a resumed socket can answer it.
    client.socket.write("GET /small HTTP/1.1\r\nHost: x\r\n\r\n");
    await until(() => answers(client.received()) === SLOW + 1);
    expect(served.get("/slow")).toBe(SLOW);
    expect(served.get("/small")).toBe(1);
    client.socket.destroy();
  });

  it("serves nothing more on a connection after an answer that closes it", async () => {
    const { url, served, parsed } = await serve(reading);
    const client = pipelining(url, "/close", CLOSING);
    client.socket.resume();
    await client.closed;
    expect(served.get("/close")).toBe(1);
    const [fewest, most] = parsedAfterClose as [number, number];
    expect(parsed()).toBeGreaterThanOrEqual(fewest);
    expect(parsed()).toBeLessThanOrEqual(most);
    expect(client.received().split("HTTP/1.1 200 OK").length - 1).toBe(1);
  });
});

describe("Node's hooks", () => {
  it("are used only on a socket that has them: a plain socket is paused and resumed through its public API", async () => {
    const accepted: Socket[] = [];
    const plain = createNetServer((socket) => accepted.push(socket));
    await new Promise<void>((resolve) => plain.listen(0, "127.0.0.1", resolve));
    const client = connect((plain.address() as { port: number }).port, "127.0.0.1");
    try {
      await until(() => accepted.length === 1);
      const socket = accepted[0] as Socket;
      expect("_paused" in socket).toBe(false);
      NODE_READING.pause(socket);
      expect(socket.isPaused()).toBe(true);
      expect("_paused" in socket).toBe(false);
      NODE_READING.resume(socket);
      expect(socket.isPaused()).toBe(false);
      NODE_READING.stopParsing(socket);
      expect(socket.isPaused()).toBe(true);
    } finally {
      client.destroy();
      for (const socket of accepted) socket.destroy();
      await new Promise((resolve) => plain.close(resolve));
    }
  });
});
