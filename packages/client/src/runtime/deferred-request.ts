// openapi-fetch builds a `Request` for every call and hands it to `fetch`, which copies it into
// another one; in Node that is most of openapi-fetch's cost per call (about 10 µs on loopback).
// While nothing needs a real Request, the client gives openapi-fetch a stand-in as its `Request`
// class, which keeps the URL and init, and calls `fetch(url, init)` with them as they are.
// Middleware registered with `client.use()`, or passed to one call, gets real Requests.

/** The fetch the client sends with: the standard signature. */
export type FetchFunction = (input: string | Request, init?: RequestInit) => Promise<Response>;

/** A request openapi-fetch has prepared but that has not been turned into a `Request`. */
export class DeferredRequest {
  constructor(
    readonly url: string,
    readonly init: RequestInit,
  ) {}

  get method(): string {
    return this.init.method ?? "GET";
  }
}

/** Put in a call's options to have a real Request built for that call. */
export const REAL_REQUEST = Symbol("real request");

/**
 * The `Request` class and `fetch` to give openapi-fetch: a DeferredRequest unless
 * `needsRealRequests()` is true or the call's options carry REAL_REQUEST.
 */
export function deferredTransport(
  fetchImpl: () => FetchFunction,
  needsRealRequests: () => boolean,
): { Request: typeof Request; fetch: (request: Request | DeferredRequest) => Promise<Response> } {
  function ClientRequest(url: string, init: RequestInit & { [REAL_REQUEST]?: boolean }) {
    return needsRealRequests() || init[REAL_REQUEST]
      ? new Request(url, init)
      : new DeferredRequest(url, init);
  }
  Object.defineProperty(ClientRequest, Symbol.hasInstance, {
    value: (value: unknown) => value instanceof Request || value instanceof DeferredRequest,
  });
  return {
    Request: ClientRequest as unknown as typeof Request,
    fetch: (request) =>
      request instanceof DeferredRequest ? fetchImpl()(request.url, request.init) : fetchImpl()(request),
  };
}
