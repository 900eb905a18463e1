/**
 * The HTTP layer's own answers, in the API's error shape like every other answer:
 *
 * - requests Node's parser refuses (a malformed request line, header or body framing; a request
 *   line or headers over the limit; HTTP/2's preface; a timeout), answered on the raw socket;
 * - requests Node would otherwise answer itself with an empty or plain-text body (an HTTP/1.1
 *   request without Host, an Expect other than 100-continue) or drop without a word (CONNECT);
 * - requests whose answer would rest on a guess Node makes: a header a request carries once, sent
 *   twice (Node keeps the first Host and Content-Type and joins the API key header's values);
 * - requests Node would serve although the API cannot read them: an HTTP version other than 1.x,
 *   a body in a transfer coding other than chunked or in a content coding (the server decodes none).
 *
 * `100 Continue` is sent only once the body is about to be read (body.ts), so a request refused
 * before that (a body over the limit, an unsupported coding, an unknown path, a rate limit, ...)
 * gets its refusal instead, and the client never sends a body that would be thrown away.
 */
import { type IncomingMessage, type Server, type ServerResponse, STATUS_CODES } from "node:http";
import type { Socket } from "node:net";
import {
  ApiError,
  headerRepeated,
  missingHost,
  unsupportedContentCoding,
  unsupportedExpectation,
  unsupportedHttpVersion,
  unsupportedTransferCoding,
} from "../errors.js";
import { awaitContinue, hasBody } from "./body.js";

const JSON_TYPE = "application/json;charset=UTF-8";
/** Header values quoted back in a message are cut to this many characters. */
const QUOTED = 100;

/**
 * What a request asks of the HTTP layer that the API does not do, checked before anything else.
 * `apiKeyHeader`: the name of the API key header (lower case), which a request carries once.
 */
export function protocolFault(req: IncomingMessage, apiKeyHeader = ""): ApiError | undefined {
  if (req.httpVersionMajor !== 1) return unsupportedHttpVersion(quoted(req.httpVersion));
  const repeated = repeatedHeader(req.rawHeaders, apiKeyHeader);
  if (repeated) return headerRepeated(repeated.name, repeated.times);
  const headers = req.headers;
  if (req.httpVersionMinor >= 1) {
    if (headers.host === undefined) return missingHost();
    const expectation = headers.expect;
    if (expectation !== undefined && expectation.trim().toLowerCase() !== "100-continue") {
      return unsupportedExpectation(quoted(expectation));
    }
  }
  const transfer = headers["transfer-encoding"];
  if (transfer !== undefined && transfer.trim().toLowerCase() !== "chunked") {
    return unsupportedTransferCoding(quoted(transfer));
  }
  const content = headers["content-encoding"];
  if (content !== undefined && !isIdentity(content) && hasBody(req)) {
    return unsupportedContentCoding(quoted(content));
  }
  return undefined;
}

/**
 * A header a request carries once, as the request spells it, when it carries it more than once:
 * Host (RFC 9112 §3.2: a server answers 400), Content-Type (which says how the body reads), and
 * the API key header. Node keeps the first Host and Content-Type and joins the API keys, so each
 * answer would rest on a guess. Compared by length first: most requests carry a few headers, and
 * none of these twice.
 */
function repeatedHeader(
  raw: readonly string[],
  apiKeyHeader: string,
): { name: string; times: number } | undefined {
  let host: string | undefined;
  let contentType: string | undefined;
  let apiKey: string | undefined;
  let hosts = 0;
  let contentTypes = 0;
  let apiKeys = 0;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i] as string;
    if (name.length === 4 && name.toLowerCase() === "host") {
      host ??= name;
      hosts += 1;
    } else if (name.length === 12 && name.toLowerCase() === "content-type") {
      contentType ??= name;
      contentTypes += 1;
    } else if (name.length === apiKeyHeader.length && name.toLowerCase() === apiKeyHeader) {
      apiKey ??= name;
      apiKeys += 1;
    }
  }
  if (hosts > 1) return { name: host as string, times: hosts };
  if (contentTypes > 1) return { name: contentType as string, times: contentTypes };
  if (apiKeys > 1) return { name: apiKey as string, times: apiKeys };
  return undefined;
}

