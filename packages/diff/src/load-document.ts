// The diff's documents: read by @marketapi/spec-loader (YAML or JSON, bounded, located errors),
// then held to what the comparison needs (check-document.ts) and nothing more, so the diff reads
// documents that the spec model or codegen would refuse. OpenAPI 3.0 is upgraded to 3.1 in memory
// as codegen and the docs read it (`openApi30: "upgrade"`), so a 3.0 API is gated by the same
// rules, and a 3.0 release compares with its 3.1 successor keyword for keyword.
import {
  type LoadedSpec,
  type LoadOptions,
  loadSpec as loadRaw,
  located,
  specFromText as rawFromText,
} from "@marketapi/spec-loader";
import { checkDocument } from "./check-document.js";

/** Loads and checks a document; throws SpecError (located when possible) on bad input. */
export function loadSpec(spec: string, options: LoadOptions = {}): LoadedSpec {
  return checked(loadRaw(spec, { ...options, openApi30: "upgrade" }));
}

/** A document from its text, checked as loadSpec checks it. */
export function specFromText(source: string, text: string): LoadedSpec {
  return checked(rawFromText(source, text, { openApi30: "upgrade" }));
}

function checked(spec: LoadedSpec): LoadedSpec {
  try {
    checkDocument(spec.source, spec.document);
  } catch (error) {
    throw located(error, spec);
  }
  return spec;
}
