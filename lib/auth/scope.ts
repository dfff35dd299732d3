/**
 * What a principal may reach, for the routes: the knowledge bases it may read, and who owns what it made
 * (tokens, OAuth grants, conversations). One place, so every route asks the same way.
 */

import { randomUUID } from "node:crypto";
import { readableOf } from "@/lib/auth/roles";
import { knownKbs } from "@/lib/kb/known";
import type { Registry } from "@/lib/kb/registry";
import type { Store } from "@/lib/store";
import { attachmentOwnerOf, isAttachmentKb } from "@/lib/tools/scope";
import { AppError, type DocumentRecord } from "@/lib/types";
import { getAccountStore } from "./accounts/store";
import type { OwnedKind } from "./accounts/types";
import { isAdmin, limitOfPrincipal, mayReadKb, ownerIdOf, type Principal, requireKbAccess } from "./principal";

/** The existing knowledge bases the principal may read. */
async function readableKbs(p: Principal, store: Store, registry: Registry): Promise<string[]> {
  return readableOf(limitOfPrincipal(p), await knownKbs(store, registry));
}

/**
 * The knowledge bases a request that names `asked` (or none: all it may read) reaches; 403 when it names one
 * it may not read, or may read none.
 */
export async function scopeKbs(p: Principal, store: Store, registry: Registry, asked?: readonly string[]): Promise<string[] | undefined> {
  if (limitOfPrincipal(p).kbs === null) return asked?.length ? [...asked] : undefined;
  for (const kb of asked ?? []) requireKbAccess(p, kb, false);
  const kbs = asked?.length ? [...asked] : await readableKbs(p, store, registry);
  if (!kbs.length) throw new AppError("forbidden", "You have no knowledge bases yet; ask an admin to grant you one.");
  return kbs;
}

/** The owner of each subject of `kind` (user ids; absent: made with the admin secret or on this machine). */
export async function ownersOf(store: Store, kind: OwnedKind): Promise<ReadonlyMap<string, string>> {
  return (await getAccountStore(store)).owners(kind);
}

/** Records that the principal made `id` (nothing for the admin secret's). */
export async function recordOwner(p: Principal, store: Store, kind: OwnedKind, id: string): Promise<void> {
  const owner = ownerIdOf(p);
  if (owner) await (await getAccountStore(store)).setOwner(kind, id, owner);
}

/** Whether the principal made it (its own conversation, token, grant). */
export function isOwn(p: Principal, owners: ReadonlyMap<string, string>, id: string): boolean {
  return (owners.get(id) ?? null) === ownerIdOf(p);
}

/** 404 (as if it did not exist) unless the principal made it. */
export async function requireOwn(p: Principal, store: Store, kind: OwnedKind, id: string): Promise<void> {
  if (!isOwn(p, await ownersOf(store, kind), id)) throw new AppError("not_found", "There is no such item.");
}

/** Whether the principal may see or revoke it: its own, or any for an admin. */
export function mayManage(p: Principal, owners: ReadonlyMap<string, string>, id: string): boolean {
  return isAdmin(p) || isOwn(p, owners, id);
}

/**
 * The documents of `ids` the principal may read. One in a knowledge base it may not read is left out exactly as
 * one that does not exist, so a caller learns nothing of what it cannot read, not even that it is there.
 */
export async function readableDocuments(p: Principal, store: Store, ids: readonly string[]): Promise<Map<string, DocumentRecord>> {
  if (!ids.length) return new Map();
  const readable = mayReadKb(p);
  return new Map([...(await store.getDocuments(ids))].filter(([, doc]) => readable(doc.kb) || ownsAttachment(p, doc.kb)));
}

/**
 * Whether `kb` is the knowledge base of a file the principal attached to a question (lib/tools/scope.ts). Only
 * its owner reads it, by id: it is in no listing, overview or example, and other readers and MCP clients never
 * reach it.
 */
export function ownsAttachment(p: Principal, kb: string): boolean {
  return isAttachmentKb(kb) && attachmentOwnerOf(kb) === ownerIdOf(p);
}

/** The knowledge base a file the principal attaches to a question goes into: its own, named for its owner. */
export function newAttachmentKb(p: Principal): string {
  return `~${ownerIdOf(p) ?? ""}~${randomUUID()}`;
}

/**
 * The documents a question is limited to, as the chat sends them to its search tools: an attachment the principal
 * does not own is refused as if it did not exist (the tools search an attachment only when the chat names it).
 */
export async function questionDocuments(p: Principal, store: Store, ids: readonly string[] | undefined): Promise<string[] | undefined> {
  if (!ids?.length) return ids ? [] : undefined;
  const docs = await store.getDocuments(ids);
  for (const id of ids) {
    const doc = docs.get(id);
    if (doc && isAttachmentKb(doc.kb) && !ownsAttachment(p, doc.kb)) throw noSuchDocument(id);
  }
  return [...ids];
}

/**
 * The document `id` if the principal may read it (`write`: and change it). 404 when it does not exist or lies in a
 * knowledge base the principal may not read (the same answer: readableDocuments); 403 when it may only read it.
 */
export async function documentFor(p: Principal, store: Store, id: string, write: boolean): Promise<DocumentRecord> {
  const doc = (await readableDocuments(p, store, [id])).get(id);
  if (!doc) throw noSuchDocument(id);
  // The owner of an attachment may delete it (removing it from the question box); no one else reaches it.
  if (write && !ownsAttachment(p, doc.kb)) requireKbAccess(p, doc.kb, true);
  return doc;
}

/** The one answer for a document a caller cannot see, whether it exists or not. */
export const noSuchDocument = (id: string): AppError => new AppError("not_found", `No document with id "${id}".`);
