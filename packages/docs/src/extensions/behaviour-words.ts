// Words the behaviour renderers share: where a fact comes from, and how a JSON Pointer reads.
export function source(filledFrom: string): string {
  return filledFrom === "live-api" ? " *(filled from the live API)*" : "";
}

export function where(list: string): string {
  return list === "" ? "the answer" : `\`${list.slice(1)}\``;
}

export function field(pointer: string): string {
  return pointer === "/0" ? "price" : `\`${pointer.slice(1)}\``;
}
