/**
 * @marketapi/contract: contract tests for any implementation of the spot trading API, driven by
 * the spec. `runContract({ baseUrl, apiKey, apiSecret })` runs every check and returns a
 * ContractResult (cells of checks × operations, failures with the masked exchanges, exit code).
 */

export { ConnectionError, InterruptedError, UsageError } from "./core/errors.js";
export { buildContractModel, type ContractModel, type ContractOperation } from "./core/operations.js";
export {
  dateTimeRange,
  type EndpointTarget,
  endpointTarget,
  loadEndpointFile,
  parseHeaderEntries,
} from "./endpoint.js";
export {
  type AuthVariant,
  buildRequest,
  type Credentials,
  maskRequest,
  type Placement,
  plainNumber,
  type RequestPlan,
  type WireRequest,
} from "./http/request.js";
export { hmacHex } from "./http/signing.js";
export type { ProgressEvent } from "./kit/context.js";
export { type CliOptions, parseCli, USAGE } from "./options.js";
export { junitXml, xmlEscape } from "./report/junit.js";
export { progressLine, reportText, type TextStyle } from "./report/text.js";
export {
  type Cell,
  type CellStatus,
  CHECK_DESCRIPTIONS,
  CHECK_NAMES,
  type CheckName,
  type CleanupReport,
  type ContractResult,
  type ExchangeRecord,
  type Failure,
  RESPONSE_CHECKS,
} from "./result.js";
export { type ContractOptions, DEFAULT_MAX_REQUESTS, DEFAULT_TIMEOUT_MS, runContract } from "./runner.js";
/** @deprecated The former name of RoundTrip (an HTTP round trip, not the reference server's engine). */
export type { RoundTrip, RoundTrip as Exchange } from "./session/session.js";
