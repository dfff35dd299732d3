/**
 * A contract server for the SharePoint / OneDrive source's tests: the parts of the Microsoft identity platform and of
 * Microsoft Graph v1.0 the source uses, written from Microsoft's public reference, recording every request. Not
 * Microsoft: what it checks and answers is what these pages say.
 *   - Client credentials grant (client_id + client_secret, scope <resource>/.default; AADSTS7000215 for a wrong
 *     secret): https://learn.microsoft.com/en-us/entra/identity-platform/v2-oauth2-client-creds-grant-flow
 *   - OpenID Connect metadata MSAL reads for an authority (token_endpoint…):
 *     https://learn.microsoft.com/en-us/entra/identity-platform/v2-protocols-oidc
 *   - driveItem get (by id, by path root:/path): https://learn.microsoft.com/en-us/graph/api/driveitem-get
 *   - list children, @odata.nextLink paging: https://learn.microsoft.com/en-us/graph/api/driveitem-list-children,
 *     https://learn.microsoft.com/en-us/graph/paging
 *   - delta (full enumeration, token=latest, @odata.deltaLink, deleted facet, 410 resyncRequired for an expired link):
 *     https://learn.microsoft.com/en-us/graph/api/driveitem-delta
 *   - download (@microsoft.graph.downloadUrl: pre-authenticated, short-lived, no Authorization header):
 *     https://learn.microsoft.com/en-us/graph/api/driveitem-get-content
 *   - 401 InvalidAuthenticationToken, 429 with Retry-After: https://learn.microsoft.com/en-us/graph/errors,
 *     https://learn.microsoft.com/en-us/graph/throttling
 * The reference does not say how delta reports an item the caller lost access to: here it is returned with the
 * deleted facet (as Google's change feed does), and its download is refused (403). MSAL requires an https
 * authority, and the Graph client adds its bearer token over https only: the server speaks TLS with a self-signed
 * certificate made at start (openssl), which the test trusts (tls.setDefaultCACertificates). Pages are small
 * (PAGE_SIZE); a test can queue busy answers or make every listing endless.
 */
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import https from "node:https";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { promisify } from "node:util";
import { withBody } from "./whole-request";

const OPENSSL = "/usr/bin/openssl";
const PAGE_SIZE = 2;
const run = promisify(execFile);

interface Item {
  id: string;
  name: string;
  parent: string | null;
  folder: boolean;
  content: Buffer;
  /** Bumped on every change (eTag) and on content changes (cTag). */
  version: number;
  contentVersion: number;
  deleted: boolean;
  readable: boolean;
}

interface GraphRequest {
  method: string;
  url: string;
  status: number;
  authorization: string | undefined;
  body: string;
  at: number;
}

export interface GraphContract {
  origin: string;
  /** The PEM certificate the server presents (trust it to connect). */
  cert: string;
  tenantId: string;
  clientId: string;
  clientSecret: string;
  driveId: string;
  rootId: string;
  /** The app registration's secret is deleted: its token requests are refused (invalid_client). */
  rotateSecret(): string;
  /** Every delta link given so far is answered 410 resyncRequired. */
  expireDeltaLinks(): void;
  folder(name: string, parent?: string): string;
  file(name: string, parent: string, content: Buffer | string): string;
  edit(id: string, content: Buffer | string): void;
  rename(id: string, name: string): void;
  move(id: string, parent: string): void;
  remove(id: string): void;
  unshare(id: string): void;
  requests(): GraphRequest[];
  busy: { status: number; retryAfter: string }[];
  endless: boolean;
  close(): Promise<void>;
}

export function graphContractMissing(): string | null {
  return existsSync(OPENSSL) ? null : "openssl is not installed (it makes the contract server's certificate)";
}

