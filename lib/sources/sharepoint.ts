/**
 * SharePoint document libraries and OneDrive (Microsoft Graph v1.0, through @microsoft/microsoft-graph-client): the
 * files of a drive, or of one folder in it, read by an app registration (tenant id, client id, client secret;
 * application permission Files.Read.All or Sites.Read.All, admin-consented). The token is the client-credentials
 * grant through @azure/msal-node, its authority the configured sign-in host (national clouds: login.microsoftonline.us,
 * login.chinacloudapi.cn); the change feed is the drive's `delta` with the saved @odata.deltaLink (Graph answers delta
 * for a folder other than the root only on OneDrive personal, so the root's feed is read and what lies outside the
 * folder is left out: ./drive-sync.ts). A file's Original is its webUrl.
 *
 * Every request goes through ./sdk-fetch.ts: MSAL's through its network module (system.networkClient), Graph's through
 * the client's last middleware. A file's bytes come from its @microsoft.graph.downloadUrl, pre-authenticated on
 * Microsoft's file host: requested without the bearer token, as Graph's reference says, the public-address rule
 * still applying. MSAL and the Graph client take only https addresses.
 */
import { ConfidentialClientApplication, type INetworkModule, type NetworkRequestOptions, type NetworkResponse } from "@azure/msal-node";
import { AuthenticationHandler, Client, type Context, type Middleware } from "@microsoft/microsoft-graph-client";
import { CursorExpired, type DriveApi, type DriveItem, type DrivePage, syncDrive } from "./drive-sync";
import type { Connector, SyncContext } from "./engine";
import type { SourceConfig } from "./schema";
import { sdkFetch } from "./sdk-fetch";
import { CredentialRefused, ItemGone } from "./tree";

type SharepointConfig = Extract<SourceConfig, { kind: "sharepoint" }>;

const PAGE_SIZE = 200;

interface GraphItem {
  id: string;
  name?: string;
  parentReference?: { id?: string };
  file?: object;
  folder?: object;
  root?: object;
  deleted?: object;
  size?: number;
  webUrl?: string;
  cTag?: string;
  eTag?: string;
  "@microsoft.graph.downloadUrl"?: string;
}

interface GraphPage {
  value?: GraphItem[];
  "@odata.nextLink"?: string;
  "@odata.deltaLink"?: string;
}

/** What a refused token request means (MSAL's ServerError: errorCode, errorMessage with the AADSTS code). */
function tokenRefused(err: unknown): Error {
  const e = err as { errorCode?: string; errorMessage?: string; message?: string };
  // MSAL words a service's refusal "Error(s): 7000215 - Timestamp: … - Description: AADSTS7000215: … - Trace ID: …".
  const message = String(e.errorMessage ?? e.message ?? "");
  const description = /Description: (.*?)(?: - Trace ID:|$)/s.exec(message)?.[1] ?? message;
  const why = `${e.errorCode ?? "error"}: ${description.split(/\r?\n/)[0]}`.slice(0, 240);
  if (/invalid_client|unauthorized_client|invalid_grant|AADSTS7000215|AADSTS7000222|AADSTS700016/.test(`${e.errorCode} ${e.errorMessage}`))
    return new CredentialRefused(
      `Microsoft Entra ID refused the app registration's credential (${why}): the client secret was deleted, expired or changed, or the app removed; enter it again`,
    );
  return new Error(`Microsoft Entra ID did not give a token (${why})`);
}

/** What a failed Graph request means. */
function graphRefused(err: unknown, what: string): Error {
  if (err instanceof CredentialRefused) return err;
  const e = err as { statusCode?: number; code?: string; message?: string };
  if (e.statusCode === 401)
    return new CredentialRefused(
      `Microsoft Graph refused the app's token (HTTP 401 ${e.code ?? ""}): its credential was revoked; enter it again`,
    );
  if (e.statusCode === 403 || e.statusCode === 404)
    return new ItemGone(`HTTP ${e.statusCode}: ${what} is no longer readable with this app`);
  if (e.statusCode === 410) return new CursorExpired(`the saved delta link expired (HTTP 410 ${e.code ?? ""})`);
  return new Error(
    `Microsoft Graph answered ${e.statusCode ? `HTTP ${e.statusCode}` : "an error"} to ${what}: ${String(e.message ?? "").slice(0, 200)}`,
  );
}

