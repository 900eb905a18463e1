import type { Driver } from "./driver.js";
import { heyApiDriver } from "./hey-api.js";
import { openapiFetchDriver } from "./openapi-fetch.js";
import { orvalDriver } from "./orval.js";

/** One driver per generator, in the order of GENERATORS. */
export const DRIVERS: readonly Driver[] = [openapiFetchDriver, heyApiDriver, orvalDriver];
