/**
 * What a knowledge source is, defined once: the input rule (zod) applied by the routes and the MCP tools,
 * and the shapes the store, the sync engine and the UI share. Browser-safe (no node imports).
 */
import { z } from "zod";

export type SourceKind =
  | "web"
  | "git"
  | "s3"
  | "folder"
  | "webdav"
  | "imap"
  | "mediawiki"
  | "confluence"
  | "notion"
  | "google-drive"
  | "sharepoint"
  | "feishu";

const MAX_PAGES = 5000;
const DEFAULT_SCHEDULE_MINUTES = 60;

const httpUrl = (what: string) =>
  z
    .string({ error: `${what} must be a string` })
    .trim()
    .max(2000, `${what} must be at most 2000 characters`)
    .refine((u) => {
      const p = URL.parse(u);
      return !!p && (p.protocol === "http:" || p.protocol === "https:") && !p.username && !p.password;
    }, `${what} must be an http(s) URL without credentials`);

const schedule = z
  .number({ error: "scheduleMinutes must be a number" })
  .int("scheduleMinutes must be whole minutes")
  .min(0, "scheduleMinutes must be 0 (only on demand) or more")
  .max(7 * 24 * 60, "scheduleMinutes must be at most a week")
  .default(DEFAULT_SCHEDULE_MINUTES);

const name = z.string({ error: "name must be a string" }).trim().max(200, "name must be at most 200 characters").optional();

const web = z.strictObject({
  kind: z.literal("web"),
  name,
  url: httpUrl("url"),
  /** page: this URL only (and what it links to that is a file); sitemap: the URLs the sitemap lists; site: a crawl. */
  mode: z.enum(["page", "sitemap", "site"], { error: 'mode must be "page", "sitemap" or "site"' }).default("site"),
  maxDepth: z.number().int().min(0).max(20).default(3),
  maxPages: z.number().int().min(1).max(MAX_PAGES).default(200),
  scheduleMinutes: schedule,
});

const git = z.strictObject({
  kind: z.literal("git"),
  name,
  url: httpUrl("url"),
  branch: z
    .string()
    .trim()
    .regex(/^[\w./-]{1,200}$/, "branch must be a branch name")
    .refine((b) => !b.startsWith("-") && !b.includes(".."), "branch must be a branch name")
    .default("main"),
  /** Path prefixes to take files from ("docs/"); none: the whole tree. */
  paths: z
    .array(
      z
        .string()
        .trim()
        .max(500)
        .refine((p) => !p.startsWith("-") && !p.split("/").includes(".."), "each path must be a folder or file in the repository"),
    )
    .max(50)
    .default([]),
  token: z.string().trim().min(1).max(1000).optional(),
  scheduleMinutes: schedule,
});

const s3 = z.strictObject({
  kind: z.literal("s3"),
  name,
  url: z
    .string()
    .trim()
    .regex(/^s3:\/\/[a-z0-9][a-z0-9.-]{1,62}(\/.*)?$/, "url must be s3://bucket/prefix"),
  /** An S3-compatible service's address; default: AWS in `region`. */
  endpoint: httpUrl("endpoint").optional(),
  /** Signed into every request and part of AWS's host name: letters, digits and dashes only ("us-east-1", "auto"). */
  region: z
    .string({ error: "region must be a string" })
    .trim()
    .regex(/^[a-z0-9](?:[a-z0-9-]{0,48}[a-z0-9])?$/, "region must be a region name: lowercase letters, digits and dashes (us-east-1)")
    .default("us-east-1"),
  accessKeyId: z.string().trim().min(1).max(200),
  secretAccessKey: z.string().trim().min(1).max(500),
  scheduleMinutes: schedule,
});

const folder = z.strictObject({
  kind: z.literal("folder"),
  name,
  path: z
    .string()
    .trim()
    .min(1)
    .max(1000)
    .refine((p) => p.startsWith("/"), "path must be an absolute folder path on the server"),
  scheduleMinutes: schedule,
});

/** A folder on a WebDAV server (Nextcloud, ownCloud, SharePoint, Box, a NAS): everything under it. */
const webdav = z.strictObject({
  kind: z.literal("webdav"),
  name,
  url: httpUrl("url"),
  username: z.string({ error: "username must be a string" }).trim().min(1, "username is required").max(200),
  /** A password or app password; sealed (./secrets.ts). */
  password: z.string({ error: "password must be a string" }).min(1, "password is required").max(1000),
  scheduleMinutes: schedule,
});

