import type { ServerTime } from "@marketapi/spec/model";
import { field, source } from "./behaviour-words.js";

export function serverTimeLine(time: ServerTime): string {
  return `**Server clock** (\`x-server-time\`): ${field(time.field)} is the server's time in epoch milliseconds, which signed requests' timestamps are checked against.${source(time.filledFrom)}`;
}