/** "identity", or nothing at all, in each of the listed codings. */
function isIdentity(codings: string): boolean {
  return codings.split(",").every((coding) => {
    const name = coding.trim().toLowerCase();
    return name === "" || name === "identity";
  });
}

function quoted(text: string): string {
  return text.length > QUOTED ? `${text.slice(0, QUOTED)}…` : text;
}

export interface ProtocolOptions {
  /** Largest request line and headers together (node:http's maxHeaderSize). */
  maxHeaderBytes: number;
  /** The HTTP methods the API serves (the Allow header of a refused CONNECT). */
  methods: readonly string[];
  /** The `X-MBX-USED-WEIGHT` of a client address, for the answers written on the raw socket. */
  usedWeight(address: string): number;
}

/**
 * Answers what Node would answer itself, or not at all, the API's way: malformed requests, those
 * that expect something (their `request` event comes once the decision is the pipeline's), and
 * CONNECT. Create the server with `requireHostHeader: false`, so that a missing Host is the
 * pipeline's refusal too (protocolFault).
 */
export function answerProtocolFaults(server: Server, options: ProtocolOptions): void {
  server.on("clientError", (error: ParseError, socket: Socket) => answerParseError(error, socket, options));
  // Node sends `100 Continue` at once unless told otherwise: sent only when the body is read.
  server.on("checkContinue", (req: IncomingMessage, res: ServerResponse) => {
    awaitContinue(req);
    server.emit("request", req, res);
  });
  // Any other expectation: the pipeline refuses it (417), as it refuses everything else.
  server.on("checkExpectation", (req: IncomingMessage, res: ServerResponse) => {
    server.emit("request", req, res);
  });
  server.on("connect", (_req: IncomingMessage, socket: Socket) => {
    const allow = [...new Set(options.methods)].sort().join(", ");
    const refusal = new ApiError(-1020, `Method CONNECT is not supported; the server takes ${allow}.`, 405, {
      Allow: allow,
    });
    writeRaw(socket, refusal, options.usedWeight(socket.remoteAddress ?? ""));
  });
}

/** An error of Node's HTTP parser (or its request timeout), as it comes with `clientError`. */
type ParseError = NodeJS.ErrnoException & { reason?: string; rawPacket?: Buffer; bytesParsed?: number };

function answerParseError(error: ParseError, socket: Socket, options: ProtocolOptions): void {
  if (error.code === "ECONNRESET" || !socket.writable) {
    socket.destroy();
    return;
  }
  if (error.code === "HPE_CLOSED_CONNECTION") {
    // Bytes after a request that asked to close: nothing to answer; its own answer closes.
    if (!inFlight(socket)) socket.destroySoon();
    return;
  }
  const fault = parseFault(error, socket, options.maxHeaderBytes);
  answerInTurn(socket, fault, options.usedWeight(socket.remoteAddress ?? ""));
}

