/**
 * Requests pipelined on one connection (HTTP/1.1, RFC 9112 §9.3.2): all written before any answer
 * is read. fetch never pipelines, so this writes the requests on a socket of its own and reads the
 * answers in order, by their Content-Length or chunked framing. The last request asks for
 * `Connection: close`, so a server that answers everything also ends the exchange.
 */
import { type Socket, connect as tcpConnect } from "node:net";
import { connect as tlsConnect } from "node:tls";
import type { WireRequest } from "./request.js";
import type { HttpResponse, SendResult, TransportError } from "./transport.js";

export interface PipelinedAnswer {
  status: number;
  /** Header names in lower case. */
  headers: Record<string, string>;
  bodyText: string;
}

export interface PipelinedResult {
  /** The answers, in the order they came. */
  answers: PipelinedAnswer[];
  /**
   * How the exchange ended: every request answered; the server closed the connection first; the
   * time ran out with the connection open; or the connection failed (error says how).
   */
  end: "answered" | "closed" | "timeout" | "error";
  error?: string;
}

/** The most the answers may hold together (a hostile server costs no more). */
const MAX_BYTES = 1024 * 1024;

/** The bytes of GET requests without body, pipelined: the last one closes the connection. */
export function pipelinedBytes(requests: readonly WireRequest[]): string {
  return requests
    .map((request, i) => {
      const url = new URL(request.url);
      const lines = [`${request.method} ${url.pathname}${url.search} HTTP/1.1`, `Host: ${url.host}`];
      for (const [name, value] of Object.entries(request.headers)) lines.push(`${name}: ${value}`);
      if (i === requests.length - 1) lines.push("Connection: close");
      return `${lines.join("\r\n")}\r\n\r\n`;
    })
    .join("");
}

/**
 * The whole answers `bytes` holds, in order; an answer without a length runs to the connection's
 * end, so it counts only once the connection is `closed`.
 */