function sharepointApi(ctx: SyncContext): DriveApi {
  const config = ctx.source.config as SharepointConfig;
  const clientSecret = ctx.secrets.clientSecret;
  if (!clientSecret) throw new Error("this source has no client secret");
  const api = new URL(config.apiUrl);
  const login = new URL(config.loginUrl);
  const loginFetch = sdkFetch(ctx, { origins: [login.origin] });
  const graphFetch = sdkFetch(ctx, { origins: [api.origin] });

  const send = async <T>(url: string, method: string, options?: NetworkRequestOptions): Promise<NetworkResponse<T>> => {
    const res = await loginFetch(url, { method, headers: options?.headers, body: options?.body });
    const text = await res.text();
    let body: unknown = {};
    try {
      body = JSON.parse(text);
    } catch {
      body = {};
    }
    return { status: res.status, headers: Object.fromEntries(res.headers), body: body as T };
  };
  const networkClient: INetworkModule = {
    sendGetRequestAsync: (url, options) => send(url, "GET", options),
    sendPostRequestAsync: (url, options) => send(url, "POST", options),
  };
  const msal = new ConfidentialClientApplication({
    auth: {
      clientId: config.clientId,
      clientSecret,
      authority: `${login.origin}/${config.tenantId}`,
      knownAuthorities: [login.host],
    },
    system: { networkClient },
  });
  /** Why no token was given: the Graph client rewraps what its auth provider throws, so it is kept here. */
  let noToken: Error | null = null;
  const accessToken = async () => {
    let result: Awaited<ReturnType<typeof msal.acquireTokenByClientCredential>>;
    try {
      result = await msal.acquireTokenByClientCredential({ scopes: [`${api.origin}/.default`] });
    } catch (err) {
      ctx.signal.throwIfAborted();
      noToken = tokenRefused(err);
      throw noToken;
    }
    if (!result?.accessToken) throw new Error("Microsoft Entra ID answered without an access token");
    return result.accessToken;
  };
  // The Graph client's last middleware: its requests go through sdkFetch.
  const viaSdkFetch: Middleware = {
    async execute(context: Context) {
      context.response = await graphFetch(context.request as string, context.options as RequestInit);
    },
  };
  const client = Client.initWithMiddleware({
    baseUrl: api.origin,
    customHosts: new Set([api.hostname]),
    middleware: [new AuthenticationHandler({ getAccessToken: accessToken }), viaSdkFetch],
  });
  const drive = `/drives/${encodeURIComponent(config.driveId)}`;
  const downloads = new Map<string, string>();

  const get = async (path: string, what: string): Promise<GraphPage & GraphItem> => {
    // A link the service gave (next page, delta) must stay on its origin: the bearer token goes nowhere else.
    if (/^https?:/i.test(path) && new URL(path).origin !== api.origin) throw new Error(`Microsoft Graph pointed ${what} at another host`);
    try {
      return await client.api(path).get();
    } catch (err) {
      ctx.signal.throwIfAborted();
      throw noToken ?? graphRefused(err, what);
    }
  };
  const itemOf = (g: GraphItem): DriveItem => {
    const dl = g["@microsoft.graph.downloadUrl"];
    if (dl) downloads.set(g.id, dl);
    const folder = !!g.folder || !!g.root;
    return {
      id: g.id,
      name: folder || g.file ? (g.name ?? null) : null,
      parents: g.parentReference?.id ? [g.parentReference.id] : [],
      folder,
      removed: !!g.deleted,
      version: g.cTag ?? g.eTag ?? null,
      size: typeof g.size === "number" ? g.size : null,
      url: g.webUrl ?? "",
      type: null,
    };
  };
  const pageOf = (r: GraphPage): DrivePage => ({
    items: (r.value ?? []).map(itemOf),
    next: r["@odata.nextLink"] ?? null,
    cursor: r["@odata.deltaLink"] ?? null,
  });

  return {
    async roots() {
      const path = config.folder ? `${drive}/root:/${config.folder.split("/").map(encodeURIComponent).join("/")}` : `${drive}/root`;
      const root = await get(path, `the folder "${config.folder || "/"}"`).catch((err) => {
        if (err instanceof ItemGone)
          throw new Error(`the folder "${config.folder || "/"}" is not in the drive ${config.driveId}, or not readable`);
        throw err;
      });
      return [root.id];
    },
    async cursor() {
      const r = await get(`${drive}/root/delta?token=latest`, "the delta feed's start");
      if (!r["@odata.deltaLink"]) throw new Error("Microsoft Graph gave no delta link for the drive");
      return r["@odata.deltaLink"];
    },
    async children(folderId, page) {
      return pageOf(await get(page ?? `${drive}/items/${encodeURIComponent(folderId)}/children?$top=${PAGE_SIZE}`, "a folder listing"));
    },
    async changes(link) {
      return pageOf(await get(link, "the delta feed"));
    },
    async fetch(item) {
      let url = downloads.get(item.id);
      url ??= (await get(`${drive}/items/${encodeURIComponent(item.id)}?$select=id,@microsoft.graph.downloadUrl`, `the file ${item.name}`))[
        "@microsoft.graph.downloadUrl"
      ];
      if (!url) throw new Error(`Microsoft Graph gave no download link for ${item.name}`);
      const res = await sdkFetch(ctx, { origins: [new URL(url).origin] })(url);
      if (res.status === 403 || res.status === 404 || res.status === 410)
        throw new ItemGone(`HTTP ${res.status}: the file ${item.name} is no longer readable with this app`);
      if (res.status !== 200) throw new Error(`the download of ${item.name} answered HTTP ${res.status}`);
      return new Uint8Array(await res.arrayBuffer());
    },
  };
}

export const sharepointConnector: Connector = (ctx) => syncDrive(ctx, sharepointApi(ctx), "SharePoint");
