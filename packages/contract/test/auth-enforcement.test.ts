// auth_enforcement's signing refusals: the code x-signing names, with the status of the response that lists it, given/want.
import { loadOpenApi } from "@marketapi/spec";
import { describe, expect, it } from "vitest";
import { signingRefusal } from "../src/checks/auth-enforcement.js";
import { buildContractModel } from "../src/core/operations.js";

const model = buildContractModel(loadOpenApi());

const response = (status: string, description: string) => ({ status, description });

describe("signingRefusal: x-signing's code, with the status of the one 4xx response that names it", () => {
  it.each([
    {
      name: "BadRequest lists the code: 400, though 401 is declared too",
      given: {
        responses: [
          response("400", "Typical codes: -1100 illegal characters, -1021 timestamp outside recvWindow"),
          response("401", "The API key is missing, malformed (-2014) or not valid for this request (-2015)."),
        ],
        code: -1021,
      },
      want: { code: -1021, status: 400 },
    },
    {
      name: "a server whose spec lists the code under 401: 401",
      given: {
        responses: [response("400", "Malformed."), response("401", "Bad signature (-1022).")],
        code: -1022,
      },
      want: { code: -1022, status: 401 },
    },
    {
      name: "no response names the code: the code alone (any 4xx)",
      given: { responses: [response("400", "Malformed."), response("4XX", "-1022")], code: -1022 },
      want: { code: -1022 },
    },
    {
      name: "two responses name it: the code alone",
      given: { responses: [response("400", "-1022 bad"), response("403", "or -1022")], code: -1022 },
      want: { code: -1022 },
    },
    {
      name: "a longer code or the same digits unsigned name another code",
      given: { responses: [response("400", "-10221 and 1022 and X-1022")], code: -1022 },
      want: { code: -1022 },
    },
    {
      name: "no code stated by x-signing: nothing to require",
      given: { responses: [response("400", "-1022")], code: undefined },
      want: {},
    },
  ])("$name", ({ given, want }) => {
    expect(signingRefusal(given, given.code)).toEqual(want);
  });

  it("on the spec: every signed operation refuses a bad signature or timestamp with 400", () => {
    const signed = model.operations.filter((o) => o.signed);
    expect(signed.length).toBeGreaterThan(0);
    for (const operation of signed) {
      expect(signingRefusal(operation, model.signing.invalidSignatureCode), operation.operationId).toEqual({
        code: -1022,
        status: 400,
      });
      expect(signingRefusal(operation, model.signing.invalidTimestampCode), operation.operationId).toEqual({
        code: -1021,
        status: 400,
      });
    }
  });
});
