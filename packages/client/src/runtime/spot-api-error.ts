import { type RateLimits, rateLimitsOf } from "./rate-limits.js";
import { SpotClientError } from "./spot-client-error.js";

/**
 * A non-2xx answer, thrown when the client was created with `throwOnError: true`.
 *
 * `code` and `msg` come from the API's error body (`{ "code": -1102, "msg": "…" }`); when the body
 * is not of that shape (a proxy's HTML page, an empty 502), `code` is undefined and `msg` holds the
 * start of the body text. The message reads like
 * `400 Bad Request: POST https://api.example.com/api/v3/order: -1102 Mandatory parameter…`, without
 * the query string; `url` has the full URL that was requested. The response body has been read.
 */
export class SpotApiError extends SpotClientError {
  override name = "SpotApiError";
  /** The HTTP status, such as 400 or 429. */
  readonly status: number;
  /** The API's error code (a negative integer such as -1121), when the body carried one. */
  readonly code: number | undefined;
  /** The API's error message, or the start of a body that was not an API error. */
  readonly msg: string;
  /** The HTTP method of the request. */
  readonly method: string;
  /** The full URL of the request, query string included. */
  readonly url: string;
  /** The response, for its headers (the body has been read). */
  readonly response: Response;

  constructor(method: string, url: string, response: Response, body: unknown) {
    const { code, msg } = describeBody(body);
    const status = `${response.status}${response.statusText ? ` ${response.statusText}` : ""}`;
    const detail = code !== undefined ? `${code} ${msg}` : msg;
    super(`${status}: ${method} ${url.split("?")[0]}${detail ? `: ${detail}` : ""}`);
    this.status = response.status;
    this.code = code;
    this.msg = msg;
    this.method = method;
    this.url = url;
    this.response = response;
  }

  /** The rate-limit headers of the answer (useful on 429 and 418: `retryAfter`). */
  get rateLimits(): RateLimits {
    return rateLimitsOf(this.response);
  }
}

function describeBody(body: unknown): { code: number | undefined; msg: string } {
  if (typeof body === "object" && body !== null) {
    const { code, msg } = body as { code?: unknown; msg?: unknown };
    if (typeof code === "number" && typeof msg === "string") return { code, msg };
    return { code: undefined, msg: JSON.stringify(body).slice(0, 200) };
  }
  return { code: undefined, msg: typeof body === "string" ? body.trim().slice(0, 200) : "" };
}
