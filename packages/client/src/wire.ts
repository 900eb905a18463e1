/**
 * `@marketapi/client/wire`: how the client writes a request on the wire, for tools that must send
 * the same bytes without the client, such as the code samples of `@marketapi/docs`: each
 * parameter in its place and OpenAPI style, request bodies by media type, and the percent-encoding
 * and decimal rules of the API. No fetch, no openapi-fetch: plain functions over values.
 */
export {
  cookiePair,
  fillPath,
  headerValue,
  type ParameterLocation,
  type ParameterWire,
  pathSegment,
  queryPart,
  styleOf,
} from "./runtime/parameter-styles.js";
export {
  type BodyKind,
  type BodyWire,
  bodyKind,
  encodeBody,
  type PropertyEncoding,
} from "./runtime/request-body.js";
export { formatDecimal, formatValue, percentEncode } from "./runtime/wire-encoding.js";
