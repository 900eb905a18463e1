/**
 * Business errors of the exchange. The HTTP layer answers `{ code, msg }` with `httpStatus`.
 * Codes and texts are the live API's (errors.md), `%s` filled in.
 */
export class ExchangeError extends Error {
  readonly code: number;
  readonly msg: string;
  readonly httpStatus: number;

  constructor(code: number, msg: string, httpStatus = 400) {
    super(msg);
    this.name = "ExchangeError";
    this.code = code;
    this.msg = msg;
    this.httpStatus = httpStatus;
  }

  toJSON(): { code: number; msg: string } {
    return { code: this.code, msg: this.msg };
  }
}

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

export const newOrderRejected = (msg: string): ExchangeError => new ExchangeError(-2010, msg);

export const cancelRejected = (msg: string): ExchangeError => new ExchangeError(-2011, msg);

export const filterFailure = (filterType: string): ExchangeError =>
  new ExchangeError(-1013, `Filter failure: ${filterType}`);

export const invalidSymbol = (): ExchangeError => new ExchangeError(-1121, "Invalid symbol.");

export const noSuchOrder = (): ExchangeError => new ExchangeError(-2013, "Order does not exist.");

export const clientOrderIdMismatch = (): ExchangeError =>
  new ExchangeError(-2039, "Client order ID is not correct for this order ID.");

export const unknownAccount = (): ExchangeError =>
  new ExchangeError(-2015, "Invalid API-key, IP, or permissions for action.", 401);

export const illegalChars = (param: string, pattern: string): ExchangeError =>
  new ExchangeError(-1100, `Illegal characters found in parameter '${param}'; legal range is '${pattern}'.`);

export const mandatoryMissing = (param: string): ExchangeError =>
  new ExchangeError(-1102, `Mandatory parameter '${param}' was not sent, was empty/null, or malformed.`);

export const oneOfMissing = (first: string, second: string): ExchangeError =>
  new ExchangeError(-1102, `Param '${first}' or '${second}' must be sent, but both were empty/null!`);

export const notRequired = (param: string): ExchangeError =>
  new ExchangeError(-1106, `Parameter '${param}' sent when not required.`);

export const timeInForceNotRequired = (): ExchangeError =>
  new ExchangeError(-1114, "TimeInForce parameter sent when not required.");

export const badPrecision = (param: string): ExchangeError =>
  new ExchangeError(-1111, `Parameter '${param}' has too much precision.`);

export const invalidEnum = (param: "side" | "type" | "timeInForce"): ExchangeError => {
  const byParam = {
    side: [-1117, "Invalid side."],
    type: [-1116, "Invalid orderType."],
    timeInForce: [-1115, "Invalid timeInForce."],
  } as const;
  const [code, msg] = byParam[param];
  return new ExchangeError(code, msg);
};

export const badCombination = (): ExchangeError =>
  new ExchangeError(-1128, "Combination of optional parameters invalid.");

export const badStrategyType = (): ExchangeError =>
  new ExchangeError(-1134, "strategyType was less than 1000000.");

export const windowTooLong = (): ExchangeError =>
  new ExchangeError(-1127, "More than 24 hours between startTime and endTime.");
