import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { getKnowledgeBase, getRegistry } from "@/lib/kb";
import { sourceInputSchema } from "@/lib/sources/schema";
import { addSource, viewOf } from "@/lib/sources/service";
import { TOOL } from "@/lib/tools/names";
import { ADDS } from "./annotations";
import { kbArgument, perKbNames, type ToolContext, toolError, toolResult } from "./context";
import { registerAddTool } from "./register";

const name = TOOL.addSource;

// The arguments as a flat object (a tool's input schema is one object); the rule is lib/sources' sourceInputSchema.
const inputSchemaFor = perKbNames((kbNames) =>
  z.strictObject({
    kind: z
      .enum(["web", "git", "s3", "webdav", "imap", "mediawiki", "confluence", "notion", "google-drive", "sharepoint", "feishu"])
      .describe(
        "web: a page, sitemap or site; git: a repository over HTTP(S); s3: a bucket prefix; webdav: a folder on a WebDAV server; imap: a mailbox, each thread a document; mediawiki: a wiki's pages; confluence: Confluence Cloud or Data Center spaces' pages, blog posts and attachments; notion: the pages and database rows shared with an internal integration; google-drive: Google Drive folders or shared drives; sharepoint: a SharePoint document library or OneDrive (or a folder of it); feishu: Feishu/Lark wiki spaces and drive folders (docx documents)",
      ),
    url: z
      .string()
      .optional()
      .describe(
        "web: the page, sitemap or site start URL; git: the clone URL; s3: s3://bucket/prefix; webdav: the folder's URL; imap: imaps://host/Mailbox; mediawiki: its api.php; confluence: the site (Cloud: https://example.atlassian.net/wiki; Data Center: its base URL, https://confluence.example.com) (notion, google-drive, sharepoint, feishu: none)",
      ),
    kb: kbArgument(kbNames, "Knowledge base to add it to. Default: the default knowledge base (or the only one this server serves)."),
    name: z.string().optional().describe("A name to show for it; default: its URL"),
    mode: z.enum(["page", "sitemap", "site"]).optional().describe("web only; default site (a crawl within the URL's folder)"),
    maxDepth: z.number().int().optional().describe("web only; links followed this deep (default 3)"),
    maxPages: z.number().int().optional().describe("web only; at most this many pages (default 200)"),
    branch: z.string().optional().describe("git only; default main"),
    paths: z.array(z.string()).optional().describe("git only; folders or files to take (default: all)"),
    token: z
      .string()
      .optional()
      .describe(
        "git: an access token for a private repository; confluence: an API token (Cloud) or a personal access token (Data Center); notion: the integration's token (stored encrypted)",
      ),
    spaces: z.array(z.string()).optional().describe("confluence: the space keys to read (ENG, HR); feishu: wiki space ids to read"),
    endpoint: z.string().optional().describe("s3 only; an S3-compatible service's URL"),
    region: z.string().optional().describe("s3 only; default us-east-1"),
    accessKeyId: z.string().optional().describe("s3 only"),
    secretAccessKey: z.string().optional().describe("s3 only; stored encrypted"),
    username: z
      .string()
      .optional()
      .describe(
        "webdav, imap; mediawiki: a bot password's user name (User@bot), none to read anonymously; confluence: the account's e-mail (Cloud only)",
      ),
    password: z
      .string()
      .optional()
      .describe("webdav, imap, mediawiki: a password, app password or bot password; feishu: the app secret (stored encrypted)"),
    namespaces: z.array(z.number().int()).optional().describe("mediawiki only; namespace numbers to read (default [0], the articles)"),
    folders: z
      .array(z.string())
      .optional()
      .describe("google-drive: the folders' or shared drives' ids or links; feishu: drive folder tokens to read"),
    subject: z.string().optional().describe("google-drive only; a user the service account acts as (domain-wide delegation)"),
    serviceAccount: z
      .string()
      .optional()
      .describe("google-drive only; the service account's JSON key, as text (scope drive.readonly; stored encrypted)"),
    driveId: z.string().optional().describe("sharepoint only; the Graph drive id of the document library or OneDrive (b!…)"),
    folder: z.string().optional().describe("sharepoint only; a folder's path in the drive (default: all of it)"),
    tenantId: z.string().optional().describe("sharepoint only; the directory (tenant) id"),
    clientId: z.string().optional().describe("sharepoint only; the app registration's application (client) id"),
    clientSecret: z
      .string()
      .optional()
      .describe("sharepoint only; the app registration's client secret (Files.Read.All or Sites.Read.All; stored encrypted)"),
    apiUrl: z
      .string()
      .optional()
      .describe("notion, google-drive, sharepoint, feishu: the API's address for a national cloud or a proxy (default the service's own)"),
    loginUrl: z.string().optional().describe("sharepoint only; the sign-in host for a national cloud (default login.microsoftonline.com)"),
    domain: z.enum(["feishu", "lark"]).optional().describe("feishu only; feishu (open.feishu.cn, default) or lark (open.larksuite.com)"),
    appId: z.string().optional().describe("feishu only; the custom app's App ID (cli_…)"),
    deployment: z
      .enum(["cloud", "data-center"])
      .optional()
      .describe("confluence only; cloud (default: e-mail and API token) or data-center (a personal access token, no username)"),
    scheduleMinutes: z.number().int().optional().describe("Minutes between syncs; 0: only on demand. Default 60"),
  }),
);

const config = {
  title: "Add a source",
  description:
    "Add a web site, Git repository, S3 bucket, WebDAV folder (Nextcloud, ownCloud, SharePoint, a NAS), IMAP mailbox, " +
    "MediaWiki, Confluence spaces (Cloud or Data Center), a Notion workspace, Google Drive folders, a SharePoint/OneDrive library or Feishu/Lark (wiki spaces, drive folders) to a knowledge base: its documents are indexed in the background and kept in sync on a schedule " +
    "(default hourly). Everything the credential can read there becomes readable by the knowledge base's readers. " +
    "Requires a read-write access token. Check progress with list_sources.",
  input: inputSchemaFor,
  annotations: { ...ADDS, openWorldHint: true },
};

export function registerAddSource(server: McpServer, ctx: ToolContext) {
  registerAddTool(server, ctx, name, config, async (args, { kb, store }) => {
    const { kb: _kb, ...rest } = args as Record<string, unknown>;
    const parsed = sourceInputSchema.safeParse(rest);
    if (!parsed.success) return toolError(parsed.error.issues.map((i) => i.message).join("; "));
    if (!(await getKnowledgeBase(store, await getRegistry(store), kb))) return toolError(`There is no knowledge base "${kb}".`);
    const source = await addSource(store, kb, parsed.data, { admin: false });
    ctx.audit?.("source_add", { kb, target: source.id, detail: `${source.kind} ${source.name} (MCP)` });
    const view = await viewOf(store, source);
    return toolResult(
      `Added the ${source.kind} source "${source.name}" to "${kb}" (id ${source.id}); its first sync is running. ` +
        "list_sources shows its status.",
      { source: view },
    );
  });
}
