/**
 * Faults below HTTP's messages, which the answer-rewriting proxy (fault-proxy.ts) cannot make:
 * a TCP proxy in front of a real server that changes what reaches it on each connection.
 */

import type { AddressInfo } from "node:net";
import { connect, createServer, type Server, type Socket } from "node:net";

export interface ConnectionFault {
  name: string;
  description: string;
  /** Checks of which at least one must fail. */
  caughtBy: string[];
  /**
   * What of the client's bytes on one connection goes on to the server (each read in turn);
   * `state` is the connection's: `inBurst` holds its place in the burst it arrived in (connections
   * each accepted less than BURST_GAP_MS after the one before).
   */
  forward(chunk: Buffer, state: Map<string, unknown>): Buffer;
}

/** The end of the first request's head in `chunk` (requests without body), or -1. */
const firstHeadEnd = (chunk: Buffer) => chunk.indexOf("\r\n\r\n");

export function connectionFaults(): ConnectionFault[] {
  return [
    {
      name: "pipelined-request-left-unanswered",
      description:
        "a request that arrives behind another on one connection, before the first is answered, is never served, and the connection stays open",
      caughtBy: ["not_a_server_error"],
      forward: (chunk, state) => {
        if (state.get("held")) return Buffer.alloc(0);
        const end = firstHeadEnd(chunk);
        if (end < 0 || end + 4 >= chunk.length) return chunk;
        state.set("held", true);
        return chunk.subarray(0, end + 4);
      },
    },
    {
      name: "pipelined-past-a-bound-left-unanswered",
      description:
        "of the requests pipelined on one connection, those past the 32nd are dropped unread, and the connection stays open (a bound on waiting requests that neither serves nor closes)",
      caughtBy: ["not_a_server_error"],
      forward: (chunk, state) => {
        if (state.get("dropping")) return Buffer.alloc(0);
        const heads: number[] = [];
        for (let end = firstHeadEnd(chunk); end >= 0; end = chunk.indexOf("\r\n\r\n", end + 4))
          heads.push(end + 4);
        // A read of one request is a client waiting for each answer: the count starts again.
        const seen = heads.length > 1 ? ((state.get("pipelined") as number | undefined) ?? 0) : 0;
        state.set("pipelined", seen + heads.length);
        if (seen + heads.length <= PIPELINE_BOUND) return chunk;
        state.set("dropping", true);
        return chunk.subarray(0, heads[PIPELINE_BOUND - seen - 1] ?? 0);
      },
    },
    {
      name: "clients-past-a-bound-at-once-left-unanswered",
      description: `of the connections that arrive in one burst (each within ${BURST_GAP_MS} ms of the one before), those past the ${CLIENTS_BOUND}th are taken but never served, and stay open (a server whose workers take a bounded number of clients at once and leave the rest waiting forever)`,
      caughtBy: ["not_a_server_error"],
      forward: (chunk, state) => ((state.get("inBurst") as number) > CLIENTS_BOUND ? Buffer.alloc(0) : chunk),
    },
  ];
}

/** How many connections of one burst the fault above serves. */
const CLIENTS_BOUND = 64;
/**
 * The quiet that ends a burst. Neither the connections open at once nor those accepted within a
 * fixed window are a count a test can rely on: a process accepts clients that connected together
 * one at a time, serving the first while the rest wait (from 4 to 65 of 100 open at once were
 * seen), and slower still on a busy machine (a window of 200 ms once held fewer than 65). A gap
 * this long never falls inside a burst the tester writes at one moment.
 */
const BURST_GAP_MS = 5000;

/**
 * Faults of a connection used on, for the load phase's connection probes (rate_limit_enforcement,
 * --load): caught by requests sent in groups on one connection, or in pieces.
 */
export function loadConnectionFaults(): ConnectionFault[] {
  return [
    {
      name: "connection-stops-reading-after-pipelined-requests",
      description:
        "once a read has brought two requests or more, the connection is never read again: what its client sends after their answers gets none, and the connection stays open",
      caughtBy: ["rate_limit_enforcement"],
      forward: (chunk, state) => {
        if (state.get("deaf")) return Buffer.alloc(0);
        if (requestHeads(chunk) >= 2) state.set("deaf", true);
        return chunk;
      },
    },
    {
      name: "missing-host-served",
      description:
        "an HTTP/1.1 request without Host is served as if it named the server (RFC 9112 §3.2: 400)",
      caughtBy: ["rate_limit_enforcement"],
      forward: (chunk) =>
        withHeadLines(chunk, (lines) =>
          lines.some(isHost) || !/ HTTP\/1\.1$/.test(lines[0] ?? "")
            ? lines
            : [lines[0]!, "Host: localhost", ...lines.slice(1)],
        ),
    },
    {
      name: "request-in-pieces-misread",
      description: `a read of fewer than ${SHORTEST_READ} bytes is dropped (taken for noise between requests), so a request that arrives in small pieces is read with bytes missing`,
      caughtBy: ["rate_limit_enforcement"],
      forward: (chunk) => (chunk.length < SHORTEST_READ ? Buffer.alloc(0) : chunk),
    },
  ];
}

/** Reads shorter than this are dropped by the misreading fault: no whole request line is that short. */
const SHORTEST_READ = 8;

/** The request heads that end in `chunk`. */
function requestHeads(chunk: Buffer): number {
  let heads = 0;
  for (let end = firstHeadEnd(chunk); end >= 0; end = chunk.indexOf("\r\n\r\n", end + 4)) heads += 1;
  return heads;
}

/** The requests one connection may pipeline before the bound of the fault above drops the rest. */
const PIPELINE_BOUND = 32;

export interface ConnectionProxy {
  url: string;
  close(): Promise<void>;
}

/** A TCP proxy on 127.0.0.1 in front of `upstream` (an http URL) that applies `fault` to every connection. */
export async function startConnectionProxy(
  upstream: string,
  fault: ConnectionFault,
): Promise<ConnectionProxy> {
  const target = new URL(upstream);
  const sockets = new Set<Socket>();
  let burst = 0;
  let lastArrival = Number.NEGATIVE_INFINITY;
  const server: Server = createServer((client) => {
    const now = performance.now();
    burst = now - lastArrival < BURST_GAP_MS ? burst + 1 : 1;
    lastArrival = now;
    const state = new Map<string, unknown>([["inBurst", burst]]);
    const server = connect({ host: target.hostname, port: Number(target.port) });
    for (const socket of [client, server]) {
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
      socket.on("error", () => undefined);
    }
    client.on("data", (chunk: Buffer) => {
      const forwarded = fault.forward(chunk, state);
      if (forwarded.length > 0) server.write(forwarded);
    });
    server.on("data", (chunk: Buffer) => client.write(chunk));
    client.on("end", () => server.end());
    server.on("end", () => client.end());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

const isHost = (line: string) => /^host\s*:/i.test(line);

/** `chunk` with the lines of each request head it holds whole changed by `change` (bodies kept). */
function withHeadLines(chunk: Buffer, change: (lines: string[]) => string[]): Buffer {
  const text = chunk.toString("latin1");
  const end = text.indexOf("\r\n\r\n");
  if (end < 0 || !/^[A-Z]+ \S+ HTTP\/1\.\d\r\n/.test(text)) return chunk;
  const head = change(text.slice(0, end).split("\r\n")).join("\r\n");
  return Buffer.concat([Buffer.from(head, "latin1"), chunk.subarray(end)]);
}
