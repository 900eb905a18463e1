import { SpotClientError } from "./spot-client-error.js";

/** Thrown when the `validateResponse` hook of the client rejects an answer. */
export class ResponseValidationError extends SpotClientError {
  override name = "ResponseValidationError";
  /** The operation whose answer was rejected. */
  readonly operationId: string;
  /** The HTTP status of the answer. */
  readonly status: number;
  /** What the validator reported, as it reported it. */
  readonly errors: unknown;
  /** The parsed body that was rejected. */
  readonly body: unknown;
  /** The response (its body has been read). */
  readonly response: Response;

  constructor(operationId: string, response: Response, body: unknown, errors: unknown) {
    super(`${operationId}: the ${response.status} answer does not match the spec: ${summarize(errors)}`);
    this.operationId = operationId;
    this.status = response.status;
    this.errors = errors;
    this.body = body;
    this.response = response;
  }
}

/** The validators' messages when they have any, else the JSON of what was reported. */
function summarize(errors: unknown): string {
  if (Array.isArray(errors)) {
    const messages = errors.map((e) =>
      typeof e === "object" && e !== null && "message" in e ? String(e.message) : JSON.stringify(e),
    );
    return messages.slice(0, 3).join("; ") + (messages.length > 3 ? ` (+${messages.length - 3} more)` : "");
  }
  return errors === undefined ? "no details" : JSON.stringify(errors);
}
