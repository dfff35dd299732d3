/**
 * Renaming and deleting a knowledge base: changes that reach every domain holding rows of it (documents,
 * sources, FAQ, access tokens, OAuth grants, account roles), so they sit above all of them.
 */
import { getAccountStore } from "@/lib/auth/accounts/store";
import { getOAuthStore } from "@/lib/auth/oauth/store";
import { getFaqStore } from "@/lib/faq/store";
import { checkNewName, getKnowledgeBase, type Registry, requireKb } from "@/lib/kb";
import type { KbRecord, KnowledgeBase } from "@/lib/kb/types";
import { moveSources, removeSourcesOfKb } from "@/lib/sources/service";
import type { Store } from "@/lib/store";
import { AppError } from "@/lib/types";

export interface KbPatch {
  /** New name: moves the documents (and tokens limited to it) to that name. */
  name?: string;
  title?: string;
  description?: string;
  instructions?: string;
}

export async function updateKnowledgeBase(store: Store, registry: Registry, name: string, patch: KbPatch): Promise<KnowledgeBase> {
  const current = await requireKb(store, registry, name);
  const now = new Date().toISOString();
  const next: KbRecord = {
    name: current.name,
    title: patch.title !== undefined ? patch.title.trim() || current.name : current.title,
    description: patch.description !== undefined ? patch.description.trim() : current.description,
    instructions: patch.instructions !== undefined ? patch.instructions.trim() : current.instructions,
    createdAt: current.createdAt,
    updatedAt: now,
  };
  if (patch.name === undefined || patch.name === name) {
    await registry.putKb(next);
    return { ...current, ...next };
  }

  const to = patch.name;
  checkNewName(to);
  if (current.isDefault) throw new AppError("bad_request", "The default knowledge base cannot be renamed.");
  if (await getKnowledgeBase(store, registry, to)) {
    throw new AppError("conflict", `A knowledge base named "${to}" already exists.`);
  }
  // Register the new name first, so a failure part-way leaves both names listed (and the rename retryable).
  await registry.putKb({ ...next, name: to, title: next.title === current.name ? to : next.title });
  // Moved documents get the ids they would have had if ingested into `to`: a later upload of the same file
  // into a new `name` then cannot overwrite them.
  const idOf = await store.documentIds();
  await moveSources(store, name, to, (source) => idOf(to, source));
  await store.moveKb(name, to, (doc) => idOf(to, doc.source));
  await (await getFaqStore(store)).moveKb(name, to);
  await registry.moveTokens(name, to);
  await (await getOAuthStore(store)).renameKb(name, to);
  await (await getAccountStore(store)).renameKb(name, to);
  await registry.deleteKb(name);
  return (await getKnowledgeBase(store, registry, to))!;
}

export async function deleteKnowledgeBase(store: Store, registry: Registry, name: string): Promise<{ documents: number }> {
  const kb = await requireKb(store, registry, name);
  if (kb.isDefault) throw new AppError("bad_request", "The default knowledge base cannot be deleted.");
  await removeSourcesOfKb(store, name);
  const documents = await store.deleteKb(name);
  await (await getFaqStore(store)).deleteKb(name);
  await registry.revokeTokensOf(name);
  await (await getOAuthStore(store)).removeKb(name);
  await (await getAccountStore(store)).removeKb(name);
  await registry.deleteKb(name);
  return { documents };
}
