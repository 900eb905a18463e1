// The exit codes of every marketapi command, in one table: each command's README prints it
// (EXIT_CODES_TABLE, held there by a test), and each command exits through these names.

export const EXIT = {
  /** The job is done and nothing was found at fault. */
  ok: 0,
  /** What the command was given is at fault: a spec or input file, or what the command checks. */
  fault: 1,
  /** The command line is wrong. */
  usage: 2,
  /** The command could not do its job: the environment, or an internal error. */
  failed: 3,
  /** Interrupted (Ctrl-C). */
  interrupted: 130,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** The table, as every command's README prints it, word for word. */
export const EXIT_CODES_TABLE = `| exit code | meaning |
| --------- | ------- |
| 0 | done: the job succeeded and nothing was found at fault |
| 1 | the input is at fault: a fault in a spec or input file, said as \`file#pointer (line L, column C): expected …, found …\`, or what the command checks failed (below) |
| 2 | usage error: an unknown option (with a did-you-mean), a missing or extra argument, or a bad value, followed by a short usage |
| 3 | the command could not do its job: the environment (a folder it cannot write, a port in use, a server it cannot reach) or an internal error, in one line |
| 130 | interrupted (Ctrl-C) |`;