export function parseAnswers(bytes: Buffer, closed: boolean): PipelinedAnswer[] {
  const answers: PipelinedAnswer[] = [];
  let at = 0;
  for (;;) {
    const headEnd = bytes.indexOf("\r\n\r\n", at);
    if (headEnd < 0) break;
    const [statusLine = "", ...headerLines] = bytes.toString("latin1", at, headEnd).split("\r\n");
    const status = Number(/^HTTP\/\d\.\d (\d{3})/.exec(statusLine)?.[1]);
    if (!Number.isInteger(status)) throw new Error(`not an HTTP answer: ${statusLine.slice(0, 60)}`);
    const headers: Record<string, string> = {};
    for (const line of headerLines) {
      const colon = line.indexOf(":");
      if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    // 1xx, 204 and 304 answers have no body, whatever their headers say.
    const bodiless = status < 200 || status === 204 || status === 304;
    const body = bodiless ? { text: "", end: headEnd + 4 } : bodyOf(bytes, headEnd + 4, headers, closed);
    if (!body) break;
    answers.push({ status, headers, bodyText: body.text });
    at = body.end;
    // 1xx answers are interim: the final answer to the same request follows.
    if (status < 200) answers.pop();
  }
  return answers;
}

function bodyOf(
  bytes: Buffer,
  start: number,
  headers: Record<string, string>,
  closed: boolean,
): { text: string; end: number } | undefined {
  if (/chunked/i.test(headers["transfer-encoding"] ?? "")) {
    const parts: Buffer[] = [];
    let at = start;
    for (;;) {
      const lineEnd = bytes.indexOf("\r\n", at);
      if (lineEnd < 0) return undefined;
      const size = Number.parseInt(bytes.toString("latin1", at, lineEnd), 16);
      if (!Number.isFinite(size)) throw new Error("a chunk size that is not hex");
      if (size === 0) {
        // The last chunk, any trailer fields, and the blank line that ends them.
        const end = bytes.indexOf("\r\n\r\n", lineEnd);
        return end < 0 ? undefined : { text: Buffer.concat(parts).toString("utf8"), end: end + 4 };
      }
      if (lineEnd + 2 + size + 2 > bytes.length) return undefined;
      parts.push(bytes.subarray(lineEnd + 2, lineEnd + 2 + size));
      at = lineEnd + 2 + size + 2;
    }
  }
  const length = headers["content-length"];
  if (length !== undefined) {
    const end = start + Number(length);
    return end <= bytes.length ? { text: bytes.toString("utf8", start, end), end } : undefined;
  }
  return closed ? { text: bytes.toString("utf8", start), end: bytes.length } : undefined;
}

/**
 * Writes `requests` (GET, no body) on one new connection to `target`'s host and port at once and
 * reads the answers in order. `idleMs` is the rule for a hanging connection: the exchange ends as
 * "timeout" once the connection, still open with requests unanswered, has sent nothing for that
 * long (each byte that comes starts the wait again, so a slow but working server is not cut off).
 */
export function sendPipelined(
  target: string,
  requests: readonly WireRequest[],
  idleMs: number,
): Promise<PipelinedResult> {
  const url = new URL(target);
  const secure = url.protocol === "https:";
  const port = Number(url.port || (secure ? 443 : 80));
  return new Promise((resolve) => {
    const socket: Socket = secure
      ? tlsConnect({ host: url.hostname, port, servername: url.hostname })
      : tcpConnect({ host: url.hostname, port });
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const finish = (end: PipelinedResult["end"], error?: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      let answers: PipelinedAnswer[] = [];
      try {
        answers = parseAnswers(Buffer.concat(chunks), end !== "timeout");
      } catch (parseError) {
        resolve({ answers, end: "error", error: (parseError as Error).message });
        return;
      }
      const done = end === "closed" && answers.length >= requests.length ? "answered" : end;
      resolve({ answers, end: done, ...(error ? { error } : {}) });
    };
    let timer = setTimeout(() => finish("timeout"), idleMs);
    socket.once(secure ? "secureConnect" : "connect", () => socket.write(pipelinedBytes(requests)));
    socket.on("data", (chunk: Buffer) => {
      clearTimeout(timer);
      timer = setTimeout(() => finish("timeout"), idleMs);
      chunks.push(chunk);
      size += chunk.length;
      if (size > MAX_BYTES) finish("error", `the answers passed ${MAX_BYTES} bytes`);
    });
    socket.once("end", () => finish("closed"));
    socket.once("close", () => finish("closed"));
    socket.once("error", (error) => finish(chunks.length > 0 ? "closed" : "error", error.message));
  });
}

/**
 * One request on a connection of its own, closed after its answer (`Connection: close`): what a
 * client that opens a connection per request does. The answer, or why there is none, as `send`
 * gives it.
 */
export async function sendAlone(request: WireRequest, timeoutMs: number): Promise<SendResult> {
  const started = performance.now();
  const result = await sendPipelined(request.url, [request], timeoutMs);
  const durationMs = performance.now() - started;
  const answer = result.answers[0];
  if (answer) {
    const response: HttpResponse = {
      status: answer.status,
      headers: answer.headers,
      contentType: answer.headers["content-type"] ?? "",
      bodyText: answer.bodyText,
    };
    try {
      response.json = JSON.parse(answer.bodyText);
    } catch {
      response.jsonError = answer.bodyText.trim() === "" ? "empty body" : "not JSON";
    }
    return { ok: true, response, durationMs };
  }
  const error: TransportError =
    result.end === "timeout"
      ? { kind: "timeout", message: `no answer within ${timeoutMs} ms` }
      : result.end === "closed"
        ? { kind: "reset", message: "the server closed the connection without an answer" }
        : { kind: "other", message: result.error ?? "the connection failed" };
  return { ok: false, error, durationMs };
}
