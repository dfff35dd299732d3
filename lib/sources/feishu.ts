/**
 * Feishu / Lark (open platform APIs: auth v3, wiki v2, docx v1, drive v1), through the official SDK
 * (@larksuiteoapi/node-sdk): the docx documents of chosen wiki spaces (every node, walked from the root) and drive
 * folders (walked down), each one document, its blocks as Markdown (./feishu-blocks.ts: headings and tables kept);
 * the "Original" is the URL the listing gives (…/wiki/<node> or …/docx/<token>). The credential is a custom app's
 * app id and secret, exchanged for a tenant access token at each sync (its own token cache: a revoked secret shows
 * at once; a token refused mid-sync, code 99991663, is fetched again once).
 *
 * Change feed: every sync lists the spaces and folders, asks each docx for its revision id (documents/:id, one
 * small request) and fetches the blocks only of a document whose revision or title changed; the rest are kept.
 * What the listing no longer holds is removed; a document the app may no longer read (forbidden) or that is gone
 * (not found) loses its document and is noted. Listings are bounded (SOURCE_MAX_LIST_PAGES pages each, a repeated
 * page token is an error), so one that never ends fails the sync, removing nothing. Every request goes through
 * ./sdk-fetch.ts (public-address rule, size cap, 429/503 waited out as Retry-After or x-ogw-ratelimit-reset says);
 * the SDK's logger is silenced, as it would log the token request's body (the app secret) on an error.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { Client, defaultHttpInstance } from "@larksuiteoapi/node-sdk";
import { sourceLimits } from "@/lib/config";
import type { Connector } from "./engine";
import { blocksToMarkdown, type DocxBlock } from "./feishu-blocks";
import type { SourceConfig } from "./schema";
import { sdkFetch } from "./sdk-fetch";

type FeishuConfig = Extract<SourceConfig, { kind: "feishu" }>;

const FEISHU_ORIGINS = { feishu: "https://open.feishu.cn", lark: "https://open.larksuite.com" } as const;
/** The API base a source calls: its override (a proxy), else its service's. */
export const feishuApiBase = (c: Pick<FeishuConfig, "domain" | "apiUrl">) =>
  c.apiUrl ? new URL(c.apiUrl).origin : FEISHU_ORIGINS[c.domain];

const PAGE_SIZE = 50;
const BLOCK_PAGE_SIZE = 500;
const MAX_ANSWER_BYTES = 16 * 1024 * 1024;
const MAX_FOLDER_DEPTH = 20;
/** A document's blocks, as JSON, may be this many times SOURCE_MAX_BYTES (its Markdown, SOURCE_MAX_BYTES). */
const BLOCK_BYTES_PER_BYTE = 4;
/** Codes of an answer that means "the token is no longer valid" (expired, revoked): fetched anew once. */
const TOKEN_INVALID = new Set([99991663, 99991661, 99991668]);
/** The app may not read this item (docx 1770032, wiki 131006, drive 1061004, 1062501) / it is gone (docx 1770002, wiki 131005, drive 1061007, 1062507). */
const FORBIDDEN = new Set([1770032, 131006, 1061004, 1062501]);
const NOT_FOUND = new Set([1770002, 131005, 1061007, 1062507]);
/** The app id or secret was refused when the token was asked for. */
const CREDENTIAL_REFUSED = new Set([10003, 10014, 99991543]);

const silent = { error() {}, warn() {}, info() {}, debug() {}, trace() {} };

/** The API's rate-limit code: the gateway answers it with a 429 (waited out in ./http.ts), some APIs with a 400. */
const RATE_LIMITED = 99991400;
const MAX_RATE_RETRIES = 3;
const MAX_RATE_WAIT_MS = 60_000;

