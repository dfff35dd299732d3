/**
 * A contract server for the Google Drive source's tests: the parts of Google's APIs the source uses, written from
 * Google's public reference, on its own loopback port, recording every request. Not Google: what it checks and
 * answers is what these pages say.
 *   - Service-account token exchange (JWT bearer grant, RS256-signed assertion, aud = Google's token URL; invalid_grant
 *     for a deleted key): https://developers.google.com/identity/protocols/oauth2/service-account
 *   - files.get / alt=media: https://developers.google.com/workspace/drive/api/reference/rest/v3/files/get
 *   - files.list (q "'<id>' in parents", pageToken/nextPageToken): https://developers.google.com/workspace/drive/api/reference/rest/v3/files/list
 *   - files.export (Docs/Sheets/Slides as Office files): https://developers.google.com/workspace/drive/api/reference/rest/v3/files/export
 *   - changes.getStartPageToken / changes.list (removed: deleted or access lost; newStartPageToken on the last page):
 *     https://developers.google.com/workspace/drive/api/reference/rest/v3/changes/list,
 *     https://developers.google.com/workspace/drive/api/guides/manage-changes
 *   - Errors, 401 for a bad token, 404 for a file not visible, 429 rate limits with backoff:
 *     https://developers.google.com/workspace/drive/api/guides/handle-errors
 * Pages are kept small (PAGE_SIZE) so paging is exercised; a test can queue busy answers (429 + Retry-After) or make
 * every listing endless.
 */
import { createHash, createVerify, generateKeyPairSync, randomBytes } from "node:crypto";
import { once } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { withBody } from "./whole-request";

const GOOGLE_TOKEN_URL = "https://oauth2.googleapis.com/token";
const FOLDER = "application/vnd.google-apps.folder";
const NATIVE = "application/vnd.google-apps.";
const PAGE_SIZE = 2;

interface File {
  id: string;
  name: string;
  mimeType: string;
  parents: string[];
  /** A blob's bytes, or what a Google-native file exports as. */
  content: Buffer;
  exportMime: string | null;
  modifiedTime: string;
  trashed: boolean;
  /** Shared with the service account (false: its permission was withdrawn). */
  shared: boolean;
}

interface LoggedRequest {
  method: string;
  /** Path and query as sent. */
  url: string;
  status: number;
  authorization: string | undefined;
  body: string;
  at: number;
}

export interface GoogleDriveContract {
  origin: string;
  /** The API base to configure (apiUrl). */
  apiUrl: string;
  /** A new service account's JSON key (token_uri: this server); `subject`, when given, is a user it may act as. */
  serviceAccount(): string;
  /** The key is deleted: its assertions are refused (invalid_grant). */
  deleteKey(keyJson: string): void;
  folder(name: string, parent?: string): string;
  file(name: string, parent: string, content: Buffer | string, opts?: { mimeType?: string; exportMime?: string }): string;
  edit(id: string, content: Buffer | string): void;
  rename(id: string, name: string): void;
  move(id: string, parent: string): void;
  trash(id: string): void;
  /** The service account's access to the file is withdrawn. */
  unshare(id: string): void;
  requests(): LoggedRequest[];
  /** The next API requests are answered with these statuses (429 with this Retry-After). */
  busy: { status: number; retryAfter: string }[];
  /** Every listing and change page says there is one more; "items": each change page names new files (removed ones). */
  endless: boolean | "items";
  close(): Promise<void>;
}

const b64url = (s: string) => Buffer.from(s, "base64url").toString("utf8");

