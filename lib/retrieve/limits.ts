import { MAX_QUERY_CHARS } from "@/lib/limits";
import { PAUSES } from "@/lib/text/sentences";

/** A word start after a space or punctuation: where a shortened query may begin. */
const QUERY_START = new RegExp(`(?<=[\\s${PAUSES}])\\S`);

/**
 * A text as a search query of at most `max` characters (MAX_QUERY_CHARS, lib/limits): a longer one (a long
 * question, a follow-up joined to the one before) keeps its end, where the question itself usually stands,
 * from a word or sentence start. Browser-safe.
 */
export function fitQuery(text: string, max = MAX_QUERY_CHARS): string {
  const trimmed = text.trim();
  if (trimmed.length <= max) return trimmed;
  const tail = trimmed.slice(-max);
  const start = tail.slice(0, 80).search(QUERY_START);
  return (start > 0 ? tail.slice(start) : tail).trim();
}