/** What an SDK call failed with: the HTTP status, the API's code and message, and the rate window's reset (ms). */
function apiErrorOf(err: unknown): { status: number | null; code: number | null; msg: string; resetMs: number | null } {
  const e = err as {
    response?: { status?: number; data?: { code?: number; msg?: string }; headers?: Record<string, unknown> };
    message?: string;
  };
  const reset = String(e?.response?.headers?.["x-ogw-ratelimit-reset"] ?? "");
  const data = e?.response?.data;
  const code = typeof data?.code === "number" ? data.code : Number(/"code":\s*(\d+)/.exec(String(e?.message))?.[1] ?? Number.NaN);
  return {
    status: e?.response?.status ?? null,
    code: Number.isFinite(code) ? code : null,
    msg: String(data?.msg ?? e?.message ?? err).slice(0, 200),
    resetMs: /^\d+(\.\d+)?$/.test(reset) ? Math.ceil(Number(reset) * 1000) : null,
  };
}

class ItemUnreadable extends Error {}

interface Answer<T> {
  code?: number;
  msg?: string;
  data?: T;
}

export const feishuConnector: Connector = async (ctx) => {
  const config = ctx.source.config as FeishuConfig;
  const secret = ctx.secrets.password;
  if (!secret) throw new Error("this source has no app secret");
  const base = feishuApiBase(config);
  const { maxListPages, maxItems } = sourceLimits();
  let requests = 0;
  const fetch = sdkFetch(ctx, { origins: [base], maxBytes: Math.max(ctx.maxBytes, MAX_ANSWER_BYTES), onRequest: () => requests++ });
  const http = defaultHttpInstance.create({ adapter: "fetch", env: { fetch } });
  // The SDK hands an empty body to GETs, which a fetch Request refuses.
  http.interceptors.request.use((req) => {
    if (/^(get|head)$/i.test(req.method ?? "get")) req.data = undefined;
    return req;
  });
  http.interceptors.response.use((res) =>
    (res.config as { $return_headers?: boolean }).$return_headers ? { data: res.data, headers: res.headers } : res.data,
  );
  const cache = new Map<unknown, unknown>();
  const client = new Client({
    appId: config.appId,
    appSecret: secret,
    domain: base,
    // Its answers are the bodies (the interceptor above), as the SDK's own instance gives them.
    httpInstance: http as unknown as ConstructorParameters<typeof Client>[0]["httpInstance"],
    logger: silent,
    cache: {
      async get(key, options) {
        return cache.get(`${options?.namespace}/${String(key)}`);
      },
      async set(key, value, _expire, options) {
        cache.set(`${options?.namespace}/${String(key)}`, value);
        return true;
      },
    },
  });

  /**
   * One API call: a refused token fetched anew once; a 400 rate limit waited out as its x-ogw-ratelimit-reset says
   * (MAX_RATE_RETRIES times at most, none past a minute); the credential refused, an error that says so.
   */
  async function call<T>(what: string, fn: () => Promise<Answer<T>>): Promise<T> {
    let renewed = false;
    for (let attempt = 0; ; attempt++) {
      ctx.signal.throwIfAborted();
      let answer: Answer<T>;
      try {
        answer = await fn();
      } catch (err) {
        ctx.signal.throwIfAborted();
        const { status, code, msg, resetMs } = apiErrorOf(err);
        if (code !== null && TOKEN_INVALID.has(code) && !renewed) {
          renewed = true;
          cache.clear();
          continue;
        }
        const wait = resetMs ?? 1000;
        if (code === RATE_LIMITED && status !== 429 && attempt < MAX_RATE_RETRIES && wait <= MAX_RATE_WAIT_MS) {
          await sleep(wait, undefined, { signal: ctx.signal });
          continue;
        }
        throw explain(what, status, code, msg);
      }
      if (answer?.code && answer.code !== 0) {
        if (TOKEN_INVALID.has(answer.code) && !renewed) {
          renewed = true;
          cache.clear();
          continue;
        }
        throw explain(what, null, answer.code, String(answer.msg ?? ""));
      }
      return (answer?.data ?? {}) as T;
    }
  }

  function explain(what: string, status: number | null, code: number | null, msg: string): Error {
    if ((code !== null && CREDENTIAL_REFUSED.has(code)) || /tenant_access_token/.test(msg))
      return new Error(
        `Feishu/Lark refused the app's credential (code ${code ?? "none"}: ${msg.replace(/\s+/g, " ").slice(0, 120)}): the app secret was reset, or the app id is wrong; enter it again`,
      );
    if (code !== null && TOKEN_INVALID.has(code))
      return new Error(`Feishu/Lark refused the app's access token twice (code ${code}) for ${what}; check the app's credential`);
    if (code !== null && (FORBIDDEN.has(code) || NOT_FOUND.has(code)))
      return new ItemUnreadable(`${FORBIDDEN.has(code) ? "no longer readable by this app" : "not found"} (code ${code})`);
    if (status === 403 || status === 404) return new ItemUnreadable(`HTTP ${status}: no longer readable by this app`);
    const retried = code === RATE_LIMITED || status === 429 ? " (still rate-limited after the retries)" : "";
    return new Error(
      `Feishu/Lark answered ${status ? `HTTP ${status}` : "an error"}${code !== null ? ` code ${code}` : ""} to ${what}${retried}: ${msg}`,
    );
  }

  /**
   * Every item of a paged listing (no page token repeated), its pages counted in `budget`: one document's blocks have a
   * budget of their own, while the walk of the spaces and folders shares one (`walk`), so a tree whose every node has
   * children of its own stops at SOURCE_MAX_LIST_PAGES listings in all.
   */
  async function* paged<T>(
    what: string,
    page: (token: string | undefined) => Promise<{ items: T[]; next?: string; more?: boolean }>,
    budget: { pages: number } = { pages: 0 },
  ) {
    const seen = new Set<string>();
    let token: string | undefined;
    for (let n = 0; ; n++) {
      if (budget.pages++ >= maxListPages)
        throw new Error(`the Feishu/Lark listing of ${what} did not end after ${maxListPages} pages (SOURCE_MAX_LIST_PAGES)`);
      const { items, next, more } = await page(token);
      yield* items;
      if (!more || !next) return;
      if (seen.has(next))
        throw new Error(`the Feishu/Lark listing of ${what} repeats a page token after ${n + 1} pages: it would never end`);
      seen.add(next);
      token = next;
    }
  }

  const walk = { pages: 0 };
  const unreadable: string[] = [];
  let unreadableCount = 0;
  let listed = 0;
  let fetched = 0;

  /** One docx: kept when its revision and title are those indexed, else its blocks fetched and indexed. */
  async function take(token: string, title: string, url: string) {
    const key = `docx:${token}`;
    if (ctx.seen(key)) return;
    listed++;
    try {
      const { document } = await call("a document", () => client.docx.v1.document.get({ path: { document_id: token } }));
      const version = JSON.stringify({ rev: document?.revision_id ?? null, title });
      const was = ctx.previous.get(key);
      if (was?.documentId && was.version === version) {
        ctx.keep(key, was.url === url ? undefined : { url });
        return;
      }
      const blocks: DocxBlock[] = [];
      // What a document's blocks may hold before they are rendered: the JSON of blocks runs a few times the Markdown
      // made of them, and a server that sends blocks forever stops here, not after SOURCE_MAX_LIST_PAGES pages of them.
      let held = 0;
      for await (const b of paged(`the blocks of ${token}`, async (page_token) => {
        const data = await call("a document's blocks", () =>
          client.docx.v1.documentBlock.list({
            path: { document_id: token },
            params: { page_size: BLOCK_PAGE_SIZE, page_token, document_revision_id: -1 },
          }),
        );
        return { items: (data.items ?? []) as DocxBlock[], next: data.page_token, more: data.has_more };
      })) {
        held += JSON.stringify(b).length;
        if (held > BLOCK_BYTES_PER_BYTE * ctx.maxBytes) {
          ctx.fail(key, `its blocks are larger than ${BLOCK_BYTES_PER_BYTE} × the limit of ${ctx.maxBytes} bytes (SOURCE_MAX_BYTES)`);
          return;
        }
        blocks.push(b);
      }
      fetched++;
      const markdown = Buffer.from(blocksToMarkdown(title || document?.title || token, blocks), "utf8");
      if (markdown.length > ctx.maxBytes) {
        ctx.fail(key, `larger than the limit of ${ctx.maxBytes} bytes (SOURCE_MAX_BYTES)`);
        return;
      }
      const name = `${
        (title || token)
          .replace(/[\\/:*?"<>|\s]+/g, " ")
          .trim()
          .slice(0, 120) || token
      }.md`;
      await ctx.ingest({ key, url, name, data: markdown, version });
    } catch (err) {
      ctx.signal.throwIfAborted();
      if (!(err instanceof ItemUnreadable)) throw err;
      // Gone or forbidden: not marked as seen, so its document goes at the end of the walk.
      unreadableCount++;
      if (unreadable.length < 20) unreadable.push(`${title || token} (${err.message})`);
    }
  }

  for (const space of config.spaces) {
    // Breadth first from the space's root; a node with children is listed under its token.
    const parents: (string | undefined)[] = [undefined];
    const visited = new Set<string>();
    while (parents.length) {
      const parent = parents.shift();
      for await (const node of paged(
        `wiki space ${space}`,
        async (page_token) => {
          const data = await call(`wiki space ${space}`, () =>
            client.wiki.v2.spaceNode.list({
              path: { space_id: space },
              params: { page_size: PAGE_SIZE, page_token, parent_node_token: parent },
            }),
          );
          return { items: data.items ?? [], next: data.page_token, more: data.has_more };
        },
        walk,
      )) {
        if (!node.node_token || visited.has(node.node_token)) continue;
        visited.add(node.node_token);
        if (visited.size > maxItems)
          throw new Error(`the Feishu/Lark wiki space ${space} holds more than ${maxItems} nodes (SOURCE_MAX_ITEMS): nothing was removed`);
        if (node.has_child) parents.push(node.node_token);
        if (node.obj_type === "docx" && node.node_type !== "shortcut" && node.obj_token)
          await take(node.obj_token, node.title ?? "", node.url || `${base}/wiki/${node.node_token}`);
        else ctx.skip(`wiki:${node.node_token}`);
      }
    }
  }

  for (const root of config.folders) {
    const folders: { token: string; depth: number }[] = [{ token: root, depth: 0 }];
    const visited = new Set<string>([root]);
    while (folders.length) {
      const folder = folders.shift()!;
      for await (const file of paged(
        `drive folder ${folder.token}`,
        async (page_token) => {
          const data = await call(`drive folder ${folder.token}`, () =>
            client.drive.v1.file.list({ params: { page_size: PAGE_SIZE, page_token, folder_token: folder.token } }),
          );
          return { items: data.files ?? [], next: data.next_page_token, more: data.has_more };
        },
        walk,
      )) {
        if (file.type === "folder") {
          if (folder.depth < MAX_FOLDER_DEPTH && !visited.has(file.token)) {
            visited.add(file.token);
            if (visited.size > maxItems)
              throw new Error(
                `the Feishu/Lark drive folder ${root} holds more than ${maxItems} folders (SOURCE_MAX_ITEMS): nothing was removed`,
              );
            folders.push({ token: file.token, depth: folder.depth + 1 });
          }
        } else if (file.type === "docx") await take(file.token, file.name, file.url || `${base}/docx/${file.token}`);
        else ctx.skip(`drive:${file.token}`);
      }
    }
  }

  const notes = unreadableCount ? `; ${unreadableCount} not readable: ${unreadable.join(", ")}` : "";
  return { note: `${listed} documents listed, ${fetched} fetched (${requests} requests)${notes}` };
};
