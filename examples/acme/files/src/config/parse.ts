/** Parses KEY=VALUE configuration lines and validates that keys are upper case. */
export function parse(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split("\n")) {
    if (!line.trim() || line.startsWith("#")) continue;
    const [key, value] = line.split("=");
    if (key !== key.toUpperCase()) throw new Error(`config keys are upper case: ${key}`);
    out[key] = value;
  }
  return out;
}
