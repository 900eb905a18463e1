import { SpotClientError } from "./spot-client-error.js";

/**
 * Thrown before any request is sent when an operation needs credentials the client was not given:
 * the API key and secret for `trade` and `user_data` (`market_data` takes the key when there is one),
 * and whatever else the operation's security requirements name (`bearerToken`, `auth.<scheme>`).
 */
export class MissingCredentialsError extends SpotClientError {
  override name = "MissingCredentialsError";
  /** The operation that was called. */
  readonly operationId: string;
  /**
   * The options that are missing: `"apiKey"`, `"apiSecret"`, `"bearerToken"`, or `"auth.<scheme>"`
   * for a scheme only the `auth` option can supply.
   */
  readonly missing: readonly string[];

  /**
   * `requirement` says in the API's own words what asks for the credentials: `authentication class
   * trade` where the spec states our signing rule (x-signing), else the security requirements
   * (`security Auth or KeyAuth`).
   */
  constructor(operationId: string, requirement: string, missing: string[]) {
    const what = missing.join(" and ");
    super(
      `${operationId} (${requirement}) needs ${what}: pass ${missing.length > 1 ? "them" : "it"} in the client's options`,
    );
    this.operationId = operationId;
    this.missing = missing;
  }
}
