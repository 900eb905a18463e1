// What runContract takes (runner.ts), apart so that the runner's modules (src/run/) can read it.
import type { ProgressEvent } from "../kit/context.js";
import type { RoundTrip } from "../session/round-trip.js";
import type { CheckName } from "../session/verdicts.js";

export interface ContractOptions {
  /** The server to test. Without it (and without `endpoint`) the reference server is started in-process. */
  baseUrl?: string;
  apiKey?: string;
  apiSecret?: string;
  /**
   * A second account on the same target (its key and secret): no order of one account may be
   * visible, cancellable or countable through the other.
   */
  secondApiKey?: string;
  secondApiSecret?: string;
  /** A FHIR Endpoint record: a file path, or the parsed record. */
  endpoint?: string | Record<string, unknown>;
  /** Allow creating and cancelling orders (always allowed on the embedded server and test Endpoints). */
  allowTrading?: boolean;
  /**
   * The target is a marketapi reference server: values of declared parameters it accepts on
   * purpose, as the live API does (its README's live-API extras), are not sent as negative data.
   * Always on for the embedded server.
   */
  referenceExtras?: boolean;
  /** Symbols the run trades at most (default 5): the spec's example symbol first, then those whose filters differ. */
  maxSymbols?: number;
  /**
   * The run may move the last price with trades between its own orders, to make stops fire (on by
   * default on the embedded server and with referenceExtras: a sandbox; off elsewhere, since it
   * could fire other traders' stops).
   */
  movePrices?: boolean;
  /**
   * The bounded load phase: reach the announced rate limits on purpose (429 at the limit with
   * Retry-After, the ban after it, recovery after the window). Off by default.
   */
  load?: boolean;
  /**
   * Write what the run left on the target and what a client can read back of it to this file,
   * after the clean-up (run/memory.ts), for `marketapi-contract recall FILE` after a restart.
   */
  remember?: string;
  /** Judge only these operations (operationIds or tags); default: all. */
  include?: readonly string[];
  /** Leave these operations out (operationIds or tags). */
  exclude?: readonly string[];
  /** Run only these checks. */
  only?: readonly CheckName[];
  /** Seed of the generated values (random when absent; the result reports it). */
  seed?: number;
  /** Most requests the run sends (clean-up excluded). */
  maxRequests?: number;
  /**
   * Requests the stateful exploration may send (part of maxRequests; default 300); 0 turns it off.
   */
  exploreBudget?: number;
  /** Per-request timeout in ms. */
  timeoutMs?: number;
  /** The whole run stops after this long (default 300 s); the orders it created are still cancelled. */
  maxTimeMs?: number;
  signal?: AbortSignal;
  onProgress?: (event: ProgressEvent) => void;
  onExchange?: (exchange: RoundTrip) => void;
  /** The clock an Endpoint's period is checked against (epoch ms). */
  now?: () => number;
  /** The OpenAPI document (default: @marketapi/spec's bundled one). */
  spec?: Record<string, unknown>;
}