export async function startGoogleDriveContract(): Promise<GoogleDriveContract> {
  const files = new Map<string, File>();
  const keys = new Map<string, { email: string; publicKey: string }>();
  const tokens = new Map<string, string>();
  /** The change log: one entry per change, the file's id. */
  const changes: string[] = [];
  const log: LoggedRequest[] = [];
  let clock = Date.parse("2026-01-05T09:00:00Z");
  const now = () => {
    clock += 1000;
    return new Date(clock).toISOString();
  };
  const newId = () => randomBytes(16).toString("base64url");
  const changed = (id: string) => changes.push(id);

  const visible = (f: File | undefined): f is File => !!f && f.shared;
  const resource = (f: File) => ({
    kind: "drive#file",
    id: f.id,
    name: f.name,
    mimeType: f.mimeType,
    parents: f.parents,
    trashed: f.trashed,
    modifiedTime: f.modifiedTime,
    ...(f.mimeType.startsWith(NATIVE)
      ? {}
      : { md5Checksum: createHash("md5").update(f.content).digest("hex"), size: String(f.content.length) }),
    webViewLink: f.mimeType.startsWith(NATIVE)
      ? `https://docs.google.com/document/d/${f.id}/edit`
      : `https://drive.google.com/file/d/${f.id}/view?usp=drivesdk`,
  });

  const api = {
    busy: [] as { status: number; retryAfter: string }[],
    endless: false as boolean | "items",
  };

  const json = (res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { "content-type": "application/json; charset=UTF-8", ...headers }).end(JSON.stringify(body));
    return status;
  };
  const error = (res: http.ServerResponse, status: number, reason: string, message: string, headers: Record<string, string> = {}) =>
    json(res, status, { error: { code: status, message, errors: [{ domain: "global", reason, message }] } }, headers);

  function token(body: string, res: http.ServerResponse): number {
    const form = new URLSearchParams(body);
    if (form.get("grant_type") !== "urn:ietf:params:oauth:grant-type:jwt-bearer")
      return json(res, 400, { error: "unsupported_grant_type", error_description: "Invalid grant_type." });
    const [h, p, sig] = (form.get("assertion") ?? "").split(".");
    let claims: { iss?: string; aud?: string; scope?: string; exp?: number; sub?: string };
    let header: { alg?: string };
    try {
      header = JSON.parse(b64url(h));
      claims = JSON.parse(b64url(p));
    } catch {
      return json(res, 400, { error: "invalid_grant", error_description: "Invalid JWT." });
    }
    const key = [...keys.values()].find((k) => k.email === claims.iss);
    const signed = key && header.alg === "RS256" && createVerify("RSA-SHA256").update(`${h}.${p}`).verify(key.publicKey, sig, "base64url");
    if (!signed) return json(res, 400, { error: "invalid_grant", error_description: "Invalid JWT Signature." });
    if (claims.aud !== GOOGLE_TOKEN_URL) return json(res, 400, { error: "invalid_grant", error_description: "Invalid JWT: aud." });
    if (!claims.exp || claims.exp * 1000 < Date.now())
      return json(res, 400, { error: "invalid_grant", error_description: "Invalid JWT: Token must be a short-lived token." });
    if (!claims.scope?.split(" ").includes("https://www.googleapis.com/auth/drive.readonly"))
      return json(res, 400, { error: "invalid_scope", error_description: "Invalid OAuth scope." });
    const access = `ya29.${randomBytes(24).toString("base64url")}`;
    tokens.set(access, String(claims.iss));
    return json(res, 200, { access_token: access, expires_in: 3599, token_type: "Bearer" });
  }

  function list(params: URLSearchParams, res: http.ServerResponse): number {
    const m = /^'([\w-]+)' in parents and trashed = false$/.exec(params.get("q") ?? "");
    if (!m) return error(res, 400, "invalidParameter", "Invalid Value");
    const all = [...files.values()].filter((f) => visible(f) && !f.trashed && f.parents.includes(m[1]));
    const size = Math.min(Number(params.get("pageSize") ?? 100), PAGE_SIZE);
    const from = Number(params.get("pageToken") ? b64url(params.get("pageToken")!) : 0);
    const page = all.slice(from, from + size);
    const more = api.endless || from + size < all.length;
    const next = more
      ? Buffer.from(String(api.endless ? from + size + Math.floor(Math.random() * 1e9) : from + size)).toString("base64url")
      : undefined;
    return json(res, 200, {
      kind: "drive#fileList",
      files: api.endless ? [] : page.map(resource),
      ...(next ? { nextPageToken: next } : {}),
    });
  }

  function changeList(params: URLSearchParams, res: http.ServerResponse): number {
    const from = Number(params.get("pageToken"));
    if (api.endless) {
      const invented = api.endless === "items" ? Array.from({ length: PAGE_SIZE }, (_, i) => `gone${log.length}x${i}`) : [];
      return json(res, 200, {
        kind: "drive#changeList",
        changes: invented.map((fileId) => ({ kind: "drive#change", changeType: "file", fileId, removed: true })),
        nextPageToken: String(from + 1 + Math.floor(Math.random() * 1e6)),
      });
    }
    if (!Number.isInteger(from) || from < 1 || from > changes.length + 1) return error(res, 400, "invalid", "Invalid Value: pageToken");
    const size = Math.min(Number(params.get("pageSize") ?? 100), PAGE_SIZE);
    const slice = changes.slice(from - 1, from - 1 + size);
    const items = slice.map((id) => {
      const f = files.get(id);
      // Deleted, or no longer visible to this account: a removed change, no file.
      if (!visible(f)) return { kind: "drive#change", changeType: "file", fileId: id, removed: true };
      return { kind: "drive#change", changeType: "file", fileId: id, removed: false, file: resource(f) };
    });
    const nextFrom = from + slice.length;
    return json(res, 200, {
      kind: "drive#changeList",
      changes: items,
      ...(nextFrom <= changes.length ? { nextPageToken: String(nextFrom) } : { newStartPageToken: String(changes.length + 1) }),
    });
  }

  function serveApi(method: string, url: URL, res: http.ServerResponse): number {
    const path = url.pathname;
    if (method !== "GET") return error(res, 405, "methodNotAllowed", "Method not allowed");
    if (path === "/drive/v3/changes/startPageToken")
      return json(res, 200, { kind: "drive#startPageToken", startPageToken: String(changes.length + 1) });
    if (path === "/drive/v3/changes") return changeList(url.searchParams, res);
    if (path === "/drive/v3/files") return list(url.searchParams, res);
    const m = /^\/drive\/v3\/files\/([\w-]+)(\/export)?$/.exec(path);
    if (!m) return error(res, 404, "notFound", "Not Found");
    const f = files.get(m[1]);
    if (!visible(f)) return error(res, 404, "notFound", `File not found: ${m[1]}.`);
    if (m[2]) {
      if (!f.mimeType.startsWith(NATIVE) || url.searchParams.get("mimeType") !== f.exportMime)
        return error(res, 400, "badRequest", "The requested conversion is not supported.");
      res.writeHead(200, { "content-type": f.exportMime! }).end(f.content);
      return 200;
    }
    if (url.searchParams.get("alt") === "media") {
      if (f.mimeType.startsWith(NATIVE))
        return error(
          res,
          403,
          "fileNotDownloadable",
          "Only files with binary content can be downloaded. Use Export with Docs Editors files.",
        );
      res.writeHead(200, { "content-type": f.mimeType }).end(f.content);
      return 200;
    }
    return json(res, 200, resource(f));
  }

  const server = http.createServer(
    withBody((req, res, body) => {
      const url = new URL(req.url ?? "/", "http://x");
      const entry: LoggedRequest = {
        method: req.method ?? "",
        url: req.url ?? "",
        status: 0,
        authorization: req.headers.authorization,
        body,
        at: Date.now(),
      };
      log.push(entry);
      if (url.pathname === "/token" && req.method === "POST") {
        entry.status = token(body, res);
        return;
      }
      const busy = api.busy.shift();
      if (busy) {
        entry.status = error(res, busy.status, "rateLimitExceeded", "Rate Limit Exceeded", { "retry-after": busy.retryAfter });
        return;
      }
      const bearer = /^Bearer (\S+)$/.exec(req.headers.authorization ?? "")?.[1];
      if (!bearer || !tokens.has(bearer)) {
        entry.status = error(res, 401, "authError", "Request had invalid authentication credentials.", {
          "www-authenticate": 'Bearer realm="https://accounts.google.com/", error="invalid_token"',
        });
        return;
      }
      entry.status = serveApi(req.method ?? "GET", url, res);
    }),
  );
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const add = (f: Omit<File, "id" | "modifiedTime" | "trashed" | "shared">) => {
    const id = newId();
    files.set(id, { ...f, id, modifiedTime: now(), trashed: false, shared: true });
    changed(id);
    return id;
  };
  const update = (id: string, patch: Partial<File>) => {
    const f = files.get(id);
    if (!f) throw new Error(`no file ${id}`);
    Object.assign(f, patch, { modifiedTime: now() });
    changed(id);
  };

  return {
    origin,
    apiUrl: `${origin}/`,
    get busy() {
      return api.busy;
    },
    set busy(v) {
      api.busy = v;
    },
    get endless() {
      return api.endless;
    },
    set endless(v) {
      api.endless = v;
    },
    serviceAccount() {
      const { publicKey, privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
      const id = randomBytes(20).toString("hex");
      const email = `kb-sync-${id.slice(0, 6)}@kb-test.iam.gserviceaccount.com`;
      keys.set(id, { email, publicKey: publicKey.export({ type: "spki", format: "pem" }).toString() });
      return JSON.stringify({
        type: "service_account",
        project_id: "kb-test",
        private_key_id: id,
        private_key: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
        client_email: email,
        client_id: "1234567890",
        token_uri: `${origin}/token`,
      });
    },
    deleteKey(keyJson) {
      keys.delete((JSON.parse(keyJson) as { private_key_id: string }).private_key_id);
      tokens.clear();
    },
    folder: (name, parent) => add({ name, mimeType: FOLDER, parents: parent ? [parent] : [], content: Buffer.alloc(0), exportMime: null }),
    file: (name, parent, content, opts = {}) =>
      add({
        name,
        mimeType: opts.mimeType ?? "application/octet-stream",
        parents: [parent],
        content: Buffer.from(content),
        exportMime: opts.exportMime ?? null,
      }),
    edit: (id, content) => update(id, { content: Buffer.from(content) }),
    rename: (id, name) => update(id, { name }),
    move: (id, parent) => update(id, { parents: [parent] }),
    trash: (id) => update(id, { trashed: true }),
    unshare(id) {
      const f = files.get(id);
      if (!f) throw new Error(`no file ${id}`);
      f.shared = false;
      changed(id);
    },
    requests: () => [...log],
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
