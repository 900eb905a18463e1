/**
 * Requests pipelined on one connection (HTTP/1.1, RFC 9112 §9.3.2): all written before any answer
 * is read, or in rounds, each written once the answers to the ones before have come. fetch never pipelines, so this writes the requests on a socket of its own and reads the
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

/** The bytes of requests pipelined: the last one closes the connection. */
export function pipelinedBytes(requests: readonly WireRequest[]): string {
  return requests.map((request, i) => requestBytes(request, i === requests.length - 1)).join("");
}

/** One request's bytes: its body, when it has one, framed by Content-Length. */
export function requestBytes(request: WireRequest, close: boolean): string {
  const url = new URL(request.url);
  const lines = [`${request.method} ${url.pathname}${url.search} HTTP/1.1`];
  if (!request.omitHost) lines.push(`Host: ${url.host}`);
  for (const [name, value] of Object.entries(request.headers)) lines.push(`${name}: ${value}`);
  if (request.body !== undefined) lines.push(`Content-Length: ${Buffer.byteLength(request.body)}`);
  lines.push(...(request.headerLines ?? []));
  if (close) lines.push("Connection: close");
  return `${lines.join("\r\n")}\r\n\r\n${request.body ?? ""}`;
}

/** Bytes of a request's head per piece when it is sent in pieces (request line and headers cut mid-token). */
const HEAD_PIECE = 7;

/**
 * A request's bytes cut into the pieces a client that sends it in pieces writes one at a time:
 * the head in HEAD_PIECE-byte pieces (so pieces end inside tokens and line ends), the body one
 * byte a piece.
 */
