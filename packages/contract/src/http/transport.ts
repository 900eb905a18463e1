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

async function sendOnce(request: WireRequest, timeoutMs: number, signal?: AbortSignal): Promise<SendResult> {
  const started = performance.now();
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, timeoutMs);
  const onAbort = () => controller.abort();
  signal?.addEventListener("abort", onAbort, { once: true });
  try {
    if (signal?.aborted) throw new Error("aborted");
    const res = await fetch(request.url, {
      method: request.method,
      headers: request.headers,
      ...(request.body !== undefined ? { body: request.body } : {}),
      redirect: "manual",
      signal: controller.signal,
    });
    const { bytes, truncated } = await readCapped(res, MAX_BODY_BYTES);
    if (truncated) controller.abort();
    const bodyText = new TextDecoder().decode(bytes);
    const headers: Record<string, string> = {};
    res.headers.forEach((value, name) => {
      headers[name.toLowerCase()] = value;
    });
    const response: HttpResponse = {
      status: res.status,
      headers,
      contentType: headers["content-type"] ?? "",
      bodyText,
    };
    if (truncated) {
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
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener("abort", onAbort);
  }
}

/** Reads a body as a stream up to `cap` bytes, then cancels it: an endless body costs `cap` at most. */
async function readCapped(res: Response, cap: number): Promise<{ bytes: Uint8Array; truncated: boolean }> {
  if (!res.body) return { bytes: new Uint8Array(), truncated: false };
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (size + value.byteLength > cap) {
      chunks.push(value.subarray(0, cap - size));
      size = cap;
      await reader.cancel().catch(() => undefined);
      return { bytes: concat(chunks, size), truncated: true };
    }
    chunks.push(value);
    size += value.byteLength;
  }
  return { bytes: concat(chunks, size), truncated: false };
}

function concat(chunks: readonly Uint8Array[], size: number): Uint8Array {
  const out = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}
