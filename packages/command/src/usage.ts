// Usage errors, the same way in every command: one line saying what is wrong (an unknown option
// gets a did-you-mean), then the command's short usage, exit 2.
import { type ParseArgsConfig, parseArgs } from "node:util";
import { didYouMean } from "./did-you-mean.js";
import { EXIT } from "./exit-codes.js";

/** The command line is wrong; `message` says how. */
export class UsageError extends Error {
  override name = "UsageError";
}

type Options = NonNullable<ParseArgsConfig["options"]>;

/** The options and the positional arguments of a command line, typed by its options. */
export type CommandLine<T extends Options = Options> = ReturnType<
  typeof parseArgs<{ options: T; strict: true; allowPositionals: true }>
>;

/**
 * node:util's parseArgs, strict, with its errors said as a UsageError: an unknown option names
 * the closest known one ("unknown option --sepc; did you mean --spec?"). An option that takes a
 * value never takes an empty one: `--state "$UNSET"` would otherwise read as no option at all.
 */
export function parseCommandLine<T extends Options>(
  args: readonly string[],
  options: T,
  { allowPositionals = true }: { allowPositionals?: boolean } = {},
): CommandLine<T> {
  let parsed: CommandLine<T>;
  try {
    parsed = parseArgs({
      args: withNegativeValuesJoined(args, options),
      options,
      strict: true,
      allowPositionals,
    }) as CommandLine<T>;
  } catch (error) {
    throw new UsageError(explainParseError(error as Error, Object.keys(options)));
  }
  refuseEmptyValues(parsed.values as Record<string, unknown>);
  return parsed;
}

function refuseEmptyValues(values: Record<string, unknown>): void {
  for (const [name, value] of Object.entries(values)) {
    const given = Array.isArray(value) ? value : [value];
    if (given.includes(""))
      throw new UsageError(`--${name} needs a value; got "" (an empty word, such as an unset variable)`);
  }
}

/**
 * parseArgs reads `--timeout -1` as an option followed by an unknown option `-1`, and calls the
 * first ambiguous; a negative number after an option that takes a value is that value (which
 * the option's own check then refuses by name).
 */
export function withNegativeValuesJoined(args: readonly string[], options: Options): string[] {
  const takesValue = new Set(
    Object.entries(options).flatMap(([name, option]) =>
      option.type === "string" ? [`--${name}`, ...(option.short ? [`-${option.short}`] : [])] : [],
    ),
  );
  const out: string[] = [];
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i]!;
    const next = args[i + 1];
    if (takesValue.has(arg) && next !== undefined && /^-\d/.test(next)) {
      out.push(`${arg}=${next}`);
      i += 1;
    } else out.push(arg);
  }
  return out;
}

/**
 * The whole number an option's value states, from `min` (and up to `max`); a UsageError naming
 * the option, the range and what arrived otherwise.
 */
export function wholeNumberOption(
  name: string,
  text: string,
  min = 0,
  max = Number.MAX_SAFE_INTEGER,
): number {
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < min || value > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `${min} or more` : `from ${min} to ${max}`;
    throw new UsageError(`${name} takes a whole number, ${range}; got ${JSON.stringify(text)}`);
  }
  return value;
}

/** A parse error of node:util in one line, with a did-you-mean for an unknown option. */
export function explainParseError(error: Error, known: readonly string[]): string {
  const unknown = /^Unknown option '(-{1,2}[^']*)'/.exec(error.message);
  if (unknown) {
    const flag = unknown[1]!;
    const name = flag.replace(/^-+/, "").split("=")[0]!;
    return `unknown option ${flag}${didYouMean(name, known, (s) => `--${s}`)}`;
  }
  const positional = /^Unexpected argument '([^']*)'/.exec(error.message);
  if (positional) return `unexpected argument "${positional[1]}"`;
  const missing = /^Option '([^']*)' argument missing/.exec(error.message);
  if (missing) return `${missing[1]!.replace(/^-\w, /, "").replace(/ <value>$/, "")} needs a value`;
  return error.message.split("\n")[0]!.split(". ")[0]!.replace(/\.$/, "");
}

/** What a command writes for a usage error: the problem, then its short usage. */
export function usageText(command: string, message: string, shortUsage: string): string {
  return `${command}: ${message}\n${shortUsage}\n`;
}

/** Writes a usage error to stderr and returns its exit code. */
export function reportUsage(command: string, error: UsageError | string, shortUsage: string): number {
  process.stderr.write(usageText(command, typeof error === "string" ? error : error.message, shortUsage));
  return EXIT.usage;
}

/** An unknown word among `known` (a command, a check, a language), with a did-you-mean. */
export function unknownWord(what: string, word: string, known: readonly string[]): string {
  return `unknown ${what} ${JSON.stringify(word)}${didYouMean(word, known, (s) => JSON.stringify(s))}; one of ${known.join(", ")}`;
}
