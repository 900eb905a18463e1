/** A problem with the state file that prevents the server from starting (exit code 2). */
export class StateFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "StateFileError";
  }
}
