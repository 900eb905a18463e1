/**
 * `--log requests`: one line per request, when its answer is done: method, path, status, the API's
 * error code when there is one, and milliseconds. Only the path is printed, never the query
 * string, the body or the headers, so a signature, an API key or a secret never reaches the log.
 */
import type { RequestListener, ServerResponse } from "node:http";

/** `listener`, writing a line to `print` for each request once its answer is sent (or abandoned). */
export function logRequests(listener: RequestListener, print: (line: string) => void): RequestListener {
  return (req, res) => {
    const started = process.hrtime.bigint();
    const errorCode = sniffErrorCode(res);
    let logged = false;
    const log = (outcome: string) => {
      if (logged) return;
      logged = true;
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const path = (req.url ?? "/").split("?")[0]?.split("#")[0] ?? "/";
      const code = errorCode();
      print(
        `${req.method ?? "?"} ${printable(path)} ${outcome}${code === undefined ? "" : ` ${code}`} ${ms.toFixed(1)}ms`,
      );
    };
    res.once("finish", () => log(String(res.statusCode)));
    res.once("close", () => log(res.writableFinished ? String(res.statusCode) : "aborted"));
    listener(req, res);
  };
}

/** Reads the `code` of a JSON error answer as it is written (answers are written in one piece). */
function sniffErrorCode(res: ServerResponse): () => number | undefined {
  let code: number | undefined;
  const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
  res.end = ((...args: unknown[]) => {
    const [body] = args;
    if (res.statusCode >= 400 && (typeof body === "string" || Buffer.isBuffer(body))) {
      const head = typeof body === "string" ? body.slice(0, 32) : body.toString("latin1", 0, 32);
      const match = /^\{"code":(-?\d+)/.exec(head);
      if (match) code = Number(match[1]);
    }
    return end(...args);
  }) as ServerResponse["end"];
  return () => code;
}

/** Control characters and non-ASCII shown as %XX, so one request is always one line. */
function printable(path: string): string {
  return path
    .slice(0, 200)
    .replace(/[^\x21-\x7e]/g, (c) => `%${c.charCodeAt(0).toString(16).padStart(2, "0")}`);
}
