/**
 * What the routes, the MCP tools and the scheduler do with sources: add (secrets sealed, first sync started),
 * list (no secrets), sync now, change the schedule, remove (with their documents).
 */
import type { Store } from "@/lib/store";
import { AppError } from "@/lib/types";
import { confluenceConnector } from "./confluence";
import { type Connector, cancelSync, nextRunAfter, runningOf, syncSource } from "./engine";
import { feishuApiBase, feishuConnector } from "./feishu";
import { folderConnector } from "./folder";
import { gitConnector } from "./git";
import { googleDriveConnector } from "./google-drive";
import { checkSourceUrl, FetchRefused, resolveSourceHost } from "./http";
import { imapConnector } from "./imap";
import { mediawikiConnector } from "./mediawiki";
import { notionConnector } from "./notion";
import { s3Connector } from "./s3";
import {
  SECRET_FIELDS,
  type SourceConfig,
  type SourceInput,
  type SourceKind,
  type SourcePatch,
  type SourceSecrets,
  type SourceView,
  type SyncRun,
} from "./schema";
import { sealSecrets } from "./secrets";
import { sharepointConnector } from "./sharepoint";
import { getSourceStore, newSourceId, type SourceRecord } from "./store";
import { sourceAdded } from "./wake";
import { webConnector } from "./web";
import { webdavConnector } from "./webdav";

const CONNECTORS: Record<SourceKind, Connector> = {
  web: webConnector,
  git: gitConnector,
  s3: s3Connector,
  folder: folderConnector,
  webdav: webdavConnector,
  imap: imapConnector,
  mediawiki: mediawikiConnector,
  confluence: confluenceConnector,
  notion: notionConnector,
  "google-drive": googleDriveConnector,
  sharepoint: sharepointConnector,
  feishu: feishuConnector,
};

function defaultName(input: SourceInput): string {
  if (input.kind === "folder") return input.path;
  if (input.kind === "notion") return "Notion";
  if (input.kind === "confluence") return `${input.url} (${input.spaces.join(", ")})`;
  if (input.kind === "google-drive") return `Google Drive ${input.folders.join(", ")}`;
  if (input.kind === "sharepoint") return `SharePoint ${input.driveId}${input.folder ? `/${input.folder}` : ""}`;
  if (input.kind === "feishu")
    return `${input.domain === "lark" ? "Lark" : "Feishu"} ${[...input.spaces, ...input.folders].join(", ")}`.slice(0, 200);
  return input.url;
}

/** The addresses a source's syncs will request (its service's, for the hosted drives), checked when it is added. */
function addressesOf(input: SourceInput): string[] {
  if (input.kind === "s3" || input.kind === "folder") return [];
  if (input.kind === "google-drive") {
    const tokenUri = (JSON.parse(input.serviceAccount) as { token_uri?: string }).token_uri;
    return tokenUri ? [input.apiUrl, tokenUri] : [input.apiUrl];
  }
  if (input.kind === "sharepoint") return [input.apiUrl, input.loginUrl];
  if (input.kind === "notion") return [input.apiUrl];
  if (input.kind === "feishu") return [feishuApiBase(input)];
  return [input.url];
}

function split(input: SourceInput): { config: SourceConfig; secrets: SourceSecrets } {
  const { name: _name, scheduleMinutes: _schedule, ...rest } = input;
  const secrets: SourceSecrets = {};
  const config = { ...rest } as Record<string, unknown>;
  for (const field of SECRET_FIELDS) {
    if (field in config) {
      if (config[field]) secrets[field] = String(config[field]);
      delete config[field];
    }
  }
  return { config: config as SourceConfig, secrets };
}

export async function viewOf(store: Store, s: SourceRecord, counts?: Map<string, number>): Promise<SourceView> {
  const documents = (counts ?? (await (await getSourceStore(store)).documentCounts())).get(s.id) ?? 0;
  return {
    id: s.id,
    kb: s.kb,
    kind: s.kind,
    name: s.name,
    config: s.config,
    hasSecret: s.secret !== "",
    scheduleMinutes: s.scheduleMinutes,
    createdAt: s.createdAt,
    running: runningOf(s.id),
    lastRun: s.lastRun,
    nextRunAt: s.nextRunAt,
    documents,
  };
}

export async function listSourceViews(store: Store, kb: string): Promise<SourceView[]> {
  const sources = await getSourceStore(store);
  const counts = await sources.documentCounts();
  return Promise.all((await sources.list(kb)).map((s) => viewOf(store, s, counts)));
}

/** The source `id` of `kb`, or 404. */
export async function sourceOf(store: Store, kb: string, id: string): Promise<SourceRecord> {
  const found = await (await getSourceStore(store)).get(id);
  if (!found || found.kb !== kb) throw new AppError("not_found", `There is no source "${id}" in "${kb}".`);
  return found;
}

/** The name of the source each of these documents came from (documents of no source are left out). */
export async function sourceNamesOf(store: Store, documentIds: readonly string[]): Promise<Map<string, string>> {
  const sources = await getSourceStore(store);
  const links = await sources.linksOf(documentIds);
  const names = new Map((await sources.list()).map((s) => [s.id, s.name]));
  const out = new Map<string, string>();
  for (const [id, link] of links) {
    const name = names.get(link.sourceId);
    if (name) out.set(id, name);
  }
  return out;
}

