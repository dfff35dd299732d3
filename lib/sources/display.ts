/**
 * How a document a source brought in is named on screen. Its stored file name carries a suffix that keeps it
 * unique in the knowledge base ("bike-policy (150d4d).md", ./engine.ts); people see the item's own name.
 * Browser-safe.
 */
const SOURCE_SUFFIX = / \([0-9a-f]{6}\)(?=\.[^.\s()]+$|$)/;

/** The file name as shown: without a source's uniqueness suffix for a document of a source. */
export function shownFileName(doc: { source: string; origin: string }): string {
  return doc.origin === "source" ? doc.source.replace(SOURCE_SUFFIX, "") : doc.source;
}

/** Documents a source brought in follow the source: deleting or re-indexing one by hand is undone by the next sync. */
export const followsSource = (doc: { origin: string }) => doc.origin === "source";
