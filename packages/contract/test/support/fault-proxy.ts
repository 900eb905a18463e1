/**
 * An HTTP proxy on 127.0.0.1 in front of a real server that injects one fault: it may rewrite
 * the request before forwarding it, answer in the server's place, or rewrite the response.
 * Used to prove the tester catches each kind of contract violation (mutation testing).
 */
import { createHmac } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface ProxyRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  /** The query string exactly as it arrived (without "?"): forwarded as it is unless a fault changed the request. */
  rawQuery: string;
  headers: Record<string, string>;
  body: string;
}

export interface ProxyResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** false: no Date header (the upstream's is passed on unless removed from `headers`). */
  sendDate?: boolean;
}

/** Shared memory of one proxy (faults that need state, such as "cancelled order still open"). */
export type ProxyState = Map<string, unknown>;

export interface Fault {
  name: string;
  /** What the server does wrong, in words. */
  description: string;
  /** Checks of which at least one must fail. */
  caughtBy: string[];
  request?(
    req: ProxyRequest,
    state: ProxyState,
  ): ProxyRequest | ProxyResponse | Promise<ProxyRequest | ProxyResponse>;
  response?(req: ProxyRequest, res: ProxyResponse, state: ProxyState): ProxyResponse;
}

/** The key of the proxy's state that holds the upstream's base URL. */
export const UPSTREAM = "upstream";

export interface FaultProxy {
  url: string;
  close(): Promise<void>;
}

const HOP_BY_HOP = new Set([
  "host",
  "connection",
  "content-length",
  "transfer-encoding",
  "keep-alive",
  "content-encoding",
]);

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function isResponse(value: ProxyRequest | ProxyResponse): value is ProxyResponse {
  return "status" in value;
}

function send(res: ServerResponse, response: ProxyResponse): void {
  const headers = { ...response.headers, "content-length": String(Buffer.byteLength(response.body)) };
  if (response.sendDate === false) res.sendDate = false;
  res.writeHead(response.status, headers);
  res.end(response.body);
}

/** Far above any probe's request line and headers. */
const PROXY_MAX_HEADER_BYTES = 1024 * 1024;

export async function startFaultProxy(upstream: string, fault: Fault | undefined): Promise<FaultProxy> {
  // A fault may read the upstream itself (UPSTREAM), as a faulty server reads its own state.
  const state: ProxyState = new Map([[UPSTREAM, upstream]]);
  // Request lines and headers of any size reach the fault and the upstream (the load phase's
  // overlong probes are judged on the upstream's answer, not on the proxy's own limit).
  const server = createServer({ maxHeaderSize: PROXY_MAX_HEADER_BYTES }, async (incoming, outgoing) => {
    try {
      const url = new URL(incoming.url ?? "/", "http://proxy");
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(incoming.headers)) {
        if (!HOP_BY_HOP.has(name) && typeof value === "string") headers[name] = value;
      }
      let request: ProxyRequest = {
        method: incoming.method ?? "GET",
        path: url.pathname,
        query: url.searchParams,
        rawQuery: url.search.replace(/^\?/, ""),
        headers,
        body: await readBody(incoming),
      };
      const arrived = request;
      if (fault?.request) {
        const changed = await fault.request(request, state);
        if (isResponse(changed)) return send(outgoing, changed);
        request = changed;
      }
      // The bytes as sent, unless the fault rewrote the request (a signature covers those bytes).
      const query =
        request === arrived || request.query === arrived.query ? request.rawQuery : request.query.toString();
      const upstreamResponse = await fetch(`${upstream}${request.path}${query ? `?${query}` : ""}`, {
        method: request.method,
        headers: request.headers,
        ...(request.body !== "" ? { body: request.body } : {}),
      });
      const responseHeaders: Record<string, string> = {};
      upstreamResponse.headers.forEach((value, name) => {
        if (!HOP_BY_HOP.has(name)) responseHeaders[name] = value;
      });
      let response: ProxyResponse = {
        status: upstreamResponse.status,
        headers: responseHeaders,
        body: await upstreamResponse.text(),
      };
      if (fault?.response) response = fault.response(request, response, state);
      send(outgoing, response);
    } catch (error) {
      send(outgoing, {
        status: 502,
        headers: { "content-type": "text/plain" },
        body: `proxy error: ${String(error)}`,
      });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** All parameters of a request, query first (the query wins for a name in both). */
export function allParams(req: ProxyRequest): URLSearchParams {
  const merged = new URLSearchParams(req.body);
  for (const [name, value] of req.query) merged.set(name, value);
  return merged;
}

/**
 * Rewrites a signed request the way a server that ignores signatures would see it: the
 * parameters moved to the query, a fresh timestamp, and a valid signature with `secret`.
 */
export function resign(
  req: ProxyRequest,
  secret: string,
  change?: (params: URLSearchParams) => void,
): ProxyRequest {
  const params = allParams(req);
  params.delete("signature");
  change?.(params);
  if (!params.has("timestamp")) params.set("timestamp", String(Date.now()));
  const payload = params.toString();
  params.set("signature", createHmac("sha256", secret).update(payload).digest("hex"));
  const headers = { ...req.headers };
  delete headers["content-type"];
  return { ...req, query: params, body: "", headers };
}

export function mapJson(res: ProxyResponse, change: (json: unknown) => unknown): ProxyResponse {
  let json: unknown;
  try {
    json = JSON.parse(res.body);
  } catch {
    return res;
  }
  return { ...res, body: JSON.stringify(change(json)) };
}

/**
 * A response whose used-weight counter (X-MBX-USED-WEIGHT-1M) is off by a running total: `change`
 * is added to the total kept under `key` in the proxy's state, and the counter shows the upstream's
 * count plus that total (never below 0). How a fault counts weight wrong from some request on.
 */
export function shiftedWeight(
  res: ProxyResponse,
  state: ProxyState,
  key: string,
  change: number,
): ProxyResponse {
  const total = ((state.get(key) as number | undefined) ?? 0) + change;
  state.set(key, total);
  const name = Object.keys(res.headers).find((k) => /^x-mbx-used-weight-1m$/i.test(k));
  const used = name === undefined ? undefined : Number(res.headers[name]);
  return name === undefined || !Number.isInteger(used)
    ? res
    : { ...res, headers: { ...res.headers, [name]: String(Math.max(0, used! + total)) } };
}