export async function startGraphContract(dir: string): Promise<GraphContract> {
  const keyFile = path.join(dir, "key.pem");
  const certFile = path.join(dir, "cert.pem");
  await run(OPENSSL, [
    "req",
    "-x509",
    "-newkey",
    "ec",
    "-pkeyopt",
    "ec_paramgen_curve:prime256v1",
    "-nodes",
    "-keyout",
    keyFile,
    "-out",
    certFile,
    "-days",
    "2",
    "-subj",
    "/CN=127.0.0.1",
    "-addext",
    "subjectAltName=IP:127.0.0.1",
  ]);
  const cert = await readFile(certFile, "utf8");
  const tenantId = "7f3c1e2a-0d4b-4c55-9a8e-4f1b2c3d4e5f";
  const clientId = "5a6b7c8d-1e2f-4a3b-8c9d-0e1f2a3b4c5d";
  let clientSecret = `cs~${randomBytes(18).toString("base64url")}`;
  const driveId = `b!${randomBytes(24).toString("base64url")}`;
  const items = new Map<string, Item>();
  const changes: string[] = [];
  const tokens = new Set<string>();
  const downloads = new Map<string, string>();
  const log: GraphRequest[] = [];
  const state = { busy: [] as { status: number; retryAfter: string }[], endless: false, generation: 0 };
  const newId = () => `01${randomBytes(15).toString("hex").toUpperCase()}`;
  let origin = "";

  const add = (name: string, parent: string | null, folder: boolean, content: Buffer) => {
    const id = newId();
    items.set(id, { id, name, parent, folder, content, version: 1, contentVersion: 1, deleted: false, readable: true });
    changes.push(id);
    return id;
  };
  const rootId = add("root", null, true, Buffer.alloc(0));
  const pathOf = (i: Item): string => (i.parent ? `${pathOf(items.get(i.parent)!)}/${encodeURIComponent(i.name)}` : "");
  const visible = (i: Item | undefined): i is Item => !!i && !i.deleted && i.readable;
  const resource = (i: Item) => {
    if (i.deleted || !i.readable)
      return { id: i.id, deleted: { state: "deleted" }, parentReference: { driveId, id: i.parent ?? undefined } };
    const base = {
      id: i.id,
      name: i.name,
      eTag: `"{${i.id}},${i.version}"`,
      cTag: `"c:{${i.id}},${i.contentVersion}"`,
      size: i.content.length,
      webUrl: `https://contoso.sharepoint.com/sites/Team/Shared%20Documents${pathOf(i)}`,
      parentReference: i.parent ? { driveId, driveType: "documentLibrary", id: i.parent } : { driveId, driveType: "documentLibrary" },
    };
    if (i.id === rootId) return { ...base, name: "root", root: {}, folder: { childCount: 0 } };
    if (i.folder) return { ...base, folder: { childCount: [...items.values()].filter((c) => c.parent === i.id && visible(c)).length } };
    const ticket = randomBytes(16).toString("base64url");
    downloads.set(ticket, i.id);
    return {
      ...base,
      file: { mimeType: "application/octet-stream" },
      "@microsoft.graph.downloadUrl": `${origin}/download/${i.id}?tempauth=${ticket}`,
    };
  };
  const json = (res: import("node:http").ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify(body));
    return status;
  };
  const error = (
    res: import("node:http").ServerResponse,
    status: number,
    code: string,
    message: string,
    headers: Record<string, string> = {},
  ) =>
    json(
      res,
      status,
      { error: { code, message, innerError: { date: new Date().toISOString(), "request-id": randomBytes(8).toString("hex") } } },
      headers,
    );

  function paged(
    res: import("node:http").ServerResponse,
    all: Item[],
    self: string,
    params: URLSearchParams,
    last: Record<string, string>,
  ) {
    const skip = Number(params.get("$skiptoken") ?? 0);
    const size = Math.min(Number(params.get("$top") ?? 200), PAGE_SIZE);
    if (state.endless) {
      const next = new URL(self);
      next.searchParams.set("$skiptoken", String(skip + 1 + Math.floor(Math.random() * 1e9)));
      return json(res, 200, { value: [], "@odata.nextLink": next.href });
    }
    const page = all.slice(skip, skip + size);
    const body: Record<string, unknown> = { value: page.map(resource) };
    if (skip + size < all.length) {
      const next = new URL(self);
      next.searchParams.set("$skiptoken", String(skip + size));
      body["@odata.nextLink"] = next.href;
    } else Object.assign(body, last);
    return json(res, 200, body);
  }

  function graph(url: URL, res: import("node:http").ServerResponse): number {
    const p = decodeURIComponent(url.pathname);
    const drive = `/v1.0/drives/${driveId}`;
    if (!p.startsWith(`${drive}/`)) return error(res, 404, "itemNotFound", "The resource could not be found.");
    const rest = p.slice(drive.length);
    if (rest === "/root/delta") {
      const token = url.searchParams.get("token");
      // A token is opaque to the client: here the links' generation and a position in the change log.
      const deltaLink = { "@odata.deltaLink": `${origin}${drive}/root/delta?token=${state.generation}-${changes.length}` };
      if (token === "latest") return json(res, 200, { value: [], ...deltaLink });
      const [generation, position] = (token ?? "").split("-").map(Number);
      if (token !== null && generation < state.generation)
        return error(res, 410, "resyncRequired", "Resync required. Replace any local items with the server's version (including deletes).");
      const since = token === null ? null : position;
      const ids = since === null ? [...items.keys()].filter((id) => visible(items.get(id))) : [...new Set(changes.slice(since))];
      const self = new URL(`${origin}${drive}/root/delta`);
      if (token !== null) self.searchParams.set("token", token);
      return paged(
        res,
        ids.map((id) => items.get(id)!),
        self.href,
        url.searchParams,
        deltaLink,
      );
    }
    const child = /^\/items\/(\w+)\/children$/.exec(rest);
    if (child) {
      const parent = items.get(child[1]);
      if (!visible(parent)) return error(res, 404, "itemNotFound", "The resource could not be found.");
      const all = [...items.values()].filter((i) => i.parent === parent.id && visible(i));
      return paged(res, all, `${origin}${drive}/items/${parent.id}/children`, url.searchParams, {});
    }
    let found: Item | undefined;
    if (rest === "/root") found = items.get(rootId);
    else if (rest.startsWith("/root:/")) {
      let at: string | undefined = rootId;
      for (const seg of rest.slice("/root:/".length).replace(/:$/, "").split("/")) {
        const parent: string | undefined = at;
        at = [...items.values()].find((i) => !i.deleted && i.readable && i.parent === parent && i.name === seg)?.id;
      }
      found = at ? items.get(at) : undefined;
    } else found = items.get(/^\/items\/(\w+)$/.exec(rest)?.[1] ?? "");
    if (!visible(found)) return error(res, 404, "itemNotFound", "The resource could not be found.");
    return json(res, 200, resource(found));
  }

  function token(p: string, body: string, res: import("node:http").ServerResponse): number {
    const form = new URLSearchParams(body);
    if (p !== `/${tenantId}/oauth2/v2.0/token`)
      return json(res, 400, { error: "invalid_request", error_description: "AADSTS90002: Tenant not found." });
    if (form.get("grant_type") !== "client_credentials") return json(res, 400, { error: "unsupported_grant_type" });
    if (form.get("client_id") !== clientId)
      return json(res, 400, {
        error: "unauthorized_client",
        error_description: `AADSTS700016: Application with identifier '${form.get("client_id")}' was not found.`,
      });
    if (form.get("client_secret") !== clientSecret)
      return json(res, 401, {
        error: "invalid_client",
        error_description: `AADSTS7000215: Invalid client secret provided. Ensure the secret being sent in the request is the client secret value, not the client secret ID, for a secret added to app '${clientId}'.`,
        error_codes: [7000215],
      });
    if (form.get("scope") !== `${origin}/.default`)
      return json(res, 400, { error: "invalid_scope", error_description: "AADSTS70011: The provided value for scope is not valid." });
    const access = `eyJ0eXAiOiJKV1Qi.${randomBytes(24).toString("base64url")}`;
    tokens.add(access);
    return json(res, 200, { token_type: "Bearer", expires_in: 3599, ext_expires_in: 3599, access_token: access });
  }

  const server = https.createServer(
    { key: await readFile(keyFile), cert },
    withBody((req, res, body) => {
      const url = new URL(req.url ?? "/", origin);
      const entry: GraphRequest = {
        method: req.method ?? "",
        url: req.url ?? "",
        status: 0,
        authorization: req.headers.authorization,
        body,
        at: Date.now(),
      };
      log.push(entry);
      const p = url.pathname;
      if (p === `/${tenantId}/v2.0/.well-known/openid-configuration`) {
        const base = `${origin}/${tenantId}`;
        entry.status = json(res, 200, {
          token_endpoint: `${base}/oauth2/v2.0/token`,
          authorization_endpoint: `${base}/oauth2/v2.0/authorize`,
          end_session_endpoint: `${base}/oauth2/v2.0/logout`,
          jwks_uri: `${origin}/${tenantId}/discovery/v2.0/keys`,
          issuer: `${base}/v2.0`,
          token_endpoint_auth_methods_supported: ["client_secret_post", "private_key_jwt", "client_secret_basic"],
          response_types_supported: ["code", "id_token", "code id_token", "id_token token"],
        });
        return;
      }
      if (req.method === "POST" && p.endsWith("/oauth2/v2.0/token")) {
        entry.status = token(p, body, res);
        return;
      }
      const busy = state.busy.shift();
      if (busy) {
        entry.status = error(res, busy.status, "activityLimitReached", "The request has been throttled", {
          "retry-after": busy.retryAfter,
        });
        return;
      }
      const dl = /^\/download\/(\w+)$/.exec(p);
      if (dl) {
        const item = items.get(dl[1]);
        if (downloads.get(url.searchParams.get("tempauth") ?? "") !== dl[1])
          entry.status = error(res, 401, "unauthenticated", "Invalid tempauth");
        else if (!item || item.deleted) entry.status = error(res, 404, "itemNotFound", "The resource could not be found.");
        else if (!item.readable) entry.status = error(res, 403, "accessDenied", "Access denied");
        else {
          res.writeHead(200, { "content-type": "application/octet-stream" }).end(item.content);
          entry.status = 200;
        }
        return;
      }
      const bearer = /^Bearer (\S+)$/.exec(req.headers.authorization ?? "")?.[1];
      if (!bearer || !tokens.has(bearer)) {
        entry.status = error(
          res,
          401,
          "InvalidAuthenticationToken",
          bearer ? "Access token validation failure." : "Access token is empty.",
        );
        return;
      }
      if (req.method !== "GET") {
        entry.status = error(res, 405, "methodNotAllowed", "Method not allowed");
        return;
      }
      entry.status = graph(url, res);
    }),
  );
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  origin = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const update = (id: string, patch: Partial<Item>, content = false) => {
    const i = items.get(id);
    if (!i) throw new Error(`no item ${id}`);
    Object.assign(i, patch);
    i.version++;
    if (content) i.contentVersion++;
    changes.push(id);
  };
  return {
    origin,
    cert,
    tenantId,
    clientId,
    get clientSecret() {
      return clientSecret;
    },
    driveId,
    rootId,
    get busy() {
      return state.busy;
    },
    set busy(v) {
      state.busy = v;
    },
    get endless() {
      return state.endless;
    },
    set endless(v) {
      state.endless = v;
    },
    rotateSecret() {
      clientSecret = `cs~${randomBytes(18).toString("base64url")}`;
      tokens.clear();
      return clientSecret;
    },
    expireDeltaLinks() {
      state.generation++;
    },
    folder: (name, parent) => add(name, parent ?? rootId, true, Buffer.alloc(0)),
    file: (name, parent, content) => add(name, parent, false, Buffer.from(content)),
    edit: (id, content) => update(id, { content: Buffer.from(content) }, true),
    rename: (id, name) => update(id, { name }),
    move: (id, parent) => update(id, { parent }),
    remove: (id) => update(id, { deleted: true }),
    unshare: (id) => update(id, { readable: false }),
    requests: () => [...log],
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
