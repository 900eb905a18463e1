/**
 * @marketapi/reference-server: a spec-exact implementation of the spot trading API with a real
 * matching engine, for integration tests and local development; in memory, or durable on an
 * SQLite state database with `statePath`.
 *
 *   const server = await startServer({ port: 0 });
 *   // ... point a client at server.url with server.demo.apiKey / apiSecret ...
 *   await server.close();
 */

export {
  type AccountConfig,
  ConfigError,
  DEFAULT_MAX_BODY_BYTES,
  parseConfig,
  type ServerConfig,
  type SymbolSketch,
} from "./config.js";
export * from "./engine/index.js";
export { type Credential, hmacSignature, KeyRing } from "./http/auth.js";
export { type ConnectionLimits, DEFAULT_CONNECTION_LIMITS } from "./http/connections.js";
export { specWidening } from "./http/live-extras.js";
export { DEFAULT_RATE_LIMITS, type RateLimitConfig } from "./http/rate-limits.js";
export type { Logger } from "./logger.js";
export { STATE_FORMAT, StateFileError } from "./persistence.js";
export { ADMIN_PREFIX, type AdminOptions } from "./sandbox/admin-server.js";
export { MAX_CLOCK_RATE, SandboxClock } from "./sandbox/clock.js";
export type { ClockOptions, MarketOptions } from "./sandbox/options.js";
export { PARTICIPANT_IDS } from "./sandbox/participants.js";
export { type PriceSeries, parsePriceSeries } from "./sandbox/price-series.js";
export { Sandbox, SandboxError } from "./sandbox/sandbox.js";
export {
  type Credentials,
  DEMO_CREDENTIALS,
  GENEROUS_BALANCE,
  type RunningServer,
  type StartServerOptions,
  startServer,
} from "./server.js";
