/**
 * Reciprocal rank fusion (Cormack et al., 2009): each ranked list contributes weight / (k + rank) for every
 * item it holds (rank 1-based), and items are ordered by the sum. Rank-based, so BM25 scores and cosine
 * distances never need to be put on one scale.
 */
export interface RankedList<T> {
  items: readonly T[];
  weight?: number;
}

export interface Fused<T> {
  item: T;
  score: number;
  /** 1-based rank in each input list, null where the list lacks the item. */
  ranks: (number | null)[];
}

export const RRF_K = 60;

export function reciprocalRankFusion<T>(lists: readonly RankedList<T>[], key: (item: T) => string, k = RRF_K): Fused<T>[] {
  const byKey = new Map<string, Fused<T> & { firstSeen: number }>();
  let seen = 0;
  lists.forEach((list, li) => {
    const weight = list.weight ?? 1;
    list.items.forEach((item, i) => {
      const id = key(item);
      let entry = byKey.get(id);
      if (!entry) {
        entry = { item, score: 0, ranks: lists.map(() => null), firstSeen: seen++ };
        byKey.set(id, entry);
      }
      if (entry.ranks[li] !== null) return; // a list repeating an item counts once, at its best rank
      entry.ranks[li] = i + 1;
      entry.score += weight / (k + i + 1);
    });
  });
  return [...byKey.values()]
    .sort((a, b) => b.score - a.score || bestRank(a.ranks) - bestRank(b.ranks) || a.firstSeen - b.firstSeen)
    .map(({ item, score, ranks }) => ({ item, score, ranks }));
}

function bestRank(ranks: (number | null)[]): number {
  return Math.min(...ranks.map((r) => r ?? Infinity));
}
