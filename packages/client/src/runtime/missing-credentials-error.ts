import { SpotClientError } from "./spot-client-error.js";

/**
 * Thrown before any request is sent when an operation needs credentials the client was not given:
 * the API key and secret for `trade` and `user_data` (`market_data` takes the key when there is one).
 */
export class MissingCredentialsError extends SpotClientError {
  override name = "MissingCredentialsError";
  /** The operation that was called. */
  readonly operationId: string;
  /** What is missing: `"apiKey"`, `"apiSecret"` or both. */
  readonly missing: readonly ("apiKey" | "apiSecret")[];

  constructor(operationId: string, authClass: string, missing: ("apiKey" | "apiSecret")[]) {
    const what = missing.join(" and ");
    super(
      `${operationId} (authentication class ${authClass}) needs ${what}: pass ${missing.length > 1 ? "them" : "it"} to createSpotClient()`,
    );
    this.operationId = operationId;
    this.missing = missing;
  }
}
