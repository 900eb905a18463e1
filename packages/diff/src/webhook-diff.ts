// Webhooks (OpenAPI 3.1 `webhooks`): requests the API sends to its subscribers. The roles of the
// direction table turn round: the subscriber reads the payload, as a client reads a response, and
// sends the answer, as a client sends a request. So a payload that grows breaks subscribers, and
// an added webhook breaks nobody: no subscriber was built for it, so none is waiting for it.
import type { Direction } from "./change.js";
import { HTTP_METHODS } from "./check-document.js";
import { type At, type Comparison, child, isObject } from "./comparison.js";
import { compareSchema } from "./schema-diff.js";
import { compareRemainingKeys } from "./structural.js";
import { webhookLabel } from "./usage.js";

const TURNED: Record<Direction, string> = { request: "webhook answer", response: "webhook payload" };

interface WebhookAt {
  label: string;
  at: At;
}

function webhooksOf(c: Comparison, side: "old" | "new"): Map<string, WebhookAt> {
  const document = side === "old" ? c.oldDocument : c.newDocument;
  const hooks: At = { value: (document as Record<string, unknown>).webhooks, pointer: "/webhooks" };
  const found = new Map<string, WebhookAt>();
  for (const name of Object.keys(isObject(hooks.value) ? hooks.value : {})) {
    const item = c.deref(child(hooks, name), side);
    for (const method of HTTP_METHODS) {
      const at = child(item, method);
      if (isObject(at.value)) found.set(`${name} ${method}`, { label: webhookLabel(name, method), at });
    }
  }
  return found;
}

export function compareWebhooks(c: Comparison): void {
  const before = webhooksOf(c, "old");
  const after = webhooksOf(c, "new");
  const words = c.words;
  c.words = TURNED;
  try {
    for (const key of new Set([...before.keys(), ...after.keys()])) {
      const was = before.get(key);
      const is = after.get(key);
      const label = (is ?? was)!.label;
      c.within(label, () => {
        if (!was) {
          c.report({ value: undefined, pointer: is!.at.pointer }, is!.at, {
            kind: "webhook-added",
            class: "compatible",
            breaksImplementations: true,
            message:
              "webhook added: subscribers may now receive it, and none was built to expect it; implementations must send it",
          });
        } else if (!is) {
          c.report(
            was.at,
            { value: undefined, pointer: was.at.pointer },
            {
              kind: "webhook-removed",
              class: "breaking",
              message: "webhook removed: subscribers that wait for it no longer receive it",
            },
          );
        } else compareWebhook(c, was.at, is.at);
      });
    }
  } finally {
    c.words = words;
  }
}

function compareWebhook(c: Comparison, o: At, n: At): void {
  const payload = (at: At, side: "old" | "new") => child(c.deref(child(at, "requestBody"), side), "content");
  const oContent = payload(o, "old");
  const nContent = payload(n, "new");
  for (const type of mediaTypes(oContent, nContent)) {
    compareSchema(c, child(oContent, type, "schema"), child(nContent, type, "schema"), "response");
  }
  const oResponses = child(o, "responses");
  const nResponses = child(n, "responses");
  for (const status of mediaTypes(oResponses, nResponses)) {
    const was = child(c.deref(child(oResponses, status), "old"), "content");
    const is = child(c.deref(child(nResponses, status), "new"), "content");
    for (const type of mediaTypes(was, is)) {
      compareSchema(c, child(was, type, "schema"), child(is, type, "schema"), "request");
    }
  }
  compareRemainingKeys(c, o, n, new Set(["requestBody", "responses"]));
}

const mediaTypes = (o: At, n: At) =>
  new Set([
    ...Object.keys(isObject(o.value) ? o.value : {}),
    ...Object.keys(isObject(n.value) ? n.value : {}),
  ]);
