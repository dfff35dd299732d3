/**
 * A contract server for the Feishu / Lark source: the parts of the open platform's server API that source calls,
 * answered as the public API reference describes them (the live service cannot be reached from here):
 *
 * - tenant_access_token (self-built app): https://open.feishu.cn/document/server-docs/authentication-management/access-token/tenant_access_token_internal
 *   (POST /open-apis/auth/v3/tenant_access_token/internal {app_id, app_secret} → {code: 0, tenant_access_token, expire})
 * - common error codes (99991661 missing token, 99991663 invalid token, 99991400 rate limit; 10014 app secret invalid):
 *   https://open.feishu.cn/document/server-docs/getting-started/server-error-codes
 * - rate limits (HTTP 429, some older endpoints 400, code 99991400, x-ogw-ratelimit-limit / x-ogw-ratelimit-reset
 *   headers: seconds until the window resets):
 *   https://open.feishu.cn/document/server-docs/api-call-guide/frequency-control
 * - wiki v2 child nodes (page_size, page_token, parent_node_token; items[], page_token, has_more; 131005/131006):
 *   https://open.feishu.cn/document/server-docs/docs/wiki-v2/space-node/list
 *   (api explorer: https://open.feishu.cn/api-explorer?project=wiki&resource=space.node&apiName=list&version=v2)
 * - docx v1 document (document.revision_id, title) and all its blocks (paged; block_type 1 page, 2 text, 3–11
 *   heading1–9, 12 bullet, 13 ordered, 14 code, 27 image with caption, 31 table with cells, 32 table_cell; 1770002
 *   not found, 1770032 forbidden): https://open.feishu.cn/document/server-docs/docs/docs/docx-v1/document/get ,
 *   https://open.feishu.cn/document/server-docs/docs/docs/docx-v1/document-block/list ,
 *   https://open.feishu.cn/document/ukTMukTMukTM/uUDN04SN0QjL1QDN/document-docx/docx-v1/data-structure/block
 * - drive v1 files of a folder (folder_token, page_token; files[], next_page_token, has_more):
 *   https://open.feishu.cn/document/server-docs/docs/drive-v1/folder/list
 * The field names and types were checked against the official Node SDK's types (@larksuiteoapi/node-sdk 1.74.0),
 * which are generated from the same reference. Every request is recorded (method, path with query, Authorization
 * header, body) for the tests to read.
 */
import { once } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { withBody } from "./whole-request";

interface Block {
  block_id: string;
  parent_id: string;
  children?: string[];
  block_type: number;
  [field: string]: unknown;
}

/** A document's content as a test writes it; turned into docx blocks. */
export type Part =
  | { h: 1 | 2 | 3; text: string }
  | { p: string }
  | { bullets: (string | string[])[] }
  | { code: string }
  | { image: string }
  | { table: string[][] };

interface Doc {
  token: string;
  title: string;
  revision: number;
  blocks: Block[];
  forbidden: boolean;
}

interface Node {
  space: string;
  node_token: string;
  obj_token: string;
  obj_type: "docx" | "sheet";
  parent: string;
  title: string;
}

interface DriveFile {
  folder: string;
  token: string;
  name: string;
  type: "docx" | "folder" | "sheet";
}

interface Recorded {
  method: string;
  url: string;
  authorization: string | undefined;
  body: string;
}

