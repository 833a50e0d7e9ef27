/** Parses an ISO date string; validates the format and rejects impossible dates. */
export function parse(value: string): Date {
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) {
    throw new Error(`invalid date: ${value}`);
  }
  return date;
}
