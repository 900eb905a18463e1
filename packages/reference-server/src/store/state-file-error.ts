/** A problem with the state file that prevents the server from starting (exit code 2). */
export class StateFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "StateFileError";
  }
}

/**
 * The error of a command on the state file `given` (resolved to `path`, see files.ts
 * resolveStatePath) as its refusal: named by the path as given, and by the file it leads to when
 * that is another. Any error met in examining, opening or copying a state file is a fault of that
 * file (exit code 2), never an internal one.
 */
export function namedAsGiven(error: unknown, given: string, path: string): StateFileError {
  const message =
    error instanceof StateFileError
      ? error.message
      : `state file ${path}: ${(error as Error | undefined)?.message ?? String(error)}`;
  if (given === path) return error instanceof StateFileError ? error : new StateFileError(message);
  const prefix = `state file ${path}: `;
  const named = message.startsWith(prefix) ? `state file ${given}: ${message.slice(prefix.length)}` : message;
  return new StateFileError(`${named} (${given} is ${path})`);
}
