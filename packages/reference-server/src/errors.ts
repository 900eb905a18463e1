/**
 * The one error type of the server: every error the API answers as `{ code, msg }` with an HTTP
 * status, from the engine (business rules) and from the HTTP layer (parameters, signatures, limits)
 * alike. The factories below are the one table of codes and texts, which are the live API's
 * (errors.md), `%s` filled in.
 */
export class ApiError extends Error {
  readonly code: number;
  readonly msg: string;
  readonly httpStatus: number;
  /** Extra response headers, such as Allow (405) or Retry-After (429). */
  readonly headers: Readonly<Record<string, string>>;

  constructor(code: number, msg: string, httpStatus = 400, headers: Record<string, string> = {}) {
    super(msg);
    this.name = "ApiError";
    this.code = code;
    this.msg = msg;
    this.httpStatus = httpStatus;
    this.headers = headers;
  }

  toJSON(): { code: number; msg: string } {
    return { code: this.code, msg: this.msg };
  }
}

// Parameters, authentication and limits (the HTTP layer).

export const UNKNOWN_ERROR_MSG = "An unknown error occurred while processing the request.";

export const illegalParamValue = (name: string, expected: string): ApiError =>
  new ApiError(-1100, `Illegal characters found in parameter '${name}'; ${expected}.`);

export const duplicateParam = (): ApiError =>
  new ApiError(-1101, "Duplicate values for a parameter detected.");

export const tooManyParams = (): ApiError =>
  new ApiError(-1101, "Too many parameters sent for this endpoint.");

export const apiKeyFormatInvalid = (): ApiError => new ApiError(-2014, "API-key format invalid.", 401);

export const apiKeyRejected = (): ApiError =>
  new ApiError(-2015, "Invalid API-key, IP, or permissions for action.", 401);

export const invalidSignature = (): ApiError =>
  new ApiError(-1022, "Signature for this request is not valid.");

/** The live API's text, with the lead the spec states (1000 there). */
export const timestampAhead = (leadMs: number): ApiError =>
  new ApiError(-1021, `Timestamp for this request was ${leadMs}ms ahead of the server's time.`);

export const timestampOutsideWindow = (): ApiError =>
  new ApiError(-1021, "Timestamp for this request is outside of the recvWindow.");

export const recvWindowTooLarge = (name: string, maximum: number): ApiError =>
  new ApiError(-1102, `'${name}' contains unexpected value. Cannot be greater than ${maximum}.`);

/**
 * A parameter the server does not read: the live API's answer, which counts them; `notImplemented`
 * names one the live API reads and this server does not.
 */
export const unreadParams = (read: number, sent: number, notImplemented?: string): ApiError =>
  new ApiError(
    -1104,
    `Not all sent parameters were read; read '${read}' parameter(s) but was sent '${sent}'.` +
      (notImplemented === undefined
        ? ""
        : ` Parameter '${notImplemented}' is read by the live API but not implemented by this server.`),
  );

/** The state database cannot be written: the change was not made (nothing was kept). */
export const storageUnavailable = (reason: string): ApiError =>
  new ApiError(
    -1001,
    `Internal error; unable to process your request. Please try again. The state database ${reason}; ` +
      "the server refuses orders and cancels until it can write again, and reads still work. Nothing was changed.",
    503,
  );

export const illegalParameter = (): ApiError =>
  new ApiError(-1100, "Illegal characters found in a parameter.");

export const malformedPercentEncoding = (where: string): ApiError =>
  new ApiError(-1100, `Illegal characters found in ${where}; malformed percent-encoding.`);

export const mandatoryNotSent = (name: string): ApiError =>
  new ApiError(-1102, `Mandatory parameter '${name}' was not sent.`);

export const invalidParamData = (name: string): ApiError =>
  new ApiError(-1130, `Data sent for parameter '${name}' is not valid.`);

