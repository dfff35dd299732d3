/** Links between a conversation and the documents it cites (server and browser). */

/** `href` with `from=<conversation>#m-<answer>`, so the document page's Back lands on the same conversation and turn. */
export function withReturn(href: string, conversationPath: string | null, turn: string | null): string {
  if (!conversationPath) return href;
  const from = `${conversationPath}${turn ? `#m-${turn}` : ""}`;
  return `${href}${href.includes("?") ? "&" : "?"}from=${encodeURIComponent(from)}`;
}
