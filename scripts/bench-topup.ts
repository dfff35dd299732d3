/**
 * The scale bench's corpus beyond its real files: when the files give fewer chunks than asked, copy k of a file
 * has its blocks (paragraphs and sections) in another order, so its content hash differs and dedup does not
 * drop it, while its words and sizes stay real. Deterministic: the same corpus gives the same copies.
 */

/** The passes over `files`: pass 0 is the real files, pass k ≥ 1 their k-th reordered copies. */
export function* corpusPasses(files: readonly string[], maxPasses = 50): Generator<{ file: string; pass: number }> {
  for (let pass = 0; pass < maxPasses; pass++) for (const file of files) yield { file, pass };
}

/** Copy `pass` of a text: its blank-line-separated blocks rotated and interleaved (pass 0: the text itself). */
export function reorderedCopy(text: string, pass: number): string {
  if (pass === 0) return text;
  const blocks = text.split(/\n{2,}/);
  if (blocks.length < 2) return `${text}\n\n(copy ${pass})`;
  const k = pass % blocks.length;
  const rotated = [...blocks.slice(k), ...blocks.slice(0, k)];
  // Odd passes also interleave from both ends, so copies with the same rotation still differ.
  const order = pass % 2 ? rotated.flatMap((_, i) => (i % 2 ? [rotated[rotated.length - 1 - (i >> 1)]] : [rotated[i >> 1]])) : rotated;
  return order.join("\n\n");
}
