// `npm run generate`: the three third-party clients into src/generated/ (not committed).
import { generateClient } from "./generate-clients.js";
import { GENERATORS } from "./tools.js";

for (const { id } of GENERATORS) {
  const out = await generateClient(id);
  console.log(`toolchain-compat: ${id} client in ${out}`);
}
