// The fields of a multipart/form-data body as the samples send them, the generated client's way:
// a property whose schema is binary (`format: binary`, `contentMediaType`) as a file part, an
// object as a JSON part, anything else as text; an array repeats its field.
import { formatValue } from "@marketapi/client/wire";
import { isObject } from "@marketapi/spec/model";
import type { SampleRequest } from "./sample-requests.js";

export interface MultipartField {
  name: string;
  /** The part's content, as text. */
  text: string;
  /** A file part's file name (the samples send `<name>.bin`). */
  file?: string;
  /** The part's media type, for JSON parts. */
  contentType?: string;
}

/** The fields of the request's multipart body, in the order of its value's properties. */
export function multipartFields(request: SampleRequest): MultipartField[] {
  const body = request.body;
  if (body?.spec.kind !== "multipart" || !isObject(body.value)) return [];
  const fields: MultipartField[] = [];
  for (const [name, value] of Object.entries(body.value)) {
    for (const item of Array.isArray(value) ? value : [value]) {
      if (item === undefined || item === null) continue;
      if (body.spec.fileFields?.includes(name)) {
        fields.push({
          name,
          text: typeof item === "string" ? item : JSON.stringify(item),
          file: `${name}.bin`,
        });
      } else if (typeof item === "object") {
        const contentType = body.spec.encoding?.[name]?.contentType ?? "application/json";
        fields.push({ name, text: JSON.stringify(item), contentType });
      } else fields.push({ name, text: formatValue(name, item, false) });
    }
  }
  return fields;
}
