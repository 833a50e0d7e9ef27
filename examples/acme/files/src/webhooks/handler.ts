import { parse } from "./parse";

export function handleWebhook(headers: Record<string, string>, body: string, secret: string) {
  const event = parse(body, headers["x-signature"] ?? "", secret);
  switch (event.type) {
    case "payment.succeeded":
      return { ok: true };
    default:
      return { ok: false, ignored: event.type };
  }
}
