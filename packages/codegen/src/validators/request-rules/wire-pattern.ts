// x-wire-pattern in the validators generator: the text a parameter's value must match on the
// wire, which the runtime checks before decoding (JSON Schema has no keyword for a number's text).
import type { Parameter } from "../../spec-input/spec-model.js";
import type { ParameterInfo } from "../validators-runtime.js";

/** The parameter's wire pattern as the runtime's parameter table holds it (nothing when it has none). */
export function wirePattern(parameter: Parameter): Pick<ParameterInfo, "wirePattern"> {
  return parameter.wirePattern === undefined ? {} : { wirePattern: parameter.wirePattern };
}
