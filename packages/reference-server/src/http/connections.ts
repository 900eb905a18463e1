/**
 * Connection limits: a cap on open connections in total and per client address, a send timeout
 * for clients that stop reading, and header and whole-request timeouts checked often enough to
 * fire on time (Node checks them only every `connectionsCheckingInterval`, 30 s by default).
 */
import type { Server, ServerOptions } from "node:http";
import type { Socket } from "node:net";
import type { ApiError } from "../errors.js";
import { markFinished } from "./reading.js";

export interface ConnectionLimits {
  /** Open connections in total; more are answered 503 and closed. */
  maxConnections: number;
  /** Open connections from one client address; more are answered 429 and closed. */
  maxConnectionsPerAddress: number;
  /** How long a client may take to accept a whole answer before the connection is dropped. */
  sendTimeoutMs: number;
  /** Time to send the request line and headers (else 408). */
  headersTimeoutMs: number;
  /** Time to send the whole request, body included (else 408). */
  requestTimeoutMs: number;
  /** An idle keep-alive connection is closed after this long. */
  keepAliveTimeoutMs: number;
  /** Bytes of answers one connection may have waiting to be sent before its requests wait. */
  maxQueuedBytesPerConnection: number;
  /** Bytes of answers all connections together may have waiting to be sent. */
  maxQueuedBytes: number;
  /** Requests one connection may have waiting for its answers to be taken; more drop it. */
  maxWaitingRequests: number;
}

export const DEFAULT_CONNECTION_LIMITS: Readonly<ConnectionLimits> = Object.freeze({
  maxConnections: 4096,
  maxConnectionsPerAddress: 256,
  sendTimeoutMs: 10_000,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  maxQueuedBytesPerConnection: 256 * 1024,
  maxQueuedBytes: 32 * 1024 * 1024,
  maxWaitingRequests: 64,
});

/** node:http options that make the header and request timeouts fire within a few hundred ms. */
export function timeoutOptions(limits: ConnectionLimits): ServerOptions {
  const shortest = Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs);
  return {
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    connectionsCheckingInterval: Math.max(50, Math.min(500, Math.floor(shortest / 10))),
  };
}

/**
 * Counts connections per address and refuses those over the caps, and those from a banned address
 * (`banOf`: its 418 answer). Clients that do not read are dropped by the AnswerBudget, which
 * watches each answer with `sendTimeoutMs` from these limits.
 */
export function guardConnections(
  server: Server,
  limits: ConnectionLimits,
  banOf: (address: string) => ApiError | undefined = () => undefined,
): void {
  const perAddress = new Map<string, number>();
  let total = 0;
  server.prependListener("connection", (socket: Socket) => {
    const address = socket.remoteAddress ?? "";
    const fromAddress = perAddress.get(address) ?? 0;
    const ban = banOf(address);
    if (ban) {
      refuse(socket, ban.httpStatus, "I'm a teapot", ban.code, ban.msg, ban.headers["Retry-After"]);
      return;
    }
    if (total >= limits.maxConnections) {
      refuse(
        socket,
        503,
        "Service Unavailable",
        -1001,
        `Too many open connections; the server takes ${limits.maxConnections}.`,
      );
      return;
    }
    if (fromAddress >= limits.maxConnectionsPerAddress) {
      const msg = `Too many open connections from your address; the limit is ${limits.maxConnectionsPerAddress}.`;
      refuse(socket, 429, "Too Many Requests", -1003, msg);
      return;
    }
    total += 1;
    perAddress.set(address, fromAddress + 1);
    socket.once("close", () => {
      total -= 1;
      const left = (perAddress.get(address) ?? 1) - 1;
      if (left > 0) perAddress.set(address, left);
      else perAddress.delete(address);
    });
  });
  // The send timeout is watched with each answer's bytes (AnswerBudget), not by a listener here.
}

/** One answer, then the socket is closed; what the client sends meanwhile is dropped unserved. */
function refuse(
  socket: Socket,
  status: number,
  reason: string,
  code: number,
  msg: string,
  retryAfter = "1",
): void {
  markFinished(socket);
  const body = JSON.stringify({ code, msg });
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json;charset=UTF-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nRetry-After: ${retryAfter}\r\nConnection: close\r\n\r\n${body}`,
  );
  // A refused socket is counted nowhere, so it must not linger.
  setTimeout(() => socket.destroy(), 1000).unref();
}
