// openapi-fetch, for what the client's own sending leaves to it: middleware (`use()` or per
// call), a per-call `fetch`, and paths the spec does not name. Loaded on first such call, outside
// the default import.

import createClient, { type HeadersOptions, type Middleware } from "openapi-fetch";
import type { RawResult } from "./call-conduct.js";
import type { FetchFunction, ParseAs } from "./direct-fetch.js";

/** The openapi-fetch client, untyped: what the client hands the requests that need it. */
export interface UntypedClient {
  request(method: string, path: string, init?: Record<string, unknown>): Promise<RawResult>;
  use(...middleware: Middleware[]): void;
  eject(...middleware: Middleware[]): void;
}

export function openapiFetchClient(
  baseUrl: string,
  headers: HeadersOptions | undefined,
  fetch: FetchFunction,
  middlewares: readonly Middleware[],
): UntypedClient {
  const client = createClient<{}>({ baseUrl, headers, fetch }) as unknown as UntypedClient;
  client.use(...middlewares);
  return client;
}

/** Options of a call that belong to the client, not to openapi-fetch. */
const CLIENT_CALL_OPTIONS = new Set(["recvWindow", "timeoutMs", "signal"]);

/** Sends a request the client has encoded (query string, headers, body) through openapi-fetch. */
export function sendEncoded(
  client: UntypedClient,
  request: { method: string; path: string; search: string; header: Record<string, string>; body: unknown },
  parseAs: ParseAs,
  init: Record<string, unknown> | undefined,
  signal: AbortSignal | undefined,
): Promise<RawResult> {
  const options: Record<string, unknown> = {
    params: { header: request.header },
    querySerializer: () => request.search,
    body: request.body,
    bodySerializer: (body: unknown) => body,
    parseAs,
  };
  for (const key in init) if (!(key in options) && !CLIENT_CALL_OPTIONS.has(key)) options[key] = init[key];
  options.signal = signal;
  return client.request(request.method, request.path, options);
}
