/**
 * The scale bench's corpus beyond its real files: when the files give fewer chunks than asked, copy k of a file
 * has its sections (a heading with the text under it; blank-line blocks in a file without headings) in another
 * order and ends with its copy number, so its content hash differs and dedup does not drop it, while its words,
 * its sections and so its chunks stay real. Deterministic: the same corpus gives the same copies.
 */

/** The passes over `files`: pass 0 is the real files, pass k ≥ 1 their k-th reordered copies. */
export function* corpusPasses(files: readonly string[], maxPasses = 50): Generator<{ file: string; pass: number }> {
  for (let pass = 0; pass < maxPasses; pass++) for (const file of files) yield { file, pass };
}

/** A Markdown heading starts a section: moving whole sections keeps each heading with its text. */
const SECTION_START = /\n(?=#{1,6} )/;

/** Copy `pass` of a text: its sections rotated and interleaved, then "(copy pass)" (pass 0: the text itself). */
export function reorderedCopy(text: string, pass: number): string {
  if (pass === 0) return text;
  const sections = text.split(SECTION_START).map((s) => s.trim());
  const parts = sections.length >= 2 ? sections : text.split(/\n{2,}/);
  const k = pass % parts.length;
  const rotated = [...parts.slice(k), ...parts.slice(0, k)];
  // Odd passes also interleave from both ends.
  const order = pass % 2 ? rotated.flatMap((_, i) => (i % 2 ? [rotated[rotated.length - 1 - (i >> 1)]] : [rotated[i >> 1]])) : rotated;
  return `${order.join("\n\n")}\n\n(copy ${pass})`;
}
