/**
 * `@marketapi/command`: what every marketapi command (`marketapi-codegen`, `marketapi-docs`,
 * `marketapi-diff`, `marketapi-validate`, `marketapi-contract`, `marketapi-server`) does the same
 * way on its command line: the exit codes (`EXIT`, and the README table `EXIT_CODES_TABLE`),
 * usage errors with a did-you-mean and a short usage, and located faults of JSON input files.
 */
export { closest, didYouMean, editDistance } from "./did-you-mean.js";
export { EXIT, EXIT_CODES_TABLE, type ExitCode } from "./exit-codes.js";
export { firstSyntaxError, InputFault, lineAndColumn, parseJsonFile } from "./json-text.js";
export {
  type CommandLine,
  explainParseError,
  parseCommandLine,
  reportUsage,
  UsageError,
  unknownWord,
  usageText,
  wholeNumberOption,
  withNegativeValuesJoined,
} from "./usage.js";
