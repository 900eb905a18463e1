import type { OutcomeLookup } from "@marketapi/spec/model";
import { source } from "./behaviour-words.js";

export function outcomeLookupLine(lookup: OutcomeLookup): string {
  const sent = Object.entries(lookup.parameters)
    .map(([name, from]) => (name === from ? `\`${name}\`` : `\`${name}\` = the request's \`${from}\``))
    .join(", ");
  return `**Lost answers** (\`x-outcome-lookup\`): a request whose answer never came (or came as a 5xx) may have been carried out; \`${lookup.operation}\` with ${sent} answers its result, or refuses with its unknown-order code when it was not. Look it up before sending it again.${source(lookup.filledFrom)}`;
}