export interface FeishuContract {
  origin: string;
  /** The tenant's web address the url fields point to. */
  tenant: string;
  appId: string;
  appSecret: string;
  requests: Recorded[];
  /** A docx in a wiki space (under `parent`, default the root); returns its node token. */
  wikiDoc(space: string, token: string, title: string, parts: Part[], parent?: string): string;
  /** A node that is no docx (a sheet): listed, skipped. */
  wikiSheet(space: string, nodeToken: string, title: string): void;
  driveDoc(folder: string, token: string, title: string, parts: Part[]): void;
  driveFolder(parent: string, token: string, name: string): void;
  edit(token: string, parts: Part[]): void;
  rename(token: string, title: string): void;
  /** Moves a wiki node under another parent (its tokens stay). */
  move(nodeToken: string, parent: string): void;
  remove(token: string): void;
  forbid(token: string): void;
  /** The app secret is reset: token requests with the old one fail, and issued tokens stop working. */
  resetSecret(): void;
  /** The next `count` API requests (not the token's) answer 429 (or `status`: some APIs answer 400) with code 99991400 and these headers. */
  throttle(count: number, headers: Record<string, string>, status?: number): void;
  /** Tokens issued from now on stop working after `uses` API requests (as an expired one does); null: no limit. */
  tokenLifetime(uses: number | null): void;
  /** The nodes of this space page on forever (a new page token each time). */
  endless(space: string): void;
  /** Every listing of this space's nodes is one whole page of new nodes, each with children of its own: a tree that never ends. */
  endlessTree(space: string): void;
  close(): Promise<void>;
}

const err = (res: http.ServerResponse, status: number, code: number, msg: string, headers: Record<string, string> = {}) =>
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", ...headers }).end(JSON.stringify({ code, msg }));
const ok = (res: http.ServerResponse, data: unknown) =>
  res.writeHead(200, { "content-type": "application/json; charset=utf-8" }).end(JSON.stringify({ code: 0, msg: "success", data }));

const run = (text: string) => ({ elements: [{ text_run: { content: text, text_element_style: {} } }], style: {} });

/** Parts as the docx block tree: a page block whose children are the parts, tables with their cells. */
function toBlocks(token: string, title: string, parts: Part[]): Block[] {
  let n = 0;
  const id = () => `${token}b${++n}`;
  const page: Block = { block_id: token, parent_id: "", block_type: 1, page: run(title), children: [] };
  const blocks: Block[] = [page];
  const add = (parent: Block, b: Omit<Block, "block_id" | "parent_id">) => {
    const block = { block_id: id(), parent_id: parent.block_id, ...b } as Block;
    parent.children = [...(parent.children ?? []), block.block_id];
    blocks.push(block);
    return block;
  };
  for (const part of parts) {
    if ("h" in part) add(page, { block_type: 2 + part.h, [`heading${part.h}`]: run(part.text) });
    else if ("p" in part) add(page, { block_type: 2, text: run(part.p) });
    else if ("code" in part) add(page, { block_type: 14, code: { ...run(part.code), style: { language: 1 } } });
    else if ("image" in part)
      add(page, { block_type: 27, image: { token: `img${n}`, width: 100, height: 80, caption: { content: part.image } } });
    else if ("bullets" in part) {
      let last: Block | null = null;
      for (const item of part.bullets) {
        if (typeof item === "string") last = add(page, { block_type: 12, bullet: run(item) });
        else if (last) for (const sub of item) add(last, { block_type: 12, bullet: run(sub) });
      }
    } else if ("table" in part) {
      const table = add(page, {
        block_type: 31,
        table: { cells: [], property: { row_size: part.table.length, column_size: part.table[0].length, header_row: true } },
      });
      const cells: string[] = [];
      for (const row of part.table)
        for (const text of row) {
          const cell = add(table, { block_type: 32, table_cell: {} });
          add(cell, { block_type: 2, text: run(text) });
          cells.push(cell.block_id);
        }
      (table.table as { cells: string[] }).cells = cells;
    }
  }
  return blocks;
}

