// x-wire-pattern in the docs: a parameter's description states the text its value must match.
import type { Parameter } from "@marketapi/spec/model";
import { code } from "../markdown.js";

/** The sentence added to the description of a parameter with a wire pattern. */
export function wirePatternSentence(parameter: Pick<Parameter, "wirePattern">): string | undefined {
  return (
    parameter.wirePattern &&
    `On the wire, the text must match ${code(parameter.wirePattern)} (${code("x-wire-pattern")}).`
  );
}
