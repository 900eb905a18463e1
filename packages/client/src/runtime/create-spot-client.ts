import type { SpotApiTypes } from "../generated/client.gen.js";
import { spotApi } from "../generated/client.gen.js";
import type { OperationId } from "../generated/operations.gen.js";
import { type ApiClient, type ApiClientOptions, createApiClient } from "./create-api-client.js";

/** The options of `createSpotClient`. */
export interface SpotClientOptions extends ApiClientOptions<OperationId> {}

/**
 * The openapi-fetch client of the spot API (`GET`, `POST`, `DELETE`… by path) plus one method per
 * operationId. Both apply the spec's wire rules and authentication.
 */
export type SpotClient<Mode extends "result" | "throw" = "result"> = ApiClient<SpotApiTypes, Mode>;

/**
 * Creates the client of the spot API as @marketapi/spec describes it: `createApiClient` over this
 * package's generated `spotApi`. Authentication follows each operation's `x-auth-class` (see
 * `createApiClient`).
 */
export function createSpotClient(options: SpotClientOptions & { throwOnError: true }): SpotClient<"throw">;
export function createSpotClient(options: SpotClientOptions): SpotClient;
export function createSpotClient(options: SpotClientOptions): SpotClient<"result" | "throw"> {
  return createApiClient(spotApi, options);
}
