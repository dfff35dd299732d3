/**
 * Knowledge bases and access tokens as the app manages them: the registry (lib/kb/registry) joined with
 * what the document store holds. Knowledge bases that only exist through their documents (e.g. ingested
 * by the CLI with `--kb`) are listed too.
 */
import { randomBytes } from "node:crypto";
import { defaultKbName } from "@/lib/config";
import {
  type AccessToken,
  generateTokenSecret,
  hashTokenSecret,
  type PublicToken,
  publicToken,
  type TokenScope,
} from "@/lib/credentials/tokens";
import { perStore, type Store } from "@/lib/store";
import { isAttachmentKb } from "@/lib/tools/scope";
import { AppError } from "@/lib/types";
import { KB_NAME_PATTERN, searchToolNames } from "./names";
import { openRegistry, type Registry } from "./registry";
import type { KbRecord, KnowledgeBase } from "./types";

export type { Registry } from "./registry";

/** A knowledge base with its document titles, for building its MCP tool. */
export interface KbCatalogEntry {
  kb: KnowledgeBase;
  titles: string[];
}

/** The process-wide registry in the side tables of `store`. */
export const getRegistry: (store: Store) => Promise<Registry> = perStore("registries", (store) =>
  openRegistry(store, { defaultKb: defaultKbName() }),
);

/**
 * Registered knowledge bases and those implied by documents, by name, with document titles; shared and frozen.
 * Every MCP request needs it and building it walks every document (see docs/design-decisions.md),
 * so it is kept until the documents or the registry change (their tables' versions, which see other processes' writes).
 */
export async function kbCatalog(store: Store, registry: Registry): Promise<readonly KbCatalogEntry[]> {
  const key = `${await store.documentsVersion()}\u0000${await registry.kbsVersion()}\u0000${defaultKbName()}`;
  const hit = catalogs.get(store);
  if (hit?.key === key) return hit.catalog;
  const catalog = buildCatalog(store, registry);
  catalogs.set(store, { key, catalog });
  catalog.catch(() => {
    if (catalogs.get(store)?.catalog === catalog) catalogs.delete(store);
  });
  return catalog;
}
const catalogs = new WeakMap<Store, { key: string; catalog: Promise<readonly KbCatalogEntry[]> }>();

async function buildCatalog(store: Store, registry: Registry): Promise<readonly KbCatalogEntry[]> {
  const defaultKb = defaultKbName();
  const [records, docs] = await Promise.all([registry.listKbs(), store.listDocuments()]);
  const titles = new Map<string, string[]>();
  for (const d of docs) {
    // A question's attachment is no knowledge base of the library.
    if (isAttachmentKb(d.kb)) continue;
    const list = titles.get(d.kb) ?? [];
    list.push(d.title);
    titles.set(d.kb, list);
  }
  const byName = new Map(records.map((r) => [r.name, r]));
  const now = new Date(0).toISOString();
  for (const name of [defaultKb, ...titles.keys()]) {
    if (!byName.has(name)) byName.set(name, { name, title: name, description: "", createdAt: now, updatedAt: now });
  }
  const toolNames = searchToolNames([...byName.keys()]);
  return [...byName.values()]
    .sort((a, b) => a.name.localeCompare(b.name))
    .map((r) => {
      const t = titles.get(r.name) ?? [];
      const kb = Object.freeze({ ...r, documentCount: t.length, isDefault: r.name === defaultKb, toolName: toolNames.get(r.name)! });
      return Object.freeze({ kb, titles: Object.freeze(t) as string[] });
    });
}

export async function listKnowledgeBases(store: Store, registry: Registry): Promise<KnowledgeBase[]> {
  return (await kbCatalog(store, registry)).map((e) => e.kb);
}

export async function getKnowledgeBase(store: Store, registry: Registry, name: string): Promise<KnowledgeBase | null> {
  return (await listKnowledgeBases(store, registry)).find((k) => k.name === name) ?? null;
}

export async function requireKb(store: Store, registry: Registry, name: string): Promise<KnowledgeBase> {
  const kb = await getKnowledgeBase(store, registry, name);
  if (!kb) throw new AppError("not_found", `There is no knowledge base named "${name}".`);
  return kb;
}

export function checkNewName(name: string) {
  if (!KB_NAME_PATTERN.test(name)) {
    throw new AppError(
      "bad_request",
      "A knowledge base name is 1–40 characters: lowercase letters, digits, '-' or '_', starting with a letter or digit.",
    );
  }
}

export interface KbInput {
  name: string;
  title?: string;
  description?: string;
}

export async function createKnowledgeBase(store: Store, registry: Registry, input: KbInput): Promise<KnowledgeBase> {
  checkNewName(input.name);
  if (await getKnowledgeBase(store, registry, input.name)) {
    throw new AppError("conflict", `A knowledge base named "${input.name}" already exists.`);
  }
  const now = new Date().toISOString();
  const record: KbRecord = {
    name: input.name,
    title: input.title?.trim() || input.name,
    description: input.description?.trim() ?? "",
    createdAt: now,
    updatedAt: now,
  };
  await registry.putKb(record);
  // Read back from the catalog: its tool name depends on every other knowledge base's name.
  return (await getKnowledgeBase(store, registry, record.name))!;
}

// ---- access tokens ----

export interface TokenInput {
  name: string;
  scope: TokenScope;
  kb?: string | null;
}

/** Creates a token; the secret is returned here once and only its hash is stored. */
export async function createAccessToken(
  store: Store,
  registry: Registry,
  input: TokenInput,
  /** Runs before the token exists (records its owner, so it is never usable without its limits). */
  beforeAdd?: (id: string) => Promise<void>,
): Promise<{ token: PublicToken; secret: string }> {
  const name = input.name.trim();
  if (!name) throw new AppError("bad_request", "Give the token a name.");
  if (input.kb) await requireKb(store, registry, input.kb);
  const secret = generateTokenSecret();
  const token: AccessToken = {
    id: `tok_${randomBytes(8).toString("hex")}`,
    name,
    hash: hashTokenSecret(secret),
    scope: input.scope,
    kb: input.kb || null,
    createdAt: new Date().toISOString(),
    lastUsedAt: null,
    revoked: false,
  };
  await beforeAdd?.(token.id);
  await registry.addToken(token);
  return { token: publicToken(token), secret };
}

export async function listAccessTokens(registry: Registry): Promise<PublicToken[]> {
  return (await registry.listTokens()).map(publicToken);
}

export async function revokeAccessToken(registry: Registry, id: string): Promise<void> {
  if (!(await registry.getToken(id))) throw new AppError("not_found", "There is no such token.");
  await registry.revokeToken(id);
}
