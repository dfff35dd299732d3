import { SENTENCE_STOPS } from "@/lib/text/sentences";

/** How long a search query may be: one limit for the search tools, the FAQ search and the chat. Browser-safe. */
export const MAX_QUERY_CHARS = 1000;

/**
 * A text as a search query of at most `max` characters: a longer one (a long question, a follow-up joined to
 * the one before) keeps its end, where the question itself usually stands, from a word or sentence start.
 */
/** A word start after a space or punctuation: where a shortened query may begin. */
const QUERY_START = new RegExp(`(?<=[\\s${SENTENCE_STOPS}；;,，])\\S`);

export function fitQuery(text: string, max = MAX_QUERY_CHARS): string {
  const trimmed = text.trim();
  if (trimmed.length <= max) return trimmed;
  const tail = trimmed.slice(-max);
  const start = tail.slice(0, 80).search(QUERY_START);
  return (start > 0 ? tail.slice(start) : tail).trim();
}
