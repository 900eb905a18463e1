import { ApiError } from "../errors.js";

/** @deprecated The engine's former error class: the server has one error type, `ApiError`. */
export const ExchangeError = ApiError;
/** @deprecated The engine's former error class: the server has one error type, `ApiError`. */
export type ExchangeError = ApiError;
