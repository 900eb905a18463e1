/** Reading a request body with a size limit; only form bodies (or none) carry parameters. */
import type { IncomingMessage } from "node:http";
import { bodyTooLarge, bodyUnreadable, unsupportedContentType } from "../errors.js";

const FORM = "application/x-www-form-urlencoded";

export function hasBody(req: IncomingMessage): boolean {
  const length = req.headers["content-length"];
  return req.headers["transfer-encoding"] !== undefined || (length !== undefined && length !== "0");
}

/** The body as latin1 text (one character per byte, so the signed bytes are kept exactly). */
export function readBody(req: IncomingMessage, maxBytes: number): Promise<string> {
  return new Promise((resolve, reject) => {
    if (Number(req.headers["content-length"]) > maxBytes) {
      reject(bodyTooLarge(maxBytes));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        req.off("data", onData);
        reject(bodyTooLarge(maxBytes));
        return;
      }
      chunks.push(chunk);
    };
    req.on("data", onData);
    req.on("end", () => resolve(Buffer.concat(chunks).toString("latin1")));
    // The client went away mid-body (aborted, reset): nobody will read the answer.
    req.on("error", () => reject(bodyUnreadable()));
  });
}

/** A non-empty body must be a form (a missing Content-Type is read as one). */
export function checkContentType(req: IncomingMessage, body: string): void {
  if (body === "") return;
  const type = (req.headers["content-type"] ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
  if (type === "" || type === FORM) return;
  throw unsupportedContentType(type.slice(0, 100), FORM);
}
