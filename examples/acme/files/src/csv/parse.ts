/** Parses CSV rows; validates that every row has as many cells as the header. */
export function parse(text: string): string[][] {
  const rows = text.trim().split("\n").map((line) => line.split(","));
  const width = rows[0]?.length ?? 0;
  for (const row of rows) {
    if (row.length !== width) throw new Error("ragged csv row");
  }
  return rows;
}
