/** The command line of marketapi-contract. */
import { didYouMean, parseCommandLine, wholeNumberOption } from "@marketapi/command";
import { UsageError } from "./core/errors.js";
import { DEFAULT_EXPLORE_BUDGET } from "./explore/index.js";
import { SHORT } from "./report/text.js";
import { CHECK_DESCRIPTIONS, CHECK_NAMES, type CheckName, isCheckName } from "./result.js";
import {
  type ContractOptions,
  DEFAULT_MAX_REQUESTS,
  DEFAULT_MAX_SYMBOLS,
  DEFAULT_MAX_TIME_MS,
  DEFAULT_TIMEOUT_MS,
} from "./runner.js";

export interface CliOptions {
  help: boolean;
  json: boolean;
  report?: string;
  contract: ContractOptions;
}

export const SHORT_USAGE =
  "Usage: marketapi-contract [--base-url URL | --endpoint FILE] [--api-key K --api-secret S] [--allow-trading] [--only CHECKS] [--json] (all options: --help)";

export const USAGE = `marketapi-contract: checks a server against the spot trading API spec, check by check.

Usage:
  marketapi-contract [--base-url URL] [--api-key K --api-secret S] [--endpoint FILE]
                     [--allow-trading] [--reference-extras] [--only CHECKS]
                     [--second-api-key K --second-api-secret S] [--max-symbols N]
                     [--move-prices | --no-move-prices] [--load] [--remember FILE]
                     [--report junit.xml] [--json]
                     [--seed N] [--max-requests N] [--explore N] [--timeout MS] [--max-time S]
  marketapi-contract recall FILE [--base-url URL] [--api-key K --api-secret S] [--allow-trading]
                     [--admin-url URL --admin-token T]
                     after the target restarted: read back what a run remembered (--remember
                     FILE) and say what changed (check persistence); with a sandbox's admin
                     surface, also restore a snapshot and judge it
  marketapi-contract custody --server "CMD {state} {port}" [--api-key K --api-secret S]
                     start the server command on state files of its own and judge them as its
                     operator would: one writer by any name, files taken away while served,
                     damaged files at start, a full disk (see custody --help)
  marketapi-contract replay RESULT.json N [--api-key K --api-secret S]
                     re-send failure N of a --json result, re-signed with a fresh
                     timestamp, and print a curl command that sends it

Target (with neither --base-url nor --endpoint, the reference server is started in-process
with its demo account, and trading is allowed there):
  --base-url URL        base URL of the server (e.g. https://testnet.example.org)
  --endpoint FILE       a FHIR Endpoint record (JSON): address is the base URL, each header
                        "Name: value" is sent; refused unless status is active or test and the
                        period includes now; status test allows trading
  --api-key K           API key (X-MBX-APIKEY); env MARKETAPI_API_KEY
  --api-secret S        API secret for HMAC signatures; env MARKETAPI_API_SECRET
  --reference-extras    the target is a marketapi reference server: values it accepts on purpose
                        beyond the spec, as the live API does (such as a recvWindow with decimals),
                        are not sent as negative data (always on for the embedded server)
  --second-api-key K    a second account on the target: no order of one account may be seen,
  --second-api-secret S cancelled or counted through the other; env MARKETAPI_SECOND_API_KEY,
                        MARKETAPI_SECOND_API_SECRET

Safety:
  --allow-trading       create and cancel orders (only far-from-market LIMIT BUY orders, all
                        cancelled at the end, also after a failure or Ctrl-C)
  --max-symbols N       trade at most N of the symbols exchangeInfo lists (default ${DEFAULT_MAX_SYMBOLS}): the spec's
                        example symbol first, then those whose filters differ from it
  --move-prices         move the last price with trades between the run's own orders, so that
                        stops fire (default on the embedded server and with --reference-extras,
                        off elsewhere: it could fire other traders' stops); --no-move-prices
  --remember FILE       after the clean-up, write what the run left on the target (orders, trades,
                        public trades, candles, balances, highest ids) to FILE, for
                        \`marketapi-contract recall FILE\` once the target restarted
  --load                the bounded load phase: reach the announced rate limits on purpose (429
                        at the limit with Retry-After, the ban after it, recovery); off by default

Selection and output:
  --only CHECKS         comma-separated checks to run, by name or by the short name the
                        report's columns print (--only schema,auth); default: all
  --include NAMES       judge only these operations: comma-separated operationIds or tags
  --exclude NAMES       leave these operations out (operationIds or tags)
  --report FILE         write JUnit XML (one testsuite per check, one testcase per operation)
  --json                print the result as JSON on stdout (progress goes to stderr)
  --seed N              seed of the generated values (default: random; printed)
  --max-requests N      most requests the run sends (default ${DEFAULT_MAX_REQUESTS}; clean-up not counted;
                        of 400 or more, the last 40 kept for the judgements at the end)
  --explore N           requests of the stateful exploration, within --max-requests and kept for it
                        from the start (default ${DEFAULT_EXPLORE_BUDGET}, at most half of --max-requests; 0 turns
                        it off); it trades, so only with --allow-trading
  --timeout MS          per-request timeout (default ${DEFAULT_TIMEOUT_MS})
  --max-time S          the whole run stops after S seconds (default ${DEFAULT_MAX_TIME_MS / 1000}); the orders
                        it created are still cancelled; exit 2
  -h, --help            this text

Checks:
${CHECK_NAMES.map((c) => `  ${`${c} (${SHORT[c]})`.padEnd(42)}${CHECK_DESCRIPTIONS[c]}`).join("\n")}

Exit codes (the same for every marketapi command): 0 every check that ran passed; 1 contract
failures, or an --endpoint record at fault; 2 usage error; 3 the server could not be reached or
answered no API, the run's deadline, orders it could not confirm cancelled, or an internal error;
130 interrupted (orders created by the run are cancelled first).
`;