/** Adds a source to `kb` and starts its first sync in the background. Folders are for admins only. */
export async function addSource(store: Store, kb: string, input: SourceInput, opts: { admin: boolean }): Promise<SourceRecord> {
  if (input.kind === "folder" && !opts.admin) throw new AppError("forbidden", "Only an admin may add a server folder as a source.");
  if (input.kind !== "s3" && input.kind !== "folder") {
    try {
      if (input.kind === "imap") await resolveSourceHost(new URL(input.url).hostname);
      else for (const address of addressesOf(input)) await checkSourceUrl(new URL(address));
    } catch (err) {
      if (err instanceof FetchRefused) throw new AppError("bad_request", `This source cannot be added: ${err.message}.`);
      throw err;
    }
  }
  const { config, secrets } = split(input);
  const record: SourceRecord = {
    id: newSourceId(),
    kb,
    kind: input.kind,
    name: input.name?.trim() || defaultName(input),
    config,
    secret: sealSecrets(secrets),
    scheduleMinutes: input.scheduleMinutes,
    createdAt: new Date().toISOString(),
    lastRun: null,
    nextRunAt: nextRunAfter(input.scheduleMinutes),
  };
  await (await getSourceStore(store)).put(record);
  startSync(store, record);
  sourceAdded(record);
  return record;
}

/** Starts a sync in the background (or joins the one under way); its outcome is the source's last run. */
export function startSync(store: Store, source: SourceRecord, opts: { confirmed?: boolean } = {}): Promise<SyncRun> {
  const done = syncSource(store, source, CONNECTORS[source.kind], opts);
  done.catch((err) => console.error(`[sources] sync of ${source.id} failed: ${err instanceof Error ? err.message : String(err)}`));
  return done;
}

/** The secret field each kind of source takes. */
const SECRET_OF: Partial<Record<SourceKind, (typeof SECRET_FIELDS)[number]>> = {
  git: "token",
  s3: "secretAccessKey",
  webdav: "password",
  imap: "password",
  mediawiki: "password",
  confluence: "token",
  notion: "token",
  "google-drive": "serviceAccount",
  sharepoint: "clientSecret",
  feishu: "password",
};

export async function updateSource(store: Store, source: SourceRecord, patch: SourcePatch) {
  if (patch.confirm && !source.lastRun?.needsConfirmation)
    throw new AppError("bad_request", "This source is not waiting for a confirmation: it syncs without one.");
  let secret = source.secret;
  const given = SECRET_FIELDS.filter((f) => patch[f] !== undefined);
  if (given.length) {
    const field = SECRET_OF[source.kind];
    const wrong = given.find((f) => f !== field);
    if (wrong) throw new AppError("bad_request", `A ${source.kind} source has no ${wrong}${field ? `; its secret is ${field}` : ""}.`);
    // Sealed anew with the current key: the old secret may be unreadable (SOURCE_SECRET_KEY changed).
    if (field) secret = sealSecrets({ [field]: patch[field] });
  }
  const next: SourceRecord = {
    ...source,
    secret,
    name: patch.name?.trim() || source.name,
    scheduleMinutes: patch.scheduleMinutes ?? source.scheduleMinutes,
    nextRunAt: patch.scheduleMinutes === undefined ? source.nextRunAt : nextRunAfter(patch.scheduleMinutes),
  };
  await (await getSourceStore(store)).put(next);
  if (patch.confirm) void startSync(store, next, { confirmed: true }).catch(() => {});
  return next;
}

/** Removes a source and every document it brought in, stopping its sync under way; returns how many documents went. */
export async function removeSource(store: Store, source: SourceRecord): Promise<number> {
  const sources = await getSourceStore(store);
  await cancelSync(source.id, "the source was removed");
  let removed = 0;
  for (const item of (await sources.items(source.id)).values()) {
    if (item.documentId && (await store.deleteDocument(item.documentId))) removed++;
  }
  await sources.remove(source.id);
  return removed;
}

/** Every source of a knowledge base that is deleted goes with it (the knowledge base's deletion takes the documents). */
export async function removeSourcesOfKb(store: Store, kb: string): Promise<void> {
  const sources = await getSourceStore(store);
  for (const s of await sources.list(kb)) {
    await cancelSync(s.id, "the knowledge base was deleted");
    await sources.remove(s.id);
  }
}

/**
 * Sources follow their knowledge base's rename; called before the documents move, as their new ids are made
 * from their names (Store.documentIds).
 */
export async function moveSources(store: Store, from: string, to: string, newId: (source: string) => string): Promise<void> {
  const sources = await getSourceStore(store);
  for (const s of await sources.list(from)) {
    const items = [...(await sources.items(s.id)).values()];
    const docs = await store.getDocuments(items.flatMap((i) => (i.documentId ? [i.documentId] : [])));
    const moved = items.map((i) => {
      const doc = i.documentId ? docs.get(i.documentId) : undefined;
      return { ...i, documentId: doc ? newId(doc.source) : null };
    });
    await sources.saveItems(s.id, moved, []);
    await sources.put({ ...s, kb: to });
  }
}
