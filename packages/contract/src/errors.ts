/** A problem with how the tester was invoked (options, Endpoint record); exit code 2. */
export class UsageError extends Error {
  override name = "UsageError";
}

/** The target could not be reached or does not speak the API at all; exit code 2. */
export class ConnectionError extends Error {
  override name = "ConnectionError";
}

/** The run was interrupted (Ctrl-C or an aborted signal). */
export class InterruptedError extends Error {
  override name = "InterruptedError";
}
