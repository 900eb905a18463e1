/**
 * Answers of public market-data GETs kept by their exact request target (method and URL as
 * received), so that a repeated request skips routing, parameter parsing, live-API extras and
 * validation. Only an answer whose body knows when it is stale is kept (a `VersionedJson` from
 * the handlers: depth by book version, the price ticker by trade version, both by state
 * generation), and only for requests nothing but the target decides: unsigned operations without
 * a form body, asked without `X-MBX-TIME-UNIT` (the API key of an unsigned operation changes
 * nothing). Everything else a request goes through still happens on a hit (see the pipeline's
 * `serveCached`): its weight is counted (429, 418), the same headers are written, the answer waits
 * for the state database's commit, and the shutdown gate, the answer budget and the request log,
 * which wrap the pipeline, see it like any other.
 */
import type { IncomingMessage } from "node:http";
import type { ServerOperation } from "./api.js";
import { VersionedJson } from "./handlers.js";
import { TIME_UNIT_HEADER } from "./time-unit.js";

/** A kept answer: the body (checked for staleness on every hit) and the request's weight. */
export interface CachedAnswer {
  readonly method: string;
  readonly body: VersionedJson;
  readonly weight: number;
}

/** Distinct targets kept at most; past that the cache starts afresh (a client cannot grow it). */
const MAX_ENTRIES = 1024;

export class AnswerCache {
  private readonly entries = new Map<string, CachedAnswer>();

  /** How many requests were answered from the cache (for tests). */
  hits = 0;

  /** The kept answer for this request, when there is one and its body is still current. */
  lookup(req: IncomingMessage): CachedAnswer | undefined {
    const url = req.url;
    if (url === undefined) return undefined;
    const entry = this.entries.get(url);
    if (entry === undefined || entry.method !== req.method) return undefined;
    if (req.headers[TIME_UNIT_HEADER] !== undefined || !entry.body.isCurrent()) return undefined;
    this.hits += 1;
    return entry;
  }

  /** Keeps a 200's body for the request's target when nothing but the target decided it. */
  remember(req: IncomingMessage, operation: ServerOperation, weight: number, body: unknown): void {
    if (!(body instanceof VersionedJson) || operation.signed || operation.acceptsFormBody) return;
    const url = req.url;
    const method = req.method;
    if (url === undefined || method !== "GET" || req.headers[TIME_UNIT_HEADER] !== undefined) return;
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
    this.entries.set(url, { method, body, weight });
  }
}