/** A mailbox on an IMAP server (imaps://host/INBOX; imap:// upgrades with STARTTLS): each thread a document. */
const imap = z.strictObject({
  kind: z.literal("imap"),
  name,
  url: z
    .string({ error: "url must be a string" })
    .trim()
    .max(2000, "url must be at most 2000 characters")
    .refine((u) => {
      const p = URL.parse(u);
      return !!p && (p.protocol === "imaps:" || p.protocol === "imap:") && !!p.hostname && !p.username && !p.password && !p.search;
    }, "url must be imaps://host/Mailbox (or imap://), without credentials"),
  username: z.string({ error: "username must be a string" }).trim().min(1, "username is required").max(200),
  password: z.string({ error: "password must be a string" }).min(1, "password is required").max(1000),
  scheduleMinutes: schedule,
});

/** A MediaWiki's pages (its api.php), anonymous or with a bot password (user name "User@bot"). */
const mediawiki = z
  .strictObject({
    kind: z.literal("mediawiki"),
    name,
    url: httpUrl("url").refine(
      (u) => /\/api\.php$/.test(URL.parse(u)?.pathname ?? ""),
      "url must be the wiki's api.php (https://wiki.example.com/w/api.php)",
    ),
    namespaces: z
      .array(z.number({ error: "namespaces must be numbers" }).int().min(0).max(100_000))
      .min(1)
      .max(50)
      .default([0]),
    username: z.string({ error: "username must be a string" }).trim().min(1).max(200).optional(),
    password: z.string({ error: "password must be a string" }).min(1).max(1000).optional(),
    scheduleMinutes: schedule,
  })
  .refine((m) => !m.username === !m.password, "a bot password needs both username and password (or neither, to read anonymously)");

/**
 * Confluence: the pages and blog posts of the chosen spaces, with attachments. Cloud (REST v2; `url` the site,
 * https://example.atlassian.net/wiki): an account's e-mail address and an API token. Data Center (REST v1; `url` the
 * base URL, https://confluence.example.com): a personal access token, no user name.
 */
const confluence = z
  .strictObject({
    kind: z.literal("confluence"),
    name,
    deployment: z.enum(["cloud", "data-center"], { error: 'deployment must be "cloud" or "data-center"' }).default("cloud"),
    url: httpUrl("url"),
    spaces: z
      .array(
        z
          .string({ error: "spaces must be space keys" })
          .trim()
          .regex(/^~?[A-Za-z0-9_]{1,255}$/, "each space must be a space key (ENG, ~alice)"),
      )
      .min(1, "name at least one space key")
      .max(50),
    username: z.string({ error: "username must be a string" }).trim().min(1, "username must not be empty").max(200).optional(),
    /** An API token (Cloud: id.atlassian.com → Security → API tokens) or a personal access token (Data Center); sealed (./secrets.ts). */
    token: z.string({ error: "token must be a string" }).trim().min(1, "token is required").max(1000),
    scheduleMinutes: schedule,
  })
  .refine((c) => c.deployment !== "cloud" || !!c.username, {
    message: "username (the account's e-mail) is required for Confluence Cloud",
    path: ["username"],
  })
  .refine((c) => c.deployment === "cloud" || !c.username, {
    message: "a Data Center personal access token goes without a username",
    path: ["username"],
  });

/** Notion: the pages and database rows shared with an internal integration, read with its token. */
const notion = z.strictObject({
  kind: z.literal("notion"),
  name,
  /** The API's address: https://api.notion.com, or a proxy in front of it. */
  apiUrl: httpUrl("apiUrl").default("https://api.notion.com"),
  token: z.string({ error: "token must be a string" }).trim().min(1, "token is required").max(1000),
  scheduleMinutes: schedule,
});

/** A Drive file id (a folder's, a shared drive's), or the folder's URL it is read from. */
const driveFolderId = z
  .string({ error: "each folder must be a string" })
  .trim()
  .transform((v) => /\/folders\/([\w-]+)/.exec(v)?.[1] ?? v)
  .pipe(z.string().regex(/^[\w-]{10,200}$/, "each folder must be a Drive folder's id or URL (https://drive.google.com/drive/folders/…)"));

