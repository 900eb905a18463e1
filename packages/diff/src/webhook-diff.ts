// Webhooks (OpenAPI 3.1 `webhooks`): requests the API sends to its subscribers. The roles of the
// direction table turn round: the subscriber reads the payload, as a client reads a response, and
// sends the answer, as a client sends a request. So a payload that grows breaks subscribers, and
// an added webhook breaks nobody: no subscriber was built for it, so none is waiting for it.
import type { Direction } from "./change.js";
import { HTTP_METHODS } from "./check-document.js";
import { type At, type Comparison, child, isObject } from "./comparison.js";
import { compareSchema } from "./schema-diff.js";
import { compareEncoding, compareRemainingKeys } from "./structural.js";
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

export function compareWebhook(c: Comparison, o: At, n: At): void {
  comparePayload(c, c.deref(child(o, "requestBody"), "old"), c.deref(child(n, "requestBody"), "new"));
  compareAnswers(c, child(o, "responses"), child(n, "responses"));
  compareRemainingKeys(c, o, n, WEBHOOK_KEYS);
}

/** What the comparison of a webhook or callback covers; the rest goes to the structural fallback. */
const WEBHOOK_KEYS = new Set([
  "requestBody",
  "responses",
  "summary",
  "description",
  "operationId",
  "tags",
  "externalDocs",
]);

/**
 * The payload the API sends, read by subscribers as a client reads a response: one that may be
 * missing, or of a media type the subscriber was not built for, breaks subscribers; one sent more
 * surely or in fewer media types breaks only implementations, which must send it so.
 */
function comparePayload(c: Comparison, o: At, n: At): void {
  if (o.value === undefined && n.value === undefined) return;
  const required = (at: At) => isObject(at.value) && at.value.required === true;
  if (o.value === undefined || n.value === undefined) {
    const added = o.value === undefined;
    c.report(o, n, {
      kind: added ? "webhook-payload-added" : "webhook-payload-removed",
      class: added ? "compatible" : "breaking",
      breaksImplementations: added,
      message: added
        ? "the webhook now carries a payload: subscribers ignore what they do not read; implementations must send it"
        : "the webhook no longer carries a payload: subscribers that read it find nothing",
    });
    return;
  }
  if (required(o) !== required(n)) {
    c.report(child(o, "required"), child(n, "required"), {
      kind: required(n) ? "webhook-payload-became-required" : "webhook-payload-became-optional",
      class: required(n) ? "compatible" : "breaking",
      breaksImplementations: required(n),
      message: required(n)
        ? "the webhook's payload is now always sent: implementations must send it"
        : "the webhook's payload is now optional: subscribers may receive a request without it",
    });
  }
  const oContent = child(o, "content");
  const nContent = child(n, "content");
  for (const type of mediaTypes(oContent, nContent)) {
    const was = child(oContent, type);
    const is = child(nContent, type);
    if (was.value === undefined || is.value === undefined) {
      const added = was.value === undefined;
      c.report(was, is, {
        kind: added ? "webhook-media-type-added" : "webhook-media-type-removed",
        class: added ? "breaking" : "compatible",
        breaksImplementations: !added,
        message: added
          ? `the webhook's payload may now be ${type}: subscribers cannot choose what they are sent`
          : `the webhook's payload is no longer sent as ${type}`,
      });
      continue;
    }
    compareSchema(c, child(was, "schema"), child(is, "schema"), "response");
    compareEncoding(c, was, is);
    compareRemainingKeys(c, was, is, new Set(["schema", "encoding"]));
  }
  compareRemainingKeys(c, o, n, new Set(["required", "content"]));
}

/**
 * The subscriber's answers, which the API reads as a server reads a request: a status a subscriber
 * may no longer give breaks subscribers that give it; a new one only implementations.
 */
function compareAnswers(c: Comparison, o: At, n: At): void {
  for (const status of mediaTypes(o, n)) {
    const was = c.deref(child(o, status), "old");
    const is = c.deref(child(n, status), "new");
    if (was.value === undefined || is.value === undefined) {
      const added = was.value === undefined;
      c.report(was, is, {
        kind: added ? "webhook-answer-added" : "webhook-answer-removed",
        class: added ? "compatible" : "breaking",
        breaksImplementations: added,
        message: added
          ? `subscribers may now answer ${status}: implementations must handle it`
          : `subscribers may no longer answer ${status}: those that do are taken to have failed`,
      });
      continue;
    }
    const wasContent = child(was, "content");
    const isContent = child(is, "content");
    for (const type of mediaTypes(wasContent, isContent)) {
      compareSchema(c, child(wasContent, type, "schema"), child(isContent, type, "schema"), "request");
    }
  }
}

const mediaTypes = (o: At, n: At) =>
  new Set([
    ...Object.keys(isObject(o.value) ? o.value : {}),
    ...Object.keys(isObject(n.value) ? n.value : {}),
  ]);

/**
 * An operation's callbacks: requests the API sends to a URL the client gave, judged as webhooks
 * are (the client is the subscriber). One added breaks nobody; one removed breaks clients that
 * wait for it.
 */
export function compareCallbacks(c: Comparison, o: At, n: At): void {
  const requests = (at: At, side: "old" | "new") => {
    const found = new Map<string, At>();
    const callbacks = child(at, "callbacks");
    for (const name of Object.keys(isObject(callbacks.value) ? callbacks.value : {})) {
      const callback = c.deref(child(callbacks, name), side);
      for (const expression of Object.keys(isObject(callback.value) ? callback.value : {})) {
        const item = c.deref(child(callback, expression), side);
        for (const method of HTTP_METHODS) {
          const request = child(item, method);
          if (isObject(request.value)) found.set(`${name} ${expression} ${method}`, request);
        }
      }
    }
    return found;
  };
  const before = requests(o, "old");
  const after = requests(n, "new");
  if (before.size === 0 && after.size === 0) return;
  const words = c.words;
  c.words = TURNED;
  try {
    for (const key of new Set([...before.keys(), ...after.keys()])) {
      const was = before.get(key);
      const is = after.get(key);
      const [name, , method] = key.split(" ");
      if (was && is) compareWebhook(c, was, is);
      else {
        c.report(
          was ?? { value: undefined, pointer: is!.pointer },
          is ?? { value: undefined, pointer: was!.pointer },
          {
            kind: is ? "callback-added" : "callback-removed",
            class: is ? "compatible" : "breaking",
            breaksImplementations: Boolean(is),
            message: is
              ? `callback ${name} (${method?.toUpperCase()}) added: clients may now be called back; implementations must call`
              : `callback ${name} (${method?.toUpperCase()}) removed: clients that wait for it are no longer called back`,
          },
        );
      }
    }
  } finally {
    c.words = words;
  }
}
