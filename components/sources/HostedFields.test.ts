import { describe, expect, it } from "vitest";
import { sourceInputSchema } from "@/lib/sources/schema";
import { hostedBody } from "./HostedFields";

/** The add form's Confluence settings as the form sends them, checked by the one rule (lib/sources/schema.ts). */
describe("the add form's Confluence settings", () => {
  const form = (fields: Record<string, string>) => {
    const get = (k: string) => (fields[k] ?? "").trim();
    return { kind: "confluence", url: fields.url, ...hostedBody("confluence", get, (k) => fields[k] ?? "") };
  };

  it("Data Center sends the base URL and a personal access token, no e-mail; Cloud the e-mail with its API token", () => {
    const dc = form({ deployment: "data-center", url: "https://confluence.example.com", spaces: "ENG, HR", token: " pat " });
    expect(dc).toEqual({
      kind: "confluence",
      deployment: "data-center",
      url: "https://confluence.example.com",
      spaces: ["ENG", "HR"],
      token: "pat",
    });
    expect(sourceInputSchema.safeParse(dc).success).toBe(true);
    const cloud = form({ url: "https://example.atlassian.net/wiki", spaces: "ENG", username: "kb@example.com", token: "t" });
    expect(cloud).toMatchObject({ deployment: "cloud", username: "kb@example.com", token: "t" });
    expect(sourceInputSchema.safeParse(cloud).success).toBe(true);
  });
});
