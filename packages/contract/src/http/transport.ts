import {
  type ClientRequest,
  request as httpRequest,
  type IncomingHttpHeaders,
  type RequestOptions,
} from "node:http";
import { request as httpsRequest } from "node:https";
import { InputError, MAX_NESTING_DEPTH, parseJsonText } from "@marketapi/spec-loader/input";
import type { WireRequest } from "./request.js";

export interface HttpResponse {
  status: number;
  /** Header names in lower case. */
  headers: Record<string, string>;
  /** The Content-Type header as received ("" when absent). */
  contentType: string;
  bodyText: string;
  /** The parsed body when it is JSON text. */
  json?: unknown;
  /** Why the body is not JSON (absent when it parsed). */
  jsonError?: string;
  /** The body was longer than MAX_BODY_BYTES; reading stopped there. */
  truncated?: boolean;
}

export type TransportErrorKind = "timeout" | "refused" | "unreachable" | "reset" | "aborted" | "other";

export interface TransportError {
  kind: TransportErrorKind;
  message: string;
}

export type SendResult =
  | { ok: true; response: HttpResponse; durationMs: number }
  | { ok: false; error: TransportError; durationMs: number };

/** The most of a response body the tester reads; the rest is never downloaded. */
export const MAX_BODY_BYTES = 8 * 1024 * 1024;
/**
 * The deepest JSON body the tester parses: the depth is counted on the text first, so a hostile
 * body (a million nested arrays fit in 2 MB) costs its bytes, not a tree of a million arrays.
 */
export const MAX_BODY_DEPTH = MAX_NESTING_DEPTH;

function errorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let i = 0; i < 4 && current; i += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string") return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

function classify(error: unknown, timedOut: boolean, aborted: boolean, timeoutMs: number): TransportError {
  if (timedOut) return { kind: "timeout", message: `no answer within ${timeoutMs} ms` };
  if (aborted) return { kind: "aborted", message: "request aborted (run interrupted)" };
  const code = errorCode(error);
  const detail =
    (error as Error)?.cause instanceof Error ? ((error as Error).cause as Error).message : String(error);
  switch (code) {
    case "ECONNREFUSED":
      return { kind: "refused", message: `connection refused (${detail})` };
    case "ENOTFOUND":
    case "EAI_AGAIN":
    case "EHOSTUNREACH":
    case "ENETUNREACH":
      return { kind: "unreachable", message: `host unreachable (${detail})` };
    case "ECONNRESET":
    case "EPIPE":
    case "UND_ERR_SOCKET":
      return { kind: "reset", message: `connection closed by the server (${detail})` };
    default:
      return { kind: "other", message: detail };
  }
}

/** The methods a client may send again by itself when a connection closes before their answer. */
const SENT_AGAIN_AFTER_A_CLOSE = new Set(["GET", "HEAD"]);

/**
 * Sends one request with a per-request timeout covering the whole exchange, body included. A GET
 * or HEAD whose connection closed before any answer is sent once more: a server may close a kept
 * connection while it is idle (RFC 9112 §9.5) just as a request is put on it, and a client may send
 * a safe request again (RFC 9110 §9.2.2). An order is never sent twice; a server that closes every
 * try is still seen to.
 */
