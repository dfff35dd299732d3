/** Heading paths ("Title › Section › Sub"): one separator for chunking, tools and the UI. Browser-safe. */
export const HEADING_SEPARATOR = " › ";

/** "Title › Section › Sub", without repeating the title when the heading path starts with it (the H1). */
export function titleWithHeading(title: string, heading: string): string {
  const parts = heading
    .split(HEADING_SEPARATOR)
    .map((p) => p.trim())
    .filter(Boolean);
  if (parts.length > 0 && parts[0].toLowerCase() === title.trim().toLowerCase()) parts.shift();
  return [title, ...parts].filter(Boolean).join(HEADING_SEPARATOR);
}
