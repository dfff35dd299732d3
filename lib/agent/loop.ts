/**
 * Loop detection for the tool loop: a model that calls the same tool with the same arguments twice in
 * one turn is going round in circles, so the second call ends the loop and the model answers from
 * what it already found.
 */

/**
 * Canonical form of a call: object keys sorted, strings trimmed, whitespace collapsed and lowercased
 * (retrieval is case-insensitive, so "Annual leave" and "annual  leave" are the same search).
 */
export function callKey(toolName: string, args: unknown): string {
  return `${toolName}:${canonical(args)}`;
}

function canonical(v: unknown): string {
  if (typeof v === "string") return JSON.stringify(v.trim().replace(/\s+/g, " ").toLowerCase());
  if (Array.isArray(v)) return `[${v.map(canonical).join(",")}]`;
  if (v && typeof v === "object") {
    const entries = Object.entries(v as Record<string, unknown>)
      .filter(([, x]) => x !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, x]) => `${JSON.stringify(k)}:${canonical(x)}`).join(",")}}`;
  }
  return JSON.stringify(v ?? null);
}

export class LoopDetector {
  private readonly seen = new Set<string>();
  private repeated: string | null = null;

  /** Records a call; true when this exact call was already made in this turn. */
  check(toolName: string, args: unknown): boolean {
    const key = callKey(toolName, args);
    if (this.seen.has(key)) {
      this.repeated ??= key;
      return true;
    }
    this.seen.add(key);
    return false;
  }

  /** Whether a repeated call has been seen; once true, the loop must end. */
  get tripped(): boolean {
    return this.repeated !== null;
  }
}

/** What the model is told instead of running a repeated call. */
export const REPEATED_CALL_RESULT =
  "This exact call was already made in this turn and its results are above. Do not call any tool again: " +
  "answer now from what was found, citing it as [n], or say that the knowledge base does not contain the answer.";
