// Loaded with `node --import` into a server process: registers loader-hooks.mjs, which hands
// Node the mutated JavaScript in place of one built file (no copy of dist, no rebuild).
import { register } from "node:module";

register("./loader-hooks.mjs", import.meta.url, {
  data: { url: process.env.MARKETAPI_MUTANT_URL, file: process.env.MARKETAPI_MUTANT_JS },
});