function inFlight(socket: Socket): ServerResponse | null | undefined {
  return (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
}

/**
 * Writes the refusal of a request the parser could not read once the answers to the requests
 * before it on the connection (complete, pipelined ahead of it) are out, so that each answer goes
 * with its request. When the failure is in the body of a request already being answered (refused
 * before its body was read), that answer is its answer, and the connection closes after it.
 */
function answerInTurn(socket: Socket, fault: ApiError, usedWeight: number): void {
  if (socket.destroyed) return;
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const ahead = inFlight(socket);
  const pending = ahead && !ahead.writableFinished && !ahead.destroyed ? ahead : undefined;
  if (pending?.req.complete) {
    let waited = false;
    const next = () => {
      if (waited) return;
      waited = true;
      answerInTurn(socket, fault, usedWeight);
    };
    // Node hands the socket to the next answer on "finish", before this listener runs.
    pending.once("finish", next);
    pending.once("close", next);
    return;
  }
  // The request whose head was read and whose body failed, if that is what failed.
  const failing = (socket as Socket & { parser?: { incoming?: IncomingMessage | null } | null }).parser
    ?.incoming;
  if (failing && !failing.complete && pending === undefined) {
    // Its answer is out already (no answer is pending): nothing more to say.
    socket.destroySoon();
    return;
  }
  if (pending?.headersSent) {
    // Part of an answer is out: anything written now would be read as the rest of it.
    socket.destroy();
    return;
  }
  writeRaw(socket, fault, usedWeight);
}

/** The answer to a request Node's parser refused: by the parser's error code. */
export function parseFault(error: ParseError, socket: Socket, maxHeaderBytes: number): ApiError {
  switch (error.code) {
    case "HPE_HEADER_OVERFLOW": {
      const limit = `the request line and headers may have ${maxHeaderBytes} bytes together`;
      const lineTooLong = requestLineTooLong(error, socket);
      if (lineTooLong === true) return new ApiError(-1101, `Request line too long; ${limit}.`, 414);
      const what = lineTooLong === false ? "Request headers" : "Request line or headers";
      return new ApiError(-1101, `${what} too large; ${limit}.`, 431);
    }
    case "HPE_CHUNK_EXTENSIONS_OVERFLOW":
      return new ApiError(-1101, "Chunk extensions too large in the chunked request body.", 413);
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return new ApiError(-1007, "Timeout waiting for the request.", 408);
    case "HPE_PAUSED_H2_UPGRADE":
      return new ApiError(-1020, "HTTP/2 is not supported; send HTTP/1.1.", 400);
    default:
      return new ApiError(-1100, `Malformed HTTP request: ${describe(error)}.`, 400);
  }
}

/** The parser's own words for what was wrong ("Invalid character in chunk size", ...). */
function describe(error: ParseError): string {
  const reason = (error.reason ?? "").replace(/[^\x20-\x7e]/g, "").trim();
  return reason === "" ? (error.code ?? "unreadable") : reason.replace(/\.$/, "");
}

/**
 * Whether the request line alone overflowed, as far as the bytes of the last read tell: the start
 * of the request that overflowed is in them (the previous request's blank line is in them, or
 * they are the connection's first, or they begin with a request line, as a keep-alive client's
 * next request does), and no line ends between that start and where the parser stopped.
 * Otherwise (a request that began in an earlier read) the answer names both.
 */
const REQUEST_LINE_START = /^[A-Z]+ [^\s]/;

function requestLineTooLong(error: ParseError, socket: Socket): boolean | undefined {
  const raw = error.rawPacket;
  if (!raw) return undefined;
  const stop = Math.min(error.bytesParsed ?? raw.length, raw.length);
  // A blank line that ends by the stop: the parser may stop only at the end of the overflowing
  // request's headers, just after its own blank line.
  const previous = stop < 4 ? -1 : raw.lastIndexOf("\r\n\r\n", stop - 4);
  let start: number;
  if (previous >= 0) start = previous + 4;
  else if (socket.bytesRead <= raw.length || REQUEST_LINE_START.test(raw.toString("latin1", 0, 32)))
    start = 0;
  else return undefined;
  const lineEnd = raw.indexOf("\n", start);
  return lineEnd < 0 || lineEnd >= stop;
}

/** One answer on the raw socket, then the connection closes. */
function writeRaw(socket: Socket, refusal: ApiError, usedWeight: number): void {
  socket.end(rawAnswer(refusal, usedWeight));
  // Closed once the answer is out, whether or not the client closes its side.
  socket.once("finish", () => socket.destroy());
}

/** The bytes of a JSON error answer (with `Connection: close`), for a socket no response object owns. */
export function rawAnswer(refusal: ApiError, usedWeight?: number): string {
  const body = JSON.stringify({ code: refusal.code, msg: refusal.msg });
  const headers: Record<string, string> = {
    "Content-Type": JSON_TYPE,
    "Content-Length": String(Buffer.byteLength(body)),
    ...(usedWeight === undefined
      ? {}
      : { "X-MBX-USED-WEIGHT-1M": String(usedWeight), "X-MBX-USED-WEIGHT": String(usedWeight) }),
    ...refusal.headers,
    Connection: "close",
  };
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
  const reason = STATUS_CODES[refusal.httpStatus] ?? "";
  return `HTTP/1.1 ${refusal.httpStatus} ${reason}\r\n${lines.join("")}\r\n${body}`;
}
