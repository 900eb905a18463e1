/**
 * Errors of the HTTP layer, answered as `{ code, msg }` with an HTTP status, like the engine's
 * ExchangeError (whose factories, such as mandatoryMissing or illegalChars, the HTTP layer reuses).
 * Codes and messages are the live API's (errors.md), `%s` filled in.
 */
import type { ExchangeError } from "../engine/errors.js";

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
}

/** Either kind of error the API answers with `{ code, msg }`. */
export type ApiFault = ApiError | ExchangeError;

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

export const timestampAhead = (): ApiError =>
  new ApiError(-1021, "Timestamp for this request was 1000ms ahead of the server's time.");

export const timestampOutsideWindow = (): ApiError =>
  new ApiError(-1021, "Timestamp for this request is outside of the recvWindow.");

export const recvWindowTooLarge = (name: string, maximum: number): ApiError =>
  new ApiError(-1102, `'${name}' contains unexpected value. Cannot be greater than ${maximum}.`);

/** A parameter the server does not read: the live API's answer, which counts them. */
export const unreadParams = (read: number, sent: number): ApiError =>
  new ApiError(
    -1104,
    `Not all sent parameters were read; read '${read}' parameter(s) but was sent '${sent}'.`,
  );

/** The state database cannot be written: the change was not made (nothing was kept). */
export const storageUnavailable = (reason: string): ApiError =>
  new ApiError(
    -1001,
    `Internal error; unable to process your request. Please try again. The state database ${reason}; ` +
      "the server refuses orders and cancels until it can write again, and reads still work. Nothing was changed.",
    503,
  );
