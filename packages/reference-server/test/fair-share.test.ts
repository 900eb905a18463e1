// Fair service, counted: what one client's pipelining costs the others is measured in requests
// parsed and served, never in time. Waiting requests are served address after address and at most
// `requestsPerTurn` in a turn of the event loop (the answer budget against a real node:http server);
// a storm of connections pipelining thousands of requests and never reading costs each connection
// a few requests, and a bystander on another address is answered throughout (the real server).
import { subscribe, unsubscribe } from "node:diagnostics_channel";
import { Agent, createServer, type IncomingMessage, type Server } from "node:http";
import { connect, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { AnswerBudget, DEFAULT_FAIR_SHARE, type FairShareLimits } from "../src/http/backpressure.js";
import { DEFAULT_CONNECTION_LIMITS } from "../src/http/connections.js";
import { NODE_READING } from "../src/http/reading.js";
import { type RunningServer, startServer } from "../src/index.js";
import { send } from "./support/http.js";
import { pipeliningAttack } from "./support/pipelining-attack.js";

const servers: Server[] = [];
let running: RunningServer | undefined;
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  await running?.close();
  running = undefined;
});

/** A node:http server behind an answer budget that records which client each served request came from. */
async function budgeted(limits: Partial<typeof LIMITS> = {}, share: Partial<FairShareLimits> = {}) {
  const served: string[] = [];
  let turnsSeen = 0;
  const perTurn: number[] = [];
  const budget = new AnswerBudget({ ...LIMITS, ...limits }, NODE_READING, share);
  const server = createServer(
    budget.guard((req, res) => {
      served.push(String(req.headers["x-client"]));
      perTurn[turnsSeen] = (perTurn[turnsSeen] ?? 0) + 1;
      res.writeHead(200, { "Content-Length": "2" }).end("ok");
    }),
  );
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  // The test's own count of turns: one step per turn of the event loop while requests are served.
  let counting = true;
  const count = () => {
    turnsSeen += 1;
    if (counting) setImmediate(count);
  };
  setImmediate(count);
  return {
    port,
    served,
    /** Requests served in each turn of the event loop that served any. */
    perTurn: () => perTurn.filter((n) => n > 0),
    stop: () => {
      counting = false;
    },
  };
}

const LIMITS = {
  maxQueuedBytesPerConnection: DEFAULT_CONNECTION_LIMITS.maxQueuedBytesPerConnection,
  maxQueuedBytes: DEFAULT_CONNECTION_LIMITS.maxQueuedBytes,
  maxWaitingRequests: DEFAULT_CONNECTION_LIMITS.maxWaitingRequests,
};

function connected(port: number, localAddress: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: "127.0.0.1", localAddress }, () => resolve(socket));
    socket.once("error", reject);
  });
}

/** `count` pipelined GETs, each naming its client in a header. */
function burst(client: string, count: number): string {
  return `GET /x HTTP/1.1\r\nHost: x\r\nX-Client: ${client}\r\n\r\n`.repeat(count);
}

/** Resolves once `socket` has received `count` answers. */
function answers(socket: Socket, count: number): Promise<void> {
  let seen = 0;
  return new Promise((resolve) => {
    socket.on("data", (chunk: Buffer) => {
      seen += chunk.toString("latin1").split("HTTP/1.1 200 OK").length - 1;
      if (seen >= count) resolve();
    });
  });
}

