/**
 * Versions of a conversation's turns, as a tree of messages (as in ChatGPT). Regenerating an answer or
 * editing a question adds a sibling instead of deleting anything; later turns belong to the version they
 * followed. Stored flat in the conversation's `messages`: each message names its `parentId` (null for the
 * first), and the shown branch is the path that ends at the LAST stored message. A message without
 * `parentId` (saved before versions existed) follows the one stored before it, so old conversations read
 * as one branch.
 */

export interface TreeMessage {
  id: string;
  role: string;
  parentId?: string | null;
}

type Node<M> = M & { parentId: string | null };

/** Every message with an explicit parentId (old conversations: the previous message). */
export function normalizeTree<M extends TreeMessage>(messages: readonly M[]): Node<M>[] {
  return messages.map((m, i) => ({ ...m, parentId: m.parentId === undefined ? (messages[i - 1]?.id ?? null) : m.parentId }));
}

/** The path from the first message to `leafId` (default: the last stored message). */
function pathTo<M extends TreeMessage>(tree: readonly Node<M>[], leafId?: string): Node<M>[] {
  const byId = new Map(tree.map((m) => [m.id, m]));
  const path: Node<M>[] = [];
  let cur = byId.get(leafId ?? tree.at(-1)?.id ?? "");
  const seen = new Set<string>();
  while (cur && !seen.has(cur.id)) {
    seen.add(cur.id);
    path.unshift(cur);
    cur = cur.parentId ? byId.get(cur.parentId) : undefined;
  }
  return path;
}

/** The shown branch. */
export const activePath = <M extends TreeMessage>(tree: readonly Node<M>[]) => pathTo(tree);

/** The versions of a message: the messages with the same parent and role, oldest first. */
export function siblingsOf<M extends TreeMessage>(tree: readonly Node<M>[], id: string): Node<M>[] {
  const m = tree.find((x) => x.id === id);
  if (!m) return [];
  return tree.filter((x) => x.parentId === m.parentId && x.role === m.role);
}

/**
 * Adds the messages of the shown branch `path` (as the chat holds them) to the tree: new ones are added
 * with the previous message of the path as parent, known ones are updated in place, and the path's last
 * message becomes the last stored one (so it is the shown branch after a reload).
 */
export function mergePath<M extends TreeMessage>(tree: readonly Node<M>[], path: readonly M[]): Node<M>[] {
  const out = [...tree];
  const index = new Map(out.map((m, i) => [m.id, i]));
  path.forEach((m, i) => {
    const parentId = path[i - 1]?.id ?? null;
    const at = index.get(m.id);
    if (at === undefined) {
      index.set(m.id, out.length);
      out.push({ ...m, parentId });
    } else out[at] = { ...m, parentId: out[at].parentId };
  });
  const leaf = path.at(-1);
  if (!leaf) return out;
  return moveLast(out, leaf.id);
}

function moveLast<M extends TreeMessage>(tree: Node<M>[], id: string): Node<M>[] {
  const at = tree.findIndex((m) => m.id === id);
  if (at < 0 || at === tree.length - 1) return tree;
  return [...tree.slice(0, at), ...tree.slice(at + 1), tree[at]];
}

/**
 * Shows the version `id`: the branch through it that ends at its most recently stored descendant
 * (the turns that followed that version when it was last shown).
 */
export function switchTo<M extends TreeMessage>(tree: readonly Node<M>[], id: string): Node<M>[] {
  const children = new Map<string, number[]>();
  tree.forEach((m, i) => {
    if (m.parentId) children.set(m.parentId, [...(children.get(m.parentId) ?? []), i]);
  });
  const at = tree.findIndex((m) => m.id === id);
  if (at < 0) return [...tree];
  const leaf = latestIn(tree, children, at);
  return moveLast([...tree], tree[leaf].id);
}

/** The highest stored index in the subtree at `i` (the newest message of that branch). */
function latestIn<M extends TreeMessage>(tree: readonly Node<M>[], children: Map<string, number[]>, i: number): number {
  let best = i;
  const stack = [i];
  while (stack.length) {
    const j = stack.pop()!;
    if (j > best) best = j;
    stack.push(...(children.get(tree[j].id) ?? []));
  }
  return best;
}
