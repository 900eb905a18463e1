/** The base class of every error the client throws itself (not of network errors from `fetch`). */
export class SpotClientError extends Error {
  override name = "SpotClientError";
}
