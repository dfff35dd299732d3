import { describe, expect, it } from "vitest";
import { connectSnippets, mcpEndpoint, serverName, TOKEN_PLACEHOLDER } from "./connect";

const byId = (s: ReturnType<typeof connectSnippets>) => Object.fromEntries(s.map((x) => [x.id, x.text]));

describe("connect snippets", () => {
  it("builds the library and per-knowledge-base URLs", () => {
    expect(mcpEndpoint("http://127.0.0.1:3000/")).toBe("http://127.0.0.1:3000/api/mcp");
    expect(mcpEndpoint("https://kb.example.com", "hr")).toBe("https://kb.example.com/api/mcp/hr");
    expect(serverName("hr")).toBe("kb-hr");
    expect(serverName()).toBe("knowledge-base");
  });

  it("fills the token into every client's configuration", () => {
    const url = "https://kb.example.com/api/mcp/hr";
    const s = byId(connectSnippets({ url, kb: "hr", token: "kbt_abc" }));
    expect(JSON.parse(s["claude-desktop"])).toEqual({
      mcpServers: {
        "kb-hr": {
          command: "npx",
          // biome-ignore lint/suspicious/noTemplateCurlyInString: mcp-remote's own placeholder
          args: ["-y", "mcp-remote", url, "--header", "Authorization:${AUTH_HEADER}"],
          env: { AUTH_HEADER: "Bearer kbt_abc" },
        },
      },
    });
    expect(JSON.parse(s.cursor)).toEqual({ mcpServers: { "kb-hr": { url, headers: { Authorization: "Bearer kbt_abc" } } } });
    expect(JSON.parse(s.vscode)).toEqual({ servers: { "kb-hr": { type: "http", url, headers: { Authorization: "Bearer kbt_abc" } } } });
    expect(s["claude-code"]).toBe(`claude mcp add --transport http kb-hr ${url} --header 'Authorization: Bearer kbt_abc'`);
    expect(s.inspector).toBe(
      `npx @modelcontextprotocol/inspector --cli ${url} --transport http --method tools/list --header 'Authorization: Bearer kbt_abc'`,
    );
  });

  it("uses a placeholder when tokens are required, and no header when they are not", () => {
    const url = "http://127.0.0.1:3000/api/mcp";
    expect(byId(connectSnippets({ url, requireToken: true })).cursor).toContain(`Bearer ${TOKEN_PLACEHOLDER}`);
    const open = byId(connectSnippets({ url }));
    expect(JSON.parse(open.cursor)).toEqual({ mcpServers: { "knowledge-base": { url } } });
    expect(open["claude-code"]).toBe(`claude mcp add --transport http knowledge-base ${url}`);
    expect(JSON.parse(open["claude-desktop"]).mcpServers["knowledge-base"].args).toEqual(["-y", "mcp-remote", url]);
  });

  it("lets mcp-remote use plain http on a network address", () => {
    const args = JSON.parse(byId(connectSnippets({ url: "http://192.168.1.5:3000/api/mcp" }))["claude-desktop"]).mcpServers[
      "knowledge-base"
    ].args;
    expect(args).toContain("--allow-http");
  });
});