export function requestPieces(bytes: string): string[] {
  const headEnd = bytes.indexOf("\r\n\r\n");
  const bodyStart = headEnd < 0 ? bytes.length : headEnd + 4;
  const pieces: string[] = [];
  for (let at = 0; at < bodyStart; at += HEAD_PIECE)
    pieces.push(bytes.slice(at, Math.min(at + HEAD_PIECE, bodyStart)));
  for (const byte of bytes.slice(bodyStart)) pieces.push(byte);
  return pieces;
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

/** How the requests of a pipelined exchange are written. */
export interface PipelineShape {
  /**
   * The requests in rounds of these sizes (the rest in a last round): each round is written once
   * every answer to the rounds before it has come, on the same connection. One round by default.
   */
  rounds?: readonly number[];
  /** Each request written in pieces (requestPieces), one write at a time, instead of at once. */
  inPieces?: boolean;
  /** The first round waits, once connected, until every connection of the start line is (sendTogether). */
  startLine?: StartLine;
}

/** Connections that write their first round at one moment: each says when it is ready (connected, or failed). */
export interface StartLine {
  ready(): void;
  go: Promise<void>;
}

/**
 * Writes `requests` on one new connection to `target`'s host and port, pipelined (a round at once,
 * `shape`), and reads the answers in order. `idleMs` is the rule for a hanging connection: the
 * exchange ends as "timeout" once the connection, still open with requests written and
 * unanswered, has sent nothing for that long (each byte that comes starts the wait again, so a
 * slow but working server is not cut off).
 */
export function sendPipelined(
  target: string,
  requests: readonly WireRequest[],
  idleMs: number,
  shape: PipelineShape = {},
): Promise<PipelinedResult> {
  const url = new URL(target);
  const secure = url.protocol === "https:";
  const port = Number(url.port || (secure ? 443 : 80));
  const rounds = roundsOf(requests.length, shape.rounds ?? []);
  return new Promise((resolve) => {
    const socket: Socket = secure
      ? tlsConnect({ host: url.hostname, port, servername: url.hostname })
      : tcpConnect({ host: url.hostname, port });
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    /** Requests written so far (whole rounds), and whether the last round is still being written. */
    let written = 0;
    let writing = false;
    let timer: NodeJS.Timeout | undefined;
    let atTheLine = false;
    // Ready once: connected, or ended without connecting (it must not hold the others back).
    const ready = () => {
      if (atTheLine) return;
      atTheLine = true;
      shape.startLine?.ready();
    };
    const finish = (end: PipelinedResult["end"], error?: string) => {
      if (settled) return;
      settled = true;
      ready();
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
    const waitForAnswers = () => {
      clearTimeout(timer);
      timer = setTimeout(() => finish("timeout"), idleMs);
    };
    const writeRound = async () => {
      const round = rounds[rounds.findIndex((end) => end > written)];
      if (round === undefined) return;
      writing = true;
      clearTimeout(timer);
      const bytes = requests
        .slice(written, round)
        .map((request, i) => requestBytes(request, written + i === requests.length - 1));
      written = round;
      try {
        if (shape.inPieces) {
          socket.setNoDelay(true);
          for (const piece of bytes.flatMap(requestPieces)) await writePiece(socket, piece);
        } else socket.write(bytes.join(""));
      } catch (error) {
        finish(chunks.length > 0 ? "closed" : "error", (error as Error).message);
        return;
      }
      writing = false;
      // The wait for answers starts once the round is all written: a client's own pace is not the server's.
      waitForAnswers();
      answered();
    };
    /** The next round goes once every request written so far has its answer. */
    const answered = () => {
      if (writing || written >= requests.length) return;
      let whole: PipelinedAnswer[];
      try {
        whole = parseAnswers(Buffer.concat(chunks), false);
      } catch {
        return;
      }
      if (whole.length >= written) void writeRound();
    };
    socket.once(secure ? "secureConnect" : "connect", () => {
      const line = shape.startLine;
      if (!line) return void writeRound();
      // Held at the line, the connection has come: the others' pace is not this server's.
      clearTimeout(timer);
      ready();
      void line.go.then(() => (settled ? undefined : writeRound()));
    });
    socket.on("data", (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      if (size > MAX_BYTES) return finish("error", `the answers passed ${MAX_BYTES} bytes`);
      if (!writing) waitForAnswers();
      answered();
    });
    socket.once("end", () => finish("closed"));
    socket.once("close", () => finish("closed"));
    socket.once("error", (error) => finish(chunks.length > 0 ? "closed" : "error", error.message));
    // Until the first round is written, the connection itself must come within the rule.
    waitForAnswers();
  });
}

/**
 * Each request on a connection of its own (closed after its answer), all connected first and
 * then written at one moment: many clients at once, each with one request. The results in the
 * order of `requests`.
 */
export function sendTogether(requests: readonly WireRequest[], idleMs: number): Promise<PipelinedResult[]> {
  let waiting = requests.length;
  let go: () => void = () => undefined;
  const line: StartLine = {
    go: new Promise<void>((resolve) => {
      go = resolve;
    }),
    ready: () => {
      waiting -= 1;
      if (waiting === 0) go();
    },
  };
  return Promise.all(
    requests.map((request) => sendPipelined(request.url, [request], idleMs, { startLine: line })),
  );
}

/** Where each round ends (request counts, rising), the last at `total`. */
function roundsOf(total: number, sizes: readonly number[]): number[] {
  const ends: number[] = [];
  let at = 0;
  for (const size of sizes) {
    if (size < 1 || at + size >= total) break;
    at += size;
    ends.push(at);
  }
  ends.push(total);
  return ends;
}

/**
 * A client's pause between two pieces of a request: long enough that a local server mostly reads
 * them apart, short enough that a request of a few hundred pieces takes well under a second. It
 * paces the client only; nothing is judged by it.
 */
const PIECE_PAUSE_MS = 1;

/** Writes one piece and waits until it is handed to the network, and a moment more. */
function writePiece(socket: Socket, piece: string): Promise<void> {
  return new Promise((resolve, reject) => {
    socket.write(piece, (error) => (error ? reject(error) : setTimeout(resolve, PIECE_PAUSE_MS)));
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
  if (answer) return { ok: true, response: answerAsResponse(answer), durationMs };
  const error: TransportError =
    result.end === "timeout"
      ? { kind: "timeout", message: `no answer within ${timeoutMs} ms` }
      : result.end === "closed"
        ? { kind: "reset", message: "the server closed the connection without an answer" }
        : { kind: "other", message: result.error ?? "the connection failed" };
  return { ok: false, error, durationMs };
}

/** A pipelined answer as the transport's response: its JSON, or why it has none. */
/** A pipelined answer's body as JSON, or undefined when it is not JSON. */
export function answerJson(bodyText: string): unknown {
  try {
    return JSON.parse(bodyText);
  } catch {
    return undefined;
  }
}

export function answerAsResponse(answer: PipelinedAnswer): HttpResponse {
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
  return response;
}
