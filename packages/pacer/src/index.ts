/**
 * @marketapi/pacer: paces requests by the limits an exchange announces, so that a burst slows down
 * instead of earning a 429. A request spends its weight (`requestWeight`, by the spec's `x-weight`
 * and its parameter tiers), one raw request, and its orders; the limits come from exchangeInfo's
 * `rateLimits`; the counters every answer carries (`X-MBX-USED-WEIGHT-1M`, `X-MBX-ORDER-COUNT-10S`)
 * correct the pacer's own count; a 429's `Retry-After` and a 418 ban hold every request of every
 * client that shares the pacer. No dependencies; runs in Node and in browsers.
 */
export {
  type CounterHeaders,
  DEFAULT_COUNTER_HEADERS,
  type HeaderSource,
  type ReportedCounter,
  reportedCounters,
  retryAfterMs,
} from "./answer-headers.js";
export { type PacerClock, systemClock } from "./clock.js";
export {
  type AcquireOptions,
  createPacer,
  type LimitState,
  type PacedRequest,
  type Pacer,
  type PacerAnswer,
  type PacerHold,
  type PacerOptions,
  type PacerSnapshot,
  type Permit,
} from "./pacer.js";
export { PacerWaitError, type WaitReason } from "./pacer-wait-error.js";
export { type LimitKind, type RateLimit, readLimits } from "./rate-limits.js";
export { requestWeight, type WeightRule, type WeightTier } from "./weight.js";
