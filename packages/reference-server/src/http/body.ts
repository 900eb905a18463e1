/** Reading a request body with a size limit; only form bodies (or none) carry parameters. */
import type { IncomingMessage, ServerResponse } from "node:http";
import { bodyTooLarge, bodyUnreadable, unsupportedContentType } from "../errors.js";

const FORM = "application/x-www-form-urlencoded";

export function hasBody(req: IncomingMessage): boolean {
  const length = req.headers["content-length"];
  return req.headers["transfer-encoding"] !== undefined || (length !== undefined && length !== "0");
}

/** Requests whose client waits for `100 Continue` before it sends the body. */
const awaitingContinue = new WeakSet<IncomingMessage>();

/** The client sent `Expect: 100-continue`: `100 Continue` goes out once the body is to be read. */
export function awaitContinue(req: IncomingMessage): void {
  awaitingContinue.add(req);
}

/**
 * Reads the body as latin1 text (one character per byte, so the signed bytes are kept exactly) and
 * calls `done` once: with the text, or with the error and "". A callback rather than a promise:
 * this runs for every signed order, and a promise costs an allocation and a microtask turn.
 */
export function readBody(
  req: IncomingMessage,
  res: ServerResponse,
  maxBytes: number,
  done: (body: string, error?: unknown) => void,
): void {
  if (Number(req.headers["content-length"]) > maxBytes) {
    // Refused before `100 Continue`: a client that waits for it never sends the body.
    done("", bodyTooLarge(maxBytes));
    return;
  }
  if (awaitingContinue.delete(req) && !res.headersSent && !res.destroyed) res.writeContinue();
  let settled = false;
  const finish = (body: string, error?: unknown) => {
    if (settled) return;
    settled = true;
    done(body, error);
  };
  let first: Buffer | undefined;
  let chunks: Buffer[] | undefined;
  let size = 0;
  const onData = (chunk: Buffer) => {
    size += chunk.length;
    if (size > maxBytes) {
      req.off("data", onData);
      finish("", bodyTooLarge(maxBytes));
      return;
    }
    if (first === undefined) {
      first = chunk;
    } else {
      chunks ??= [first];
      chunks.push(chunk);
    }
  };
  req.on("data", onData);
  req.on("end", () => {
    const whole = chunks ? Buffer.concat(chunks) : first;
    finish(whole === undefined ? "" : whole.toString("latin1"));
  });
  // The client went away mid-body (aborted, reset): nobody will read the answer.
  req.on("error", () => finish("", bodyUnreadable()));
}

/** A non-empty body must be a form (a missing Content-Type is read as one). */
export function checkContentType(req: IncomingMessage, body: string): void {
  if (body === "") return;
  const given = req.headers["content-type"];
  // What nearly every client sends, or nothing: a form, with no parameters to split off.
  if (given === undefined || given === FORM) return;
  const type = given.split(";")[0]?.trim().toLowerCase() ?? "";
  if (type === "" || type === FORM) return;
  throw unsupportedContentType(type.slice(0, 100), FORM);
}
