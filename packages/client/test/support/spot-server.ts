// A real HTTP server on 127.0.0.1 for the client tests: it records every request as received on
// the socket, checks HMAC signatures with node:crypto, and answers with the spec's examples.
import { createHmac } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { specOperations, successExample } from "./spec.js";

export interface ReceivedRequest {
  method: string;
  path: string;
  /** The query string exactly as received, without the `?`. */
  rawQuery: string;
  /** The body exactly as received. */
  rawBody: string;
  /** Decoded query parameters, in order. */
  query: [string, string][];
  /** Decoded form-body parameters, in order (empty unless the body is form-encoded). */
  form: [string, string][];
  headers: IncomingMessage["headers"];
  /** Where `signature` was found and whether it verifies; undefined when the request carries none. */
  signature?: { in: "query" | "body"; last: boolean; valid: boolean };
}

export interface Answer {
  status: number;
  /** A JSON body; `text` sends a body as is instead. */
  body?: unknown;
  text?: string;
  headers?: Record<string, string>;
}

export interface SpotServer {
  baseUrl: string;
  received: ReceivedRequest[];
  /** Overrides the answer; return undefined to answer the spec example. */
  answer?: (request: ReceivedRequest) => Answer | undefined;
  close(): Promise<void>;
}

/** Starts the server on an ephemeral port; signatures are checked against `secret`. */
export async function startSpotServer(secret: string): Promise<SpotServer> {
  const state: SpotServer = { baseUrl: "", received: [], close: async () => {} };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => handle(state, secret, req, Buffer.concat(chunks).toString("utf8"), res));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  state.baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = () =>
    new Promise<void>((resolve, reject) => {
      server.closeAllConnections();
      server.close((error) => (error ? reject(error) : resolve()));
    });
  return state;
}

function handle(
  state: SpotServer,
  secret: string,
  req: IncomingMessage,
  rawBody: string,
  res: ServerResponse,
) {
  const url = req.url ?? "/";
  const q = url.indexOf("?");
  const path = q === -1 ? url : url.slice(0, q);
  const rawQuery = q === -1 ? "" : url.slice(q + 1);
  const isForm = (req.headers["content-type"] ?? "").startsWith("application/x-www-form-urlencoded");
  const received: ReceivedRequest = {
    method: req.method ?? "",
    path,
    rawQuery,
    rawBody,
    query: [...new URLSearchParams(rawQuery)],
    form: isForm ? [...new URLSearchParams(rawBody)] : [],
    headers: req.headers,
    signature: checkSignature(secret, rawQuery, isForm ? rawBody : ""),
  };
  state.received.push(received);
  const operation = specOperations.find((o) => o.method === received.method && o.path === path);
  const answer =
    state.answer?.(received) ??
    (operation
      ? { status: 200, body: successExample(operation.operation) }
      : { status: 404, body: { code: -1000, msg: `no operation ${received.method} ${path}` } });
  res.writeHead(answer.status, {
    "Content-Type": "application/json",
    "X-MBX-USED-WEIGHT-1M": "7",
    ...answer.headers,
  });
  res.end(answer.text ?? (answer.body === undefined ? "" : JSON.stringify(answer.body)));
}

/** Recomputes the signature over query + body as received, without the `signature` parameter. */
function checkSignature(secret: string, query: string, body: string): ReceivedRequest["signature"] {
  const part = /(^|&)signature=/.test(body) ? "body" : /(^|&)signature=/.test(query) ? "query" : undefined;
  if (!part) return undefined;
  const text = part === "body" ? body : query;
  const match = /(^|&)signature=([^&]*)/.exec(text)!;
  const last = match.index + match[0].length === text.length;
  const without = text.slice(0, match.index) + text.slice(match.index + match[0].length);
  const payload = part === "body" ? query + without : without + body;
  const expected = createHmac("sha256", secret).update(payload, "utf8").digest("hex");
  return { in: part, last, valid: match[2]!.toLowerCase() === expected };
}