function positiveInteger(name: string, text: string | undefined, allowZero = false): number | undefined {
  return text === undefined ? undefined : wholeNumberOption(name, text, allowZero ? 0 : 1);
}

/** A check by its full name or by its column name in the report (`schema`, `5xx`). */
function checkNamed(name: string): CheckName | undefined {
  if (isCheckName(name)) return name;
  return CHECK_NAMES.find((check) => SHORT[check] === name);
}

function checkList(text: string | undefined): CheckName[] | undefined {
  if (text === undefined) return undefined;
  const names = text
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = names.filter((n) => checkNamed(n) === undefined);
  if (unknown.length > 0 || names.length === 0) {
    const known = CHECK_NAMES.map((check) => `${SHORT[check]} (${check})`).join(", ");
    const suggestion =
      unknown.length === 1
        ? didYouMean(unknown[0]!, [...Object.values(SHORT), ...CHECK_NAMES], (s) => JSON.stringify(s))
        : "";
    throw new UsageError(
      `--only: unknown check${unknown.length === 1 ? "" : "s"} ${unknown.map((n) => JSON.stringify(n)).join(", ") || "(none given)"}${suggestion}; known: ${known}`,
    );
  }
  return [...new Set(names.map((n) => checkNamed(n) as CheckName))];
}

export function parseCli(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): CliOptions {
  const parsed = parseCommandLine(argv, OPTIONS);
  const v = parsed.values;
  if (parsed.positionals.length > 0) {
    throw new UsageError(`unexpected argument ${JSON.stringify(parsed.positionals[0])}`);
  }
  const apiKey = v["api-key"] ?? env.MARKETAPI_API_KEY;
  const apiSecret = v["api-secret"] ?? env.MARKETAPI_API_SECRET;
  const secondApiKey = v["second-api-key"] ?? env.MARKETAPI_SECOND_API_KEY;
  const secondApiSecret = v["second-api-secret"] ?? env.MARKETAPI_SECOND_API_SECRET;
  if ((secondApiKey === undefined) !== (secondApiSecret === undefined))
    throw new UsageError("a second account needs both --second-api-key and --second-api-secret");
  if (v["move-prices"] && v["no-move-prices"])
    throw new UsageError("give --move-prices or --no-move-prices, not both");
  const maxSymbols = positiveInteger("--max-symbols", v["max-symbols"]);
  const only = checkList(v.only);
  const names = (text: string | undefined) =>
    text === undefined
      ? undefined
      : text
          .split(",")
          .map((n) => n.trim())
          .filter((n) => n !== "");
  const include = names(v.include);
  const exclude = names(v.exclude);
  const seed = positiveInteger("--seed", v.seed, true);
  const maxRequests = positiveInteger("--max-requests", v["max-requests"]);
  const exploreBudget = positiveInteger("--explore", v.explore, true);
  const timeoutMs = positiveInteger("--timeout", v.timeout);
  const maxTime = positiveInteger("--max-time", v["max-time"]);
  const contract: ContractOptions = {
    ...(v["base-url"] !== undefined ? { baseUrl: v["base-url"] } : {}),
    ...(v.endpoint !== undefined ? { endpoint: v.endpoint } : {}),
    ...(apiKey ? { apiKey } : {}),
    ...(apiSecret ? { apiSecret } : {}),
    ...(secondApiKey && secondApiSecret ? { secondApiKey, secondApiSecret } : {}),
    ...(maxSymbols !== undefined ? { maxSymbols } : {}),
    ...(v["move-prices"] ? { movePrices: true } : v["no-move-prices"] ? { movePrices: false } : {}),
    ...(v.load ? { load: true } : {}),
    ...(v.remember !== undefined ? { remember: v.remember } : {}),
    ...(v["allow-trading"] ? { allowTrading: true } : {}),
    ...(v["reference-extras"] ? { referenceExtras: true } : {}),
    ...(only ? { only } : {}),
    ...(include ? { include } : {}),
    ...(exclude ? { exclude } : {}),
    ...(seed !== undefined ? { seed } : {}),
    ...(maxRequests !== undefined ? { maxRequests } : {}),
    ...(exploreBudget !== undefined ? { exploreBudget } : {}),
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    ...(maxTime !== undefined ? { maxTimeMs: maxTime * 1000 } : {}),
  };
  if (contract.baseUrl !== undefined && contract.endpoint !== undefined) {
    throw new UsageError("give either --base-url or --endpoint, not both");
  }
  return {
    help: v.help === true,
    json: v.json === true,
    ...(v.report !== undefined ? { report: v.report } : {}),
    contract,
  };
}

const OPTIONS = {
  "base-url": { type: "string" },
  "api-key": { type: "string" },
  "api-secret": { type: "string" },
  endpoint: { type: "string" },
  "allow-trading": { type: "boolean" },
  "reference-extras": { type: "boolean" },
  "second-api-key": { type: "string" },
  "second-api-secret": { type: "string" },
  "max-symbols": { type: "string" },
  "move-prices": { type: "boolean" },
  "no-move-prices": { type: "boolean" },
  load: { type: "boolean" },
  only: { type: "string" },
  include: { type: "string" },
  exclude: { type: "string" },
  report: { type: "string" },
  json: { type: "boolean" },
  seed: { type: "string" },
  "max-requests": { type: "string" },
  explore: { type: "string" },
  timeout: { type: "string" },
  "max-time": { type: "string" },
  remember: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;
