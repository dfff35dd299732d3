/**
 * Google Drive (Drive API v3, through @googleapis/drive): the files in chosen folders or shared drives, read by a
 * service account (its JSON key; with domain-wide delegation, acting as a user), scope drive.readonly. Google Docs,
 * Sheets and Slides are exported as .docx, .xlsx and .pptx and read by the parsers uploaded files go through; other
 * Google-native files (forms, drawings, shortcuts) are skipped. The change feed is Drive's `changes` with a saved page
 * token (./drive-sync.ts does the rest); a file's Original is its webViewLink.
 *
 * Every request (the token exchange included) goes through ./sdk-fetch.ts. The installed google-auth-library signs
 * the JWT for, and posts it to, Google's token URL whatever the key's `token_uri` says: the fetch given to it sends
 * that request to the key's `token_uri` instead, so a key for another token service (a proxy, the tests' contract
 * server) is honoured. Retries are ./http.ts's (429/503 after Retry-After), not gaxios' own.
 */
import { auth as googleAuth, drive as googleDrive } from "@googleapis/drive";
import { type DriveApi, type DriveItem, syncDrive } from "./drive-sync";
import type { Connector, SyncContext } from "./engine";
import type { SourceConfig } from "./schema";
import { sdkFetch } from "./sdk-fetch";
import { CredentialRefused, ItemGone } from "./tree";

type GoogleDriveConfig = Extract<SourceConfig, { kind: "google-drive" }>;