describe("waiting requests", () => {
  it("are served client address after client address, not connection after connection", async () => {
    // A turn's share smaller than what a connection may have in progress (16): the share, not
    // each connection's own limit, decides who is served.
    const { port, served, stop } = await budgeted({}, { requestsPerTurn: 6 });
    const PIPELINED = 40;
    // Address A opens two connections, address B one; all three pipeline at once.
    const clients = [
      { name: "a1", socket: await connected(port, "127.0.0.1") },
      { name: "a2", socket: await connected(port, "127.0.0.1") },
      { name: "b", socket: await connected(port, "127.0.0.2") },
    ];
    const done = clients.map(({ socket }) => answers(socket, PIPELINED));
    for (const { name, socket } of clients) socket.write(burst(name, PIPELINED));
    await Promise.all(done);
    stop();
    for (const { socket } of clients) socket.destroy();

    expect(served).toHaveLength(3 * PIPELINED);
    // When B's last request is served, A (two connections) has had about as many: its share is
    // an address's, not two connections'. Served connection after connection, A would have had
    // twice as many (80, all of them).
    const lastOfB = served.lastIndexOf("b");
    const ofA = served.slice(0, lastOfB).filter((client) => client !== "b").length;
    expect(ofA).toBeLessThanOrEqual(PIPELINED + 2);
    // Within A, its two connections share equally.
    const lastOfA1 = served.lastIndexOf("a1");
    const a2BeforeThat = served.slice(0, lastOfA1).filter((client) => client === "a2").length;
    expect(a2BeforeThat).toBeGreaterThanOrEqual(PIPELINED - 2);
  });

  it(`are served at most ${DEFAULT_FAIR_SHARE.requestsPerTurn} in a turn of the event loop`, async () => {
    // A waiting cap above what is pipelined (so is the address's share, four times the cap):
    // nothing is dropped, everything waits its turn. Eight connections, each allowed 16 answers
    // in progress: 128 could be served in one turn.
    const CONNECTIONS = 8;
    const PIPELINED = 100;
    const { port, served, perTurn, stop } = await budgeted({ maxWaitingRequests: 1000 });
    const sockets = await Promise.all(
      Array.from({ length: CONNECTIONS }, () => connected(port, "127.0.0.1")),
    );
    const done = sockets.map((socket) => answers(socket, PIPELINED));
    for (const [i, socket] of sockets.entries()) socket.write(burst(`c${i}`, PIPELINED));
    await Promise.all(done);
    stop();
    for (const socket of sockets) socket.destroy();

    expect(served).toHaveLength(CONNECTIONS * PIPELINED);
    // Each connection's first request served as soon as it is read, then the waiting ones, a
    // turn's share at a time.
    expect(Math.max(...perTurn())).toBeLessThanOrEqual(DEFAULT_FAIR_SHARE.requestsPerTurn + CONNECTIONS);
  });
});

describe("a storm of connections that pipeline and never read", () => {
  it("costs each connection a few requests, and another address is answered throughout", async () => {
    const CONNECTIONS = 200;
    const ATTACKERS = ["127.0.0.1", "127.0.0.2"];
    running = await startServer({ config: { network: { maxConnectionsPerAddress: CONNECTIONS } } });
    const url = running.url;
    // Every request Node parses, by the client's address (the server's own count, no clock).
    let parsedFromAttackers = 0;
    let closedAttackers = 0;
    const onRequest = (message: unknown) => {
      const { request } = message as { request: IncomingMessage };
      if (ATTACKERS.includes(request.socket.remoteAddress ?? "")) parsedFromAttackers += 1;
    };
    const onSocket = (message: unknown) => {
      const { socket } = message as { socket: Socket };
      if (!ATTACKERS.includes(socket.remoteAddress ?? "")) return;
      socket.once("close", () => {
        closedAttackers += 1;
      });
    };
    subscribe("http.server.request.start", onRequest);
    subscribe("net.server.socket", onSocket);
    try {
      const attack = await pipeliningAttack(url, {
        connections: CONNECTIONS,
        requestsPerConnection: 2000,
        addresses: ATTACKERS,
      });
      // A bystander on a third address while the server works through the storm: pings on new
      // connections (each accepted behind the attackers') and on one kept alive.
      const statuses: number[] = [];
      const kept = new Agent({ keepAlive: true, localAddress: "127.0.0.3" } as never);
      while (closedAttackers < CONNECTIONS) {
        const fresh = new Agent({ localAddress: "127.0.0.3" } as never);
        statuses.push((await send(url, { path: "/api/v3/ping" }, fresh)).status);
        statuses.push((await send(url, { path: "/api/v3/ping" }, kept)).status);
      }
      kept.destroy();
      await attack.stop();

      expect(statuses.length).toBeGreaterThan(0);
      expect(statuses.every((status) => status === 200)).toBe(true);
      // Each connection: its first request served, one more that waits (on the address's share),
      // one that drops it; plus the address's share of waiting requests, spent once.
      const waitingPerAddress = 4 * DEFAULT_CONNECTION_LIMITS.maxWaitingRequests;
      const bound = 3 * CONNECTIONS + ATTACKERS.length * waitingPerAddress;
      // Without the address's share, each of them would be parsed up to its own waiting cap: 66
      // requests each, 13,200 in all.
      expect(parsedFromAttackers).toBeGreaterThanOrEqual(CONNECTIONS);
      expect(parsedFromAttackers).toBeLessThanOrEqual(bound);
    } finally {
      unsubscribe("http.server.request.start", onRequest);
      unsubscribe("net.server.socket", onSocket);
    }
  });
});
