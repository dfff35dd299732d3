/**
 * What the Connect dialog shows: the MCP URL of the library or of one knowledge base, and ready-to-paste
 * client configurations. Pure, so it runs in the browser and in tests.
 */

/** Whether the app can be reached from other machines, and at which LAN addresses (lib/server/share-info.ts). */
export interface ShareInfo {
  /** Addresses other machines can use (empty when the app listens on loopback only). */
  lanHosts: string[];
  loopbackOnly: boolean;
  requireToken: boolean;
  adminTokenSet: boolean;
}

export const TOKEN_PLACEHOLDER = "<your-access-token>";

export function mcpEndpoint(origin: string, kb?: string | null): string {
  const base = origin.replace(/\/+$/, "");
  return kb ? `${base}/api/mcp/${encodeURIComponent(kb)}` : `${base}/api/mcp`;
}

/** The server's name in client configs: `knowledge-base`, or `kb-<name>` for one knowledge base. */
export function serverName(kb?: string | null): string {
  return kb ? `kb-${kb}` : "knowledge-base";
}

export type ClientId = "claude-desktop" | "cursor" | "vscode" | "claude-code" | "inspector";

export interface Snippet {
  id: ClientId;
  label: string;
  /** Where it goes (a file or a terminal). */
  where: string;
  text: string;
}

function isLocalHttp(url: string): boolean {
  const u = new URL(url);
  return u.protocol === "https:" || ["localhost", "127.0.0.1", "[::1]"].includes(u.hostname);
}

const json = (v: unknown) => JSON.stringify(v, null, 2);
/** Single quotes for a POSIX shell. */
const sh = (s: string) => (/^[A-Za-z0-9_./:@=-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

/**
 * Snippets for each client. `token`: the secret just created, else a placeholder when tokens are required,
 * else none (no Authorization header at all).
 */
export function connectSnippets(opts: { url: string; kb?: string | null; token?: string | null; requireToken?: boolean }): Snippet[] {
  const { url } = opts;
  const name = serverName(opts.kb);
  const token = opts.token || (opts.requireToken ? TOKEN_PLACEHOLDER : null);
  const auth = token ? `Bearer ${token}` : null;
  const headers = auth ? { headers: { Authorization: auth } } : {};

  // mcp-remote bridges stdio-only Claude Desktop to a remote server. The header goes through an env var
  // because some clients mangle spaces inside args (mcp-remote README); plain http needs --allow-http
  // unless the host is local.
  const remoteArgs = ["-y", "mcp-remote", url];
  if (!isLocalHttp(url)) remoteArgs.push("--allow-http");
  // biome-ignore lint/suspicious/noTemplateCurlyInString: mcp-remote expands ${AUTH_HEADER} from env, not JavaScript
  if (auth) remoteArgs.push("--header", "Authorization:${AUTH_HEADER}");
  const claudeDesktop = {
    mcpServers: { [name]: { command: "npx", args: remoteArgs, ...(auth ? { env: { AUTH_HEADER: auth } } : {}) } },
  };

  const headerFlag = auth ? ` --header ${sh(`Authorization: ${auth}`)}` : "";
  return [
    { id: "claude-desktop", label: "Claude Desktop", where: "claude_desktop_config.json", text: json(claudeDesktop) },
    { id: "cursor", label: "Cursor", where: "~/.cursor/mcp.json", text: json({ mcpServers: { [name]: { url, ...headers } } }) },
    { id: "vscode", label: "VS Code", where: ".vscode/mcp.json", text: json({ servers: { [name]: { type: "http", url, ...headers } } }) },
    {
      id: "claude-code",
      label: "Claude Code",
      where: "terminal",
      text: `claude mcp add --transport http ${sh(name)} ${sh(url)}${headerFlag}`,
    },
    {
      id: "inspector",
      label: "MCP Inspector",
      where: "terminal",
      text: `npx @modelcontextprotocol/inspector --cli ${sh(url)} --transport http --method tools/list${headerFlag}`,
    },
  ];
}