/** A service account's JSON key file as Google hands it out: its e-mail, private key and token URL are what is used. */
const serviceAccountKey = z
  .string({ error: "serviceAccount must be the service account's JSON key" })
  .max(20_000, "serviceAccount must be at most 20000 characters")
  .refine((v) => {
    try {
      const j = JSON.parse(v) as Record<string, unknown>;
      const uri = j.token_uri === undefined ? null : URL.parse(String(j.token_uri));
      return (
        typeof j.client_email === "string" &&
        typeof j.private_key === "string" &&
        j.private_key.includes("PRIVATE KEY") &&
        (uri === null || uri.protocol === "https:" || uri.protocol === "http:")
      );
    } catch {
      return false;
    }
  }, "serviceAccount must be the service account's JSON key (with client_email, private_key and token_uri)");

/** Files in Google Drive folders or shared drives, read by a service account (domain-wide delegation: as `subject`). */
const googleDrive = z.strictObject({
  kind: z.literal("google-drive"),
  name,
  folders: z.array(driveFolderId).min(1, "folders must name at least one folder or shared drive").max(50),
  /** The user the service account acts as (domain-wide delegation); none: the service account itself. */
  subject: z.email({ error: "subject must be the e-mail address of the user to act as" }).max(320).optional(),
  /** Google's API, or a proxy in front of it. */
  apiUrl: httpUrl("apiUrl").default("https://www.googleapis.com/"),
  serviceAccount: serviceAccountKey,
  scheduleMinutes: schedule,
});

/** Files in a SharePoint document library or a OneDrive (a Graph drive), or one folder of it, read by an app registration. */
const sharepoint = z.strictObject({
  kind: z.literal("sharepoint"),
  name,
  driveId: z
    .string({ error: "driveId must be a string" })
    .trim()
    .regex(/^[\w!.-]{1,300}$/, "driveId must be the Graph id of a document library or OneDrive (b!…)"),
  /** A folder's path in it ("Policies/2026"); empty: the whole library. */
  folder: z
    .string({ error: "folder must be a string" })
    .trim()
    .max(1000)
    .transform((p) => p.replace(/^\/+|\/+$/g, ""))
    .refine((p) => !p.split("/").some((s) => s === "." || s === ".."), "folder must be a folder's path in the library")
    .default(""),
  tenantId: z
    .string({ error: "tenantId must be a string" })
    .trim()
    .regex(/^[\w.-]{1,200}$/, "tenantId must be the directory (tenant) id or its domain"),
  clientId: z
    .string({ error: "clientId must be a string" })
    .trim()
    .regex(/^[\w-]{1,100}$/, "clientId must be the app registration's application (client) id"),
  clientSecret: z.string({ error: "clientSecret must be a string" }).min(1, "clientSecret is required").max(1000),
  /** Microsoft Graph, a national cloud's (graph.microsoft.us, microsoftgraph.chinacloudapi.cn) or a proxy. */
  apiUrl: httpUrl("apiUrl").default("https://graph.microsoft.com"),
  /** The sign-in authority's host (login.microsoftonline.us, login.chinacloudapi.cn for national clouds). */
  loginUrl: httpUrl("loginUrl").default("https://login.microsoftonline.com"),
  scheduleMinutes: schedule,
});

/** A wiki space id or drive folder token as the Feishu/Lark API writes them. */
const feishuToken = (what: string) =>
  z
    .string({ error: `${what} must be strings` })
    .trim()
    .regex(/^[A-Za-z0-9_-]{1,100}$/, `each of ${what} must be an id or token (letters, digits, - and _)`);