export async function send(
  request: WireRequest,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<SendResult> {
  const first = await sendOnce(request, timeoutMs, signal);
  if (first.ok || first.error.kind !== "reset" || !SENT_AGAIN_AFTER_A_CLOSE.has(request.method.toUpperCase()))
    return first;
  const again = await sendOnce(request, timeoutMs, signal);
  const durationMs = first.durationMs + again.durationMs;
  if (again.ok) return { ...again, durationMs };
  return {
    ok: false,
    error: {
      ...again.error,
      message: `${again.error.message}, twice: sent again once the first try's connection closed`,
    },
    durationMs,
  };
}

/**
 * fetch's names for the methods it normalises; node:http sends a method as it is given, so these
 * are upper-cased here as fetch would (a check that sends another case sends another method).
 */
const NORMALISED_METHODS = new Set(["DELETE", "GET", "HEAD", "OPTIONS", "POST", "PUT"]);

/**
 * The headers every request carries unless the plan sets them: fetch's accept, and a user-agent
 * naming the tester. No accept-encoding, so answers come uncompressed (fetch asked for gzip and
 * inflated it; nothing here inflates).
 */
const DEFAULT_HEADERS: Readonly<Record<string, string>> = {
  accept: "*/*",
  "user-agent": "marketapi-contract",
};

async function sendOnce(request: WireRequest, timeoutMs: number, signal?: AbortSignal): Promise<SendResult> {
  const started = performance.now();
  let timedOut = false;
  try {
    if (signal?.aborted) throw new Error("aborted");
    const raw = await exchange(request, timeoutMs, signal, () => {
      timedOut = true;
    });
    // TextDecoder, as fetch did: a leading byte-order mark is dropped.
    const bodyText = new TextDecoder().decode(raw.bytes);
    const response: HttpResponse = {
      status: raw.status,
      headers: raw.headers,
      contentType: raw.headers["content-type"] ?? "",
      bodyText,
    };
    if (raw.truncated) {
      response.truncated = true;
      response.jsonError = `body longer than ${MAX_BODY_BYTES} bytes; reading stopped there`;
    } else if (bodyText.trim() === "") response.jsonError = "empty body";
    else {
      try {
        response.json = parseJsonText(bodyText, "the body", MAX_BODY_DEPTH);
      } catch (error) {
        response.jsonError =
          error instanceof InputError ? error.message : `not JSON (${(error as Error).message})`;
      }
    }
    return { ok: true, response, durationMs: performance.now() - started };
  } catch (error) {
    return {
      ok: false,
      error: classify(error, timedOut, signal?.aborted === true, timeoutMs),
      durationMs: performance.now() - started,
    };
  }
}

/** Node's answer headers, a repeated one joined with ", " as fetch's Headers join it. */
function joinedHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return out;
}

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  bytes: Buffer;
  truncated: boolean;
}

/**
 * One request on node:http(s) with keep-alive (fetch cost twice the CPU a request, which the
 * tester's thousands of requests a run felt): the timer covers the whole exchange, body included,
 * and a body longer than MAX_BODY_BYTES is read to the cap and its connection dropped.
 */
function exchange(
  request: WireRequest,
  timeoutMs: number,
  signal: AbortSignal | undefined,
  onTimeout: () => void,
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const url = new URL(request.url);
    const upper = request.method.toUpperCase();
    const body = request.body === undefined ? undefined : Buffer.from(request.body, "utf8");
    const headers: Record<string, string> = { ...DEFAULT_HEADERS };
    for (const [name, value] of Object.entries(request.headers)) headers[name.toLowerCase()] = value;
    if (body !== undefined && headers["content-length"] === undefined)
      headers["content-length"] = String(body.byteLength);
    const options: RequestOptions = {
      method: NORMALISED_METHODS.has(upper) ? upper : request.method,
      headers,
    };
    let settled = false;
    const finish = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      outcome();
    };
    const fail = (error: unknown) => finish(() => reject(error));
    let req: ClientRequest;
    try {
      req = (url.protocol === "https:" ? httpsRequest : httpRequest)(url, options);
    } catch (error) {
      // An invalid method or header value is refused before anything is sent.
      reject(error);
      return;
    }
    const timer = setTimeout(() => {
      onTimeout();
      req.destroy(new Error(`no answer within ${timeoutMs} ms`));
      fail(new Error(`no answer within ${timeoutMs} ms`));
    }, timeoutMs);
    const onAbort = () => {
      req.destroy(new Error("aborted"));
      fail(new Error("aborted"));
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    // Once the whole answer has arrived, a server that writes bytes after it (a body on a HEAD
    // answer, say) spoils its connection, not this answer.
    let completeAnswer: (() => boolean) | undefined;
    const onError = (error: unknown) => (completeAnswer?.() ? undefined : fail(error));
    req.on("error", onError);
    req.on("response", (res) => {
      res.on("error", onError);
      const chunks: Buffer[] = [];
      let size = 0;
      const done = (truncated: boolean) =>
        finish(() =>
          resolve({
            status: res.statusCode ?? 0,
            headers: joinedHeaders(res.headers),
            bytes: Buffer.concat(chunks, size),
            truncated,
          }),
        );
      res.on("data", (chunk: Buffer) => {
        if (settled) return;
        if (size + chunk.byteLength > MAX_BODY_BYTES) {
          chunks.push(chunk.subarray(0, MAX_BODY_BYTES - size));
          size = MAX_BODY_BYTES;
          done(true);
          req.destroy();
          return;
        }
        chunks.push(chunk);
        size += chunk.byteLength;
      });
      completeAnswer = () => {
        if (res.complete) done(false);
        return res.complete;
      };
      res.on("end", () => done(false));
      res.on("aborted", () =>
        fail(Object.assign(new Error("the answer was cut short"), { code: "ECONNRESET" })),
      );
    });
    req.end(body);
  });
}