export const invalidJsonParam = (name: string): ApiError =>
  new ApiError(-1135, `JSON sent for parameter '${name}' is not valid`);

export const invalidTickerType = (): ApiError => new ApiError(-1139, "Invalid ticker type.");

export const invalidCancelRestrictions = (): ApiError =>
  new ApiError(-1145, "cancelRestrictions has to be either ONLY_NEW or ONLY_PARTIALLY_FILLED.");

export const repeatedSymbol = (): ApiError =>
  new ApiError(-1151, "Symbol is present multiple times in the list.");

export const invalidTimeUnit = (): ApiError =>
  new ApiError(-1194, "Invalid value for time unit; expected either MICROSECOND or MILLISECOND.");

/** The request body could not be read; the connection is closed. */
export const bodyUnreadable = (): ApiError =>
  new ApiError(-1130, "The request body could not be read.", 400, { Connection: "close" });

/**
 * The rest of the body is never read, so the connection cannot be reused. 400, not 413: the spec
 * documents 400 for every operation's bad request, and no 413.
 */
export const bodyTooLarge = (maxBytes: number): ApiError =>
  new ApiError(-1101, `Request body too large; the limit is ${maxBytes} bytes.`, 400, {
    Connection: "close",
  });

// The HTTP layer's own refusals (http/protocol.ts): what the API cannot read or does not take.

/** A body the server cannot read is never read, so the connection cannot be reused. */
export const unsupportedContentCoding = (coding: string): ApiError =>
  new ApiError(
    -1130,
    `Content-Encoding '${coding}' is not supported for a request body; send the body unencoded (identity).`,
    415,
    { "Accept-Encoding": "identity", Connection: "close" },
  );

export const unsupportedTransferCoding = (coding: string): ApiError =>
  new ApiError(
    -1130,
    `Transfer-Encoding '${coding}' is not supported; send the body with Content-Length, or chunked alone.`,
    415,
    { Connection: "close" },
  );

export const missingHost = (): ApiError =>
  new ApiError(-1100, "Malformed request: an HTTP/1.1 request must carry a Host header.", 400);

/** A header a request carries once, carried `times` times (as the request spells its name). */
export const headerRepeated = (name: string, times: number): ApiError =>
  new ApiError(
    -1100,
    `Malformed request: the ${name} header is sent ${times} times; a request carries it once.`,
    400,
  );

export const unsupportedHttpVersion = (version: string): ApiError =>
  new ApiError(-1020, `HTTP/${version} is not supported; send HTTP/1.1 (or HTTP/1.0).`, 400, {
    Connection: "close",
  });

export const unsupportedExpectation = (expectation: string): ApiError =>
  new ApiError(
    -1020,
    `Expect '${expectation}' is not supported; the server takes Expect: 100-continue alone.`,
    417,
    { Connection: "close" },
  );

export const unknownPath = (method: string, path: string): ApiError => {
  const shown = path.length > 200 ? `${path.slice(0, 200)}…` : path;
  return new ApiError(-1020, `This operation is not supported: ${method} ${shown}.`, 404);
};

export const methodNotAllowed = (method: string, path: string, allowed: string[]): ApiError => {
  const allow = allowed.sort().join(", ");
  return new ApiError(-1020, `Method ${method} is not supported on ${path}; allowed: ${allow}.`, 405, {
    Allow: allow,
  });
};

export const tooManyOrders = (limit: number, interval: string, retryAfter: number): ApiError =>
  new ApiError(-1015, `Too many new orders; current limit is ${limit} orders per ${interval}.`, 429, {
    "Retry-After": String(retryAfter),
  });

export const unsupportedContentType = (type: string, form: string): ApiError =>
  new ApiError(
    -1130,
    `Content-Type '${type}' is not supported for a request body; send the parameters in the query string or as ${form}.`,
  );