/** Feishu / Lark: the docx documents of wiki spaces and drive folders, read as a custom app (app id + app secret). */
const feishu = z
  .strictObject({
    kind: z.literal("feishu"),
    name,
    /** feishu: open.feishu.cn (mainland China); lark: open.larksuite.com. */
    domain: z.enum(["feishu", "lark"], { error: 'domain must be "feishu" or "lark"' }).default("feishu"),
    /** Another address for the same API (a proxy in front of it). */
    apiUrl: httpUrl("apiUrl").optional(),
    appId: z
      .string({ error: "appId must be a string" })
      .trim()
      .regex(/^[A-Za-z0-9_-]{1,100}$/, "appId must be the app's id (cli_…)"),
    /** The app secret; sealed (./secrets.ts) under the field name every password-like secret has. */
    password: z.string({ error: "the app secret must be a string" }).trim().min(1, "the app secret is required").max(1000),
    spaces: z.array(feishuToken("spaces")).max(50).default([]),
    folders: z.array(feishuToken("folders")).max(50).default([]),
    scheduleMinutes: schedule,
  })
  .refine((f) => f.spaces.length + f.folders.length > 0, "name at least one wiki space id (spaces) or drive folder token (folders)");

/** POST /api/kbs/<kb>/sources and MCP add_source. */
export const sourceInputSchema = z.discriminatedUnion(
  "kind",
  [web, git, s3, folder, webdav, imap, mediawiki, confluence, notion, googleDrive, sharepoint, feishu],
  {
    error:
      'kind must be "web", "git", "s3", "folder", "webdav", "imap", "mediawiki", "confluence", "notion", "google-drive", "sharepoint" or "feishu"',
  },
);
export type SourceInput = z.infer<typeof sourceInputSchema>;

/** PATCH: a new schedule or name, or the secret entered again (after SOURCE_SECRET_KEY changed, or a new token). */
export const sourcePatchSchema = z
  .strictObject({
    name: name,
    scheduleMinutes: schedule.optional(),
    token: z.string().trim().min(1).max(1000).optional(),
    secretAccessKey: z.string().trim().min(1).max(500).optional(),
    password: z.string().min(1).max(1000).optional(),
    /** Index all of a source whose first sync stopped at SOURCE_CONFIRM_OVER items (a sync starts). */
    confirm: z.literal(true, { error: "confirm must be true" }).optional(),
    serviceAccount: serviceAccountKey.optional(),
    clientSecret: z.string().min(1).max(1000).optional(),
  })
  .refine((p) => Object.values(p).some((v) => v !== undefined), "nothing to change");
export type SourcePatch = z.infer<typeof sourcePatchSchema>;

/** The fields of an input that are secrets: stored encrypted, never answered. */
export const SECRET_FIELDS = ["token", "secretAccessKey", "password", "serviceAccount", "clientSecret"] as const;
type SecretField = (typeof SECRET_FIELDS)[number];
export type SourceSecrets = Partial<Record<SecretField, string>>;
export type SourceConfig = {
  [K in SourceKind]: Omit<Extract<SourceInput, { kind: K }>, SecretField | "name" | "scheduleMinutes">;
}[SourceKind];

export interface SyncCounts {
  added: number;
  updated: number;
  unchanged: number;
  removed: number;
  /** Items a source holds that no parser reads (a repository's code files), or that hold nothing to index. */
  skipped: number;
  /** The first items that failed (at most 100), each with why. */
  failed: { item: string; reason: string }[];
  /** Failed items beyond those listed in `failed`. */
  failedUnlisted?: number;
  /** Why an item of a format the parsers read was skipped (a Markdown file with front matter only). */
  notes?: { item: string; reason: string }[];
}

export interface SyncRun extends SyncCounts {
  startedAt: string;
  finishedAt: string | null;
  /** Why the run as a whole failed (nothing was removed then). */
  error: string | null;
  /** What the source was at: a commit, a sitemap's size… */
  note: string | null;
  /** The whole source is indexed: its first sync held at most SOURCE_CONFIRM_OVER items, or an editor confirmed more. */
  confirmed?: boolean;
  /** The first sync stopped after this many items (SOURCE_CONFIRM_OVER), waiting for an editor to confirm the rest. */
  needsConfirmation?: number;
}

/** A source as the API answers it: no secrets, only whether there are some. */
export interface SourceView {
  id: string;
  kb: string;
  kind: SourceKind;
  name: string;
  config: SourceConfig;
  hasSecret: boolean;
  scheduleMinutes: number;
  createdAt: string;
  /** Running now, with how many items it has seen and done. */
  running: { seen: number; done: number } | null;
  lastRun: SyncRun | null;
  nextRunAt: string | null;
  documents: number;
}