/** Where google-auth-library posts the signed JWT (its own constant). */
const GOOGLE_TOKEN_URL = "https://oauth2.googleapis.com/token";
const SCOPE = "https://www.googleapis.com/auth/drive.readonly";
const FOLDER = "application/vnd.google-apps.folder";
/** Google-native files and what each is exported as. */
const EXPORTS: Record<string, { mime: string; ext: string }> = {
  "application/vnd.google-apps.document": { mime: "application/vnd.openxmlformats-officedocument.wordprocessingml.document", ext: ".docx" },
  "application/vnd.google-apps.spreadsheet": { mime: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", ext: ".xlsx" },
  "application/vnd.google-apps.presentation": {
    mime: "application/vnd.openxmlformats-officedocument.presentationml.presentation",
    ext: ".pptx",
  },
};
const FILE_FIELDS = "id,name,mimeType,parents,trashed,md5Checksum,modifiedTime,size,webViewLink";
const PAGE_SIZE = 200;

interface DriveFile {
  id?: string | null;
  name?: string | null;
  mimeType?: string | null;
  parents?: string[] | null;
  trashed?: boolean | null;
  md5Checksum?: string | null;
  modifiedTime?: string | null;
  size?: string | null;
  webViewLink?: string | null;
}

interface GoogleError {
  status?: number;
  config?: { url?: unknown };
  response?: { status?: number; data?: unknown };
  message?: string;
}

/** What a failed request means: a refused key or token, an item gone for this credential, or an error to report. */
function meaning(err: unknown, what: string): Error {
  const e = err as GoogleError;
  const status = e.status ?? e.response?.status;
  const data = (e.response?.data ?? {}) as {
    error?: string | { message?: string; errors?: { reason?: string }[] };
    error_description?: string;
  };
  if (typeof data.error === "string" || String(e.config?.url ?? "").startsWith(GOOGLE_TOKEN_URL)) {
    const why =
      typeof data.error === "string" ? `${data.error}${data.error_description ? `: ${data.error_description}` : ""}` : `HTTP ${status}`;
    return new CredentialRefused(
      `Google refused the service account's key (${why.slice(0, 200)}): the key was deleted or disabled, or the delegation withdrawn; enter a new key`,
    );
  }
  if (status === 401)
    return new CredentialRefused("Google refused the service account's token (HTTP 401): its key was revoked; enter a new key");
  const reason = typeof data.error === "object" ? data.error.errors?.[0]?.reason : undefined;
  const message = typeof data.error === "object" ? data.error.message : e.message;
  if ((status === 403 && reason !== "rateLimitExceeded" && reason !== "userRateLimitExceeded") || status === 404 || status === 410)
    return new ItemGone(`HTTP ${status}: ${what} is no longer readable with this service account`);
  return new Error(`Google Drive answered ${status ? `HTTP ${status}` : "an error"} to ${what}: ${String(message ?? "").slice(0, 200)}`);
}

function googleDriveApi(ctx: SyncContext): DriveApi {
  const config = ctx.source.config as GoogleDriveConfig;
  const raw = ctx.secrets.serviceAccount;
  if (!raw) throw new Error("this source has no service account key");
  const key = JSON.parse(raw) as { client_email: string; private_key: string; token_uri?: string };
  const tokenUrl = new URL(key.token_uri ?? GOOGLE_TOKEN_URL);
  const apiUrl = new URL(config.apiUrl);
  const base = sdkFetch(ctx, { origins: [apiUrl.origin, tokenUrl.origin] });
  const fetchImplementation = ((input: string | URL | Request, init?: RequestInit) =>
    base(String(input instanceof Request ? input.url : input) === GOOGLE_TOKEN_URL ? tokenUrl : input, init)) as typeof fetch;
  const jwt = new googleAuth.JWT({
    email: key.client_email,
    key: key.private_key,
    scopes: [SCOPE],
    subject: config.subject,
    transporterOptions: { fetchImplementation },
  });
  const drive = googleDrive({ version: "v3", auth: jwt, rootUrl: apiUrl.href, fetchImplementation, retry: false });
  const all = { supportsAllDrives: true, includeItemsFromAllDrives: true };

  const itemOf = (f: DriveFile, removed = false): DriveItem => {
    const mime = f.mimeType ?? "";
    const exported = EXPORTS[mime];
    const name = f.name ?? "";
    return {
      id: String(f.id),
      name: mime === FOLDER ? name : exported ? `${name}${exported.ext}` : mime.startsWith("application/vnd.google-apps.") ? null : name,
      parents: f.parents ?? [],
      folder: mime === FOLDER,
      removed: removed || !!f.trashed,
      version: f.md5Checksum ?? f.modifiedTime ?? null,
      size: f.size && !exported ? Number(f.size) : null,
      url: f.webViewLink ?? `https://drive.google.com/open?id=${encodeURIComponent(String(f.id))}`,
      type: mime || null,
    };
  };
  const call = async <T>(what: string, run: () => Promise<{ data: T }>): Promise<T> => {
    try {
      return (await run()).data;
    } catch (err) {
      ctx.signal.throwIfAborted();
      throw meaning(err, what);
    }
  };

  return {
    async roots() {
      const ids: string[] = [];
      for (const fileId of config.folders) {
        const f = await call(`the folder ${fileId}`, () =>
          drive.files.get({ fileId, fields: "id,mimeType", supportsAllDrives: true }),
        ).catch((err) => {
          if (err instanceof ItemGone) throw new Error(`the folder ${fileId} is not there or not shared with the service account`);
          throw err;
        });
        ids.push(String(f.id));
      }
      return ids;
    },
    async cursor() {
      const r = await call("the change feed's start", () => drive.changes.getStartPageToken({ supportsAllDrives: true }));
      if (!r.startPageToken) throw new Error("Google Drive gave no start page token for its change feed");
      return r.startPageToken;
    },
    async children(folderId, pageToken) {
      const r = await call(`the listing of ${folderId}`, () =>
        drive.files.list({
          q: `'${folderId}' in parents and trashed = false`,
          // A folder may lie in a shared drive: the default corpus ("user") holds only what is the user's.
          corpora: "allDrives",
          fields: `nextPageToken,files(${FILE_FIELDS})`,
          pageSize: PAGE_SIZE,
          pageToken: pageToken ?? undefined,
          ...all,
        }),
      );
      return { items: (r.files ?? []).map((f) => itemOf(f)), next: r.nextPageToken ?? null };
    },
    async changes(pageToken) {
      const r = await call("the change feed", () =>
        drive.changes.list({
          pageToken,
          fields: `nextPageToken,newStartPageToken,changes(fileId,removed,file(${FILE_FIELDS}))`,
          includeRemoved: true,
          pageSize: PAGE_SIZE,
          ...all,
        }),
      );
      const items = (r.changes ?? []).flatMap((c) => {
        if (!c.fileId) return [];
        const removed = !!c.removed || !c.file;
        return [itemOf(c.file ?? { id: c.fileId }, removed)];
      });
      return { items, next: r.nextPageToken ?? null, cursor: r.newStartPageToken ?? null };
    },
    async fetch(item) {
      const exported = EXPORTS[item.type ?? ""];
      const what = `the file ${item.name}`;
      const data = exported
        ? await call(what, () => drive.files.export({ fileId: item.id, mimeType: exported.mime }, { responseType: "arraybuffer" }))
        : await call(what, () =>
            drive.files.get({ fileId: item.id, alt: "media", supportsAllDrives: true }, { responseType: "arraybuffer" }),
          );
      return new Uint8Array(data as unknown as ArrayBuffer);
    },
  };
}

export const googleDriveConnector: Connector = (ctx) => syncDrive(ctx, googleDriveApi(ctx), "Google Drive");
