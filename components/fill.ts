/** A UI string with its `{name}` placeholders filled in (a missing value leaves nothing). Server and browser. */
export function fill(template: string, values: Record<string, string | number | undefined>): string {
  return template.replace(/\{(\w+)\}/g, (_, k: string) => String(values[k] ?? ""));
}
