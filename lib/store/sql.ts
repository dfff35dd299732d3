/**
 * Literals for LanceDB (DataFusion) SQL filters. Ids and knowledge-base names come from users, so every
 * value interpolated into a `where` clause goes through here: single quotes are doubled, which is the only
 * escape a standard SQL string literal has (backslashes are literal in DataFusion).
 */
export function sqlString(value: string): string {
  if (value.includes("\0")) throw new Error("NUL character in SQL literal");
  return `'${value.replaceAll("'", "''")}'`;
}

/** `column IN ('a','b')`; an empty list matches nothing. */
export function sqlIn(column: string, values: readonly string[]): string {
  if (values.length === 0) return "false";
  return `${column} IN (${values.map(sqlString).join(", ")})`;
}

export function sqlEq(column: string, value: string): string {
  return `${column} = ${sqlString(value)}`;
}