export async function startFeishuContract(opts: { pageSize?: number; tenant?: string } = {}): Promise<FeishuContract> {
  const maxPage = opts.pageSize ?? 2;
  const tenant = opts.tenant ?? "https://kb-test.feishu.cn";
  const appId = "cli_a1b2c3d4e5f6";
  let appSecret = "feishu-app-SECRET-0123456789";
  /** Each valid token with the API requests it may still make. */
  const tokens = new Map<string, number>();
  let lifetime: number | null = null;
  const docs = new Map<string, Doc>();
  const nodes: Node[] = [];
  const files: DriveFile[] = [];
  const requests: Recorded[] = [];
  const endlessSpaces = new Set<string>();
  const endlessTrees = new Set<string>();
  let throttled: { count: number; headers: Record<string, string>; status: number } = { count: 0, headers: {}, status: 429 };

  /** One page of `items` from `token` (an offset), at most min(page_size, the server's page size). */
  const page = <T>(items: T[], url: URL) => {
    const size = Math.max(1, Math.min(Number(url.searchParams.get("page_size") || maxPage), maxPage));
    const from = Number(url.searchParams.get("page_token")?.replace(/^p/, "") || 0);
    const slice = items.slice(from, from + size);
    const more = from + size < items.length;
    return { slice, more, next: more ? `p${from + size}` : undefined };
  };

  const server = http.createServer(
    withBody((req, res, body) => {
      const url = new URL(req.url ?? "/", "http://x");
      requests.push({ method: req.method ?? "", url: req.url ?? "", authorization: req.headers.authorization, body });
      if (req.method === "POST" && url.pathname === "/open-apis/auth/v3/tenant_access_token/internal") {
        let given: { app_id?: string; app_secret?: string } = {};
        try {
          given = JSON.parse(body);
        } catch {
          return err(res, 400, 9499, "Bad Request");
        }
        if (given.app_id !== appId) return err(res, 400, 10003, "invalid param");
        if (given.app_secret !== appSecret) return err(res, 400, 10014, "app secret invalid");
        const token = `t-${Math.random().toString(36).slice(2)}`;
        tokens.set(token, lifetime ?? Number.POSITIVE_INFINITY);
        return res
          .writeHead(200, { "content-type": "application/json" })
          .end(JSON.stringify({ code: 0, msg: "ok", tenant_access_token: token, expire: 7200 }));
      }
      const bearer = /^Bearer (\S+)$/.exec(req.headers.authorization ?? "")?.[1];
      if (!bearer) return err(res, 400, 99991661, "Missing access token for authorization. Please make a request with token attached.");
      const uses = tokens.get(bearer) ?? 0;
      if (uses <= 0) return err(res, 400, 99991663, "Invalid access token for authorization. Please make a request with token attached.");
      tokens.set(bearer, uses - 1);
      if (throttled.count > 0) {
        throttled.count--;
        return err(res, throttled.status, 99991400, "request trigger frequency limit", throttled.headers);
      }
      let m = /^\/open-apis\/wiki\/v2\/spaces\/([^/]+)\/nodes$/.exec(url.pathname);
      if (m && req.method === "GET") {
        const space = decodeURIComponent(m[1]);
        if (endlessTrees.has(space)) {
          const n = requests.length;
          const size = Math.max(1, Math.min(Number(url.searchParams.get("page_size") || maxPage), maxPage));
          const items = Array.from({ length: size }, (_, i) => ({
            space_id: space,
            node_token: `wikn${n}x${i}`,
            obj_token: `sht${n}x${i}`,
            obj_type: "sheet",
            parent_node_token: url.searchParams.get("parent_node_token") ?? "",
            node_type: "origin",
            has_child: true,
            title: `Branch ${n}.${i}`,
          }));
          return ok(res, { items, has_more: false });
        }
        if (endlessSpaces.has(space)) {
          const n = Number(url.searchParams.get("page_token")?.replace(/^e/, "") || 0);
          return ok(res, { items: [], page_token: `e${n + 1}`, has_more: true });
        }
        const parent = url.searchParams.get("parent_node_token") ?? "";
        const here = nodes.filter((x) => x.space === space && x.parent === parent);
        if (!nodes.some((x) => x.space === space)) return err(res, 400, 131005, "not found");
        const { slice, more, next } = page(here, url);
        return ok(res, {
          items: slice.map((x) => ({
            space_id: x.space,
            node_token: x.node_token,
            obj_token: x.obj_token,
            obj_type: x.obj_type,
            parent_node_token: x.parent,
            node_type: "origin",
            has_child: nodes.some((c) => c.parent === x.node_token),
            title: x.title,
            url: `${tenant}/wiki/${x.node_token}`,
          })),
          page_token: next,
          has_more: more,
        });
      }
      m = /^\/open-apis\/docx\/v1\/documents\/([^/]+)(\/blocks)?$/.exec(url.pathname);
      if (m && req.method === "GET") {
        const doc = docs.get(decodeURIComponent(m[1]));
        if (!doc) return err(res, 404, 1770002, "not found");
        if (doc.forbidden) return err(res, 403, 1770032, "forbidden");
        if (!m[2]) return ok(res, { document: { document_id: doc.token, revision_id: doc.revision, title: doc.title } });
        const { slice, more, next } = page(doc.blocks, url);
        return ok(res, { items: slice, page_token: next, has_more: more });
      }
      if (url.pathname === "/open-apis/drive/v1/files" && req.method === "GET") {
        const folder = url.searchParams.get("folder_token") ?? "";
        const here = files.filter((f) => f.folder === folder);
        const { slice, more, next } = page(here, url);
        return ok(res, {
          files: slice.map((f) => ({
            token: f.token,
            name: f.type === "docx" ? (docs.get(f.token)?.title ?? f.name) : f.name,
            type: f.type,
            parent_token: f.folder,
            url: `${tenant}/${f.type === "folder" ? "drive/folder" : f.type}/${f.token}`,
          })),
          next_page_token: next,
          has_more: more,
        });
      }
      return err(res, 404, 404, "404 page not found");
    }),
  );
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const docOf = (token: string) => {
    const d = docs.get(token);
    if (!d) throw new Error(`no document ${token}`);
    return d;
  };
  const newDoc = (token: string, title: string, parts: Part[]) =>
    docs.set(token, { token, title, revision: 1, blocks: toBlocks(token, title, parts), forbidden: false });

  return {
    origin,
    tenant,
    appId,
    get appSecret() {
      return appSecret;
    },
    requests,
    wikiDoc(space, token, title, parts, parent = "") {
      newDoc(token, title, parts);
      const node_token = `wik${token}`;
      nodes.push({ space, node_token, obj_token: token, obj_type: "docx", parent, title });
      return node_token;
    },
    wikiSheet(space, nodeToken, title) {
      nodes.push({ space, node_token: nodeToken, obj_token: `sht${nodeToken}`, obj_type: "sheet", parent: "", title });
    },
    driveDoc(folder, token, title, parts) {
      newDoc(token, title, parts);
      files.push({ folder, token, name: title, type: "docx" });
    },
    driveFolder(parent, token, name) {
      files.push({ folder: parent, token, name, type: "folder" });
    },
    edit(token, parts) {
      const d = docOf(token);
      d.blocks = toBlocks(token, d.title, parts);
      d.revision++;
    },
    rename(token, title) {
      const d = docOf(token);
      d.title = title;
      d.revision++;
      for (const n of nodes) if (n.obj_token === token) n.title = title;
    },
    move(nodeToken, parent) {
      const n = nodes.find((x) => x.node_token === nodeToken);
      if (!n) throw new Error(`no node ${nodeToken}`);
      n.parent = parent;
    },
    remove(token) {
      docs.delete(token);
      for (let i = nodes.length - 1; i >= 0; i--) if (nodes[i].obj_token === token) nodes.splice(i, 1);
      for (let i = files.length - 1; i >= 0; i--) if (files[i].token === token) files.splice(i, 1);
    },
    forbid(token) {
      docOf(token).forbidden = true;
    },
    resetSecret() {
      appSecret = `${appSecret}-reset`;
      tokens.clear();
    },
    throttle(count, headers, status = 429) {
      throttled = { count, headers, status };
    },
    tokenLifetime(uses) {
      lifetime = uses;
    },
    endless(space) {
      endlessSpaces.add(space);
    },
    endlessTree(space) {
      endlessTrees.add(space);
    },
    async close() {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}
