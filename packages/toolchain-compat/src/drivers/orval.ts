// Every operation through orval's generated fetch functions: the function named after the
// operationId, with the planned parameters; where the operation takes a form body, the parameters
// the query string requires go there and the rest (and the signature) in the form body.
import * as api from "../generated/orval/api.js";
import {
  type CallOutcome,
  driverOf,
  generatedFunction,
  type PlannedArgument,
  SIGNED,
  WITH_JSON_PARAMETER,
} from "./driver.js";
import { configureOrval } from "./orval-fetch.js";

type OrvalCall = (params?: object, form?: object) => Promise<{ data?: unknown; status: number }>;

/** A JSON-encoded parameter as its JSON text (the "symbols" workaround); others as they are. */
const entry = ({ parameter, value }: PlannedArgument) =>
  [parameter.name, parameter.encoding === "json" ? JSON.stringify(value) : value] as const;

export const orvalDriver = driverOf({
  generator: "orval",
  responseVariant: "ACK",
  connect(context) {
    configureOrval(context);
  },
  async invoke(request) {
    const call = generatedFunction<OrvalCall>(api, "orval", request.operation.operationId);
    const inForm = (a: PlannedArgument) => request.operation.acceptsFormBody && !a.parameter.required;
    const params = Object.fromEntries(request.arguments.filter((a) => !inForm(a)).map(entry));
    const form = Object.fromEntries(request.arguments.filter(inForm).map(entry));
    const result = request.operation.acceptsFormBody ? await call(params, form) : await call(params);
    return { status: result.status, body: result.data, sent: { ...params, ...form } } satisfies CallOutcome;
  },
  workarounds: [
    {
      key: "symbols",
      problem:
        "orval's fetch client crashes on a query parameter described with `content` (it reads `schema.type` of a parameter that has none)",
      fix: "`input.override.transformer` gives `symbols` a string schema; the call passes `JSON.stringify([...])`",
      operations: WITH_JSON_PARAMETER,
    },
    {
      key: "5XX",
      problem: "orval writes a range status key into a type as it is (`status: 5XX`), which does not compile",
      fix: "the same transformer renames each `5XX` response to `default` (typed `status: number`)",
      operations: "all",
    },
    {
      key: "base URL",
      problem: "the generated functions fetch bare paths (`/api/v3/ping`)",
      fix: "the `mutator` option: generated calls go through a fetch of ours that prefixes the base URL",
      operations: "all",
    },
    {
      key: "signing",
      problem:
        "no generator reads `x-auth-class`/`x-signing`; the key header and the HMAC signature are not sent",
      fix: "the same mutator adds `X-MBX-APIKEY`, `timestamp` and `signature` (to the form body when there is one)",
      operations: SIGNED,
    },
  ],
});
