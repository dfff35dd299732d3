import { describe, expect, it } from "vitest";
import { localeFromAcceptLanguage } from "@/components/oauth/consent-messages";
import { parseResource, resourceMetadataUrl } from "./urls";

describe("OAuth URLs", () => {
  const base = "https://kb.example.com";
  it("accepts only this server's MCP endpoints as a resource", () => {
    expect(parseResource("https://kb.example.com/api/mcp", base)).toEqual({ kb: undefined });
    expect(parseResource("https://kb.example.com/api/mcp/", base)).toEqual({ kb: undefined });
    expect(parseResource("https://kb.example.com/api/mcp/hr", base)).toEqual({ kb: "hr" });
    for (const bad of [
      "https://evil.example/api/mcp",
      "http://kb.example.com/api/mcp",
      "https://kb.example.com/api/mcp?x=1",
      "https://kb.example.com/api/mcp#f",
      "https://kb.example.com/api/mcp/HR",
      "https://kb.example.com/api/mcp/hr/x",
      "https://kb.example.com/api/tokens",
      "https://kb.example.com:8443/api/mcp",
      "not a url",
      "",
    ]) {
      expect(parseResource(bad, base)).toBeNull();
    }
  });

  it("puts the resource metadata at the well-known path inserted before the endpoint's path (RFC 9728)", () => {
    expect(resourceMetadataUrl(undefined, base)).toBe("https://kb.example.com/.well-known/oauth-protected-resource/api/mcp");
    expect(resourceMetadataUrl("hr", base)).toBe("https://kb.example.com/.well-known/oauth-protected-resource/api/mcp/hr");
  });

  it("picks the consent page's language like the app: Chinese when the browser lists it", () => {
    expect(localeFromAcceptLanguage("zh-CN,zh;q=0.9,en;q=0.8")).toBe("zh");
    expect(localeFromAcceptLanguage("en-US,en;q=0.9,zh-TW;q=0.5")).toBe("zh");
    expect(localeFromAcceptLanguage("en-US,en;q=0.9")).toBe("en");
    expect(localeFromAcceptLanguage("en,zh;q=0")).toBe("en");
    expect(localeFromAcceptLanguage(null)).toBe("en");
  });
});