export const tooMuchWeight = (limit: number, headers: Record<string, string>): ApiError =>
  new ApiError(
    -1003,
    `Too much request weight used; current limit is ${limit} request weight per 1 MINUTE. ` +
      "Please use WebSocket Streams for live updates to avoid polling the API.",
    429,
    headers,
  );

export const tooManyRequests = (limit: number, headers: Record<string, string>): ApiError =>
  new ApiError(-1003, `Too many requests; current limit is ${limit} requests per 5 MINUTE.`, 429, headers);

export const ipBanned = (until: number, headers: Record<string, string>): ApiError =>
  new ApiError(
    -1003,
    `Way too much request weight used; IP banned until ${until}. ` +
      "Please use WebSocket Streams for live updates to avoid bans.",
    418,
    headers,
  );

// Business rules (the engine).

export const REJECT = {
  insufficientBalance: "Account has insufficient balance for requested action.",
  duplicateOrder: "Duplicate order sent.",
  wouldTake: "Order would immediately match and take.",
  wouldTrigger: "Order would trigger immediately.",
  marketClosed: "Market is closed.",
  icebergExceedsQty: "IcebergQty exceeds QTY.",
  unsupportedCombination: "Unsupported order combination",
  quoteOrderQtyNotAllowed: "Quote order qty market orders are not support for this symbol.",
  trailingNotAllowed: "Trailing stop orders are not supported for this symbol.",
  icebergNotAllowed: "Iceberg orders are not supported for this symbol.",
  unknownOrder: "Unknown order sent.",
  cancelRestricted: "Order was not canceled due to cancel restrictions.",
} as const;

export const newOrderRejected = (msg: string): ApiError => new ApiError(-2010, msg);

export const cancelRejected = (msg: string): ApiError => new ApiError(-2011, msg);

export const filterFailure = (filterType: string): ApiError =>
  new ApiError(-1013, `Filter failure: ${filterType}`);

export const invalidSymbol = (): ApiError => new ApiError(-1121, "Invalid symbol.");

export const noSuchOrder = (): ApiError => new ApiError(-2013, "Order does not exist.");

export const clientOrderIdMismatch = (): ApiError =>
  new ApiError(-2039, "Client order ID is not correct for this order ID.");

export const unknownAccount = (): ApiError =>
  new ApiError(-2015, "Invalid API-key, IP, or permissions for action.", 401);

export const illegalChars = (param: string, pattern: string): ApiError =>
  new ApiError(-1100, `Illegal characters found in parameter '${param}'; legal range is '${pattern}'.`);

export const mandatoryMissing = (param: string): ApiError =>
  new ApiError(-1102, `Mandatory parameter '${param}' was not sent, was empty/null, or malformed.`);

export const oneOfMissing = (first: string, second: string): ApiError =>
  new ApiError(-1102, `Param '${first}' or '${second}' must be sent, but both were empty/null!`);

export const notRequired = (param: string): ApiError =>
  new ApiError(-1106, `Parameter '${param}' sent when not required.`);

export const timeInForceNotRequired = (): ApiError =>
  new ApiError(-1114, "TimeInForce parameter sent when not required.");

export const badPrecision = (param: string): ApiError =>
  new ApiError(-1111, `Parameter '${param}' has too much precision.`);

export const invalidEnum = (param: "side" | "type" | "timeInForce"): ApiError => {
  const byParam = {
    side: [-1117, "Invalid side."],
    type: [-1116, "Invalid orderType."],
    timeInForce: [-1115, "Invalid timeInForce."],
  } as const;
  const [code, msg] = byParam[param];
  return new ApiError(code, msg);
};

export const invalidInterval = (): ApiError => new ApiError(-1120, "Invalid interval.");

export const badCombination = (): ApiError =>
  new ApiError(-1128, "Combination of optional parameters invalid.");

export const badStrategyType = (): ApiError => new ApiError(-1134, "strategyType was less than 1000000.");

export const windowTooLong = (): ApiError =>
  new ApiError(-1127, "More than 24 hours between startTime and endTime.");
