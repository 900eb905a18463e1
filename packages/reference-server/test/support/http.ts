// Raw HTTP helpers for the server tests: requests exactly as given (no client library in between),
// signed the way x-signing says (query string then form body, signature appended last).
import { createHmac } from "node:crypto";
import { Agent, type ClientRequest, request as httpRequest } from "node:http";

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: unknown;
}

export interface RawRequest {
  method?: string;
  path: string;
  query?: string;
  body?: string | Buffer;
  headers?: Record<string, string>;
}

/** A keep-alive agent so that thousands of requests reuse a few sockets. */
export const keepAlive = new Agent({ keepAlive: true, maxSockets: 8 });

/**
 * Whether a request failed only because the server closed the idle keep-alive socket it was sent
 * on: the server reads nothing on a socket it closes as idle, so the request never ran.
 */
function closedWhileIdle(req: ClientRequest, error: NodeJS.ErrnoException): boolean {
  return req.reusedSocket && error.code === "ECONNRESET";
}

export async function send(baseUrl: string, raw: RawRequest, agent: Agent = keepAlive): Promise<RawResponse> {
  try {
    return await sendOn(baseUrl, raw, agent);
  } catch (error) {
    // A test that waits longer than the server's keep-alive time between two requests would
    // otherwise fail at random, whenever the server's close and the next send cross.
    if (!(error instanceof SentOnIdleSocket)) throw error;
    return sendOn(baseUrl, raw, false);
  }
}

class SentOnIdleSocket extends Error {}

function sendOn(baseUrl: string, raw: RawRequest, agent: Agent | false): Promise<RawResponse> {
  const url = new URL(baseUrl);
  const target = raw.query === undefined ? raw.path : `${raw.path}?${raw.query}`;
  // Node's client sends a DELETE body without Content-Length unless told: always frame bodies.
  const length = raw.body === undefined ? {} : { "Content-Length": String(Buffer.byteLength(raw.body)) };
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        method: raw.method ?? "GET",
        path: target,
        headers: { ...length, ...raw.headers },
        agent,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
        });
        res.on("error", reject);
      },
    );
    req.on("error", (error: NodeJS.ErrnoException) =>
      reject(closedWhileIdle(req, error) ? new SentOnIdleSocket(error.message, { cause: error }) : error),
    );
    if (raw.body !== undefined) req.end(raw.body);
    else req.end();
  });
}

export function hmac(secret: string, payload: string): string {
  return createHmac("sha256", secret).update(payload).digest("hex");
}

export interface SignedOptions {
  apiKey: string;
  apiSecret: string;
  method: string;
  path: string;
  /** Parameters that go into the query string (raw, already encoded). */
  query?: string;
  /** Parameters that go into a form body (raw, already encoded); the signature goes there too. */
  form?: string;
  timestamp?: number;
  recvWindow?: number;
  headers?: Record<string, string>;
}

/** A signed request: `timestamp` (and `recvWindow`) join the part that carries the parameters. */
export function sendSigned(baseUrl: string, options: SignedOptions, agent?: Agent): Promise<RawResponse> {
  const envelope = [
    options.recvWindow === undefined ? "" : `recvWindow=${options.recvWindow}`,
    `timestamp=${options.timestamp ?? Date.now()}`,
  ]
    .filter(Boolean)
    .join("&");
  const join = (a: string | undefined, b: string) => (a ? `${a}&${b}` : b);
  const headers = { "X-MBX-APIKEY": options.apiKey, ...options.headers };
  if (options.form === undefined) {
    const query = join(options.query, envelope);
    const signed = `${query}&signature=${hmac(options.apiSecret, query)}`;
    return send(baseUrl, { method: options.method, path: options.path, query: signed, headers }, agent);
  }
  const body = join(options.form, envelope);
  const signature = hmac(options.apiSecret, (options.query ?? "") + body);
  return send(
    baseUrl,
    {
      method: options.method,
      path: options.path,
      query: options.query,
      body: `${body}&signature=${signature}`,
      headers: { "Content-Type": "application/x-www-form-urlencoded", ...headers },
    },
    agent,
  );
}

/** Whether a body is the API's error object `{ code: negative integer, msg: string }` and nothing else. */
export function isErrorBody(body: unknown): boolean {
  if (typeof body !== "object" || body === null) return false;
  const { code, msg, ...rest } = body as Record<string, unknown>;
  return (
    Number.isInteger(code) &&
    (code as number) < 0 &&
    typeof msg === "string" &&
    Object.keys(rest).length === 0
  );
}
