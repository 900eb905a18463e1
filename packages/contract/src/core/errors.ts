/** A problem with how the tester was invoked (options, Endpoint record); exit code 2: every command's own. */
export { UsageError } from "@marketapi/command";

/** The target could not be reached or does not speak the API at all; exit code 2. */
export class ConnectionError extends Error {
  override name = "ConnectionError";
}

/** The run was interrupted (Ctrl-C or an aborted signal). */
export class InterruptedError extends Error {
  override name = "InterruptedError";
}

/** Stops the current pass over an operation; the reason becomes the skip reason. */
export class PassStopped extends Error {
  override name = "PassStopped";
}

/** The run's request budget (--max-requests) is used up. */
export class BudgetExhausted extends PassStopped {
  override name = "BudgetExhausted";
}

/** One operation stopped answering while the server still answers others. */
export class OperationUnresponsive extends PassStopped {
  override name = "OperationUnresponsive";
}

/** No more orders: the target has not shown that it can query and cancel the one already placed. */
export class OrdersHeld extends PassStopped {
  override name = "OrdersHeld";
}
