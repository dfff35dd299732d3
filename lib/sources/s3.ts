/**
 * S3-compatible buckets: `s3://bucket/prefix` listed with ListObjectsV2 (path-style, so any S3-compatible
 * service works), an object fetched only when its ETag changed. Requests are signed with aws4fetch (SigV4 in
 * a few kilobytes, instead of the AWS SDK's many packages) and sent through ./http.ts, so an endpoint is
 * held to the same public-address rule as every other fetch. A hostile or broken service cannot lead it out of
 * the bucket and prefix (objectPath) or keep it listing forever (a repeated token, MAX_LIST_PAGES).
 */
import path from "node:path";
import { AwsClient } from "aws4fetch";
import type { Connector } from "./engine";
import { readable } from "./engine";
import { guardedRequest } from "./http";
import type { SourceConfig } from "./schema";

type S3Config = Extract<SourceConfig, { kind: "s3" }>;

const unescapeXml = (s: string) =>
  s.replace(/&(amp|lt|gt|quot|apos);/g, (_, e: string) => ({ amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" })[e] ?? "");
const tag = (xml: string, name: string) => {
  const m = new RegExp(`<${name}>([\\s\\S]*?)</${name}>`).exec(xml);
  return m ? unescapeXml(m[1]) : null;
};

function parseS3Url(url: string): { bucket: string; prefix: string } {
  const m = /^s3:\/\/([^/]+)\/?(.*)$/.exec(url);
  if (!m) throw new Error("not an s3:// URL");
  return { bucket: m[1], prefix: m[2] };
}

/** Pages of one listing at most (1,000 keys each): a listing longer than this is taken for one that never ends. */
const MAX_LIST_PAGES = 10_000;

/**
 * The key's path inside the bucket, or null when it has `.` or `..` segments or lies outside the prefix: a URL
 * parser would normalise them away, and the signed request would reach another object, another bucket.
 */
function objectPath(bucket: string, prefix: string, key: string): string | null {
  const segments = key.split("/");
  if (!key.startsWith(prefix) || segments.some((s) => s === "." || s === "..")) return null;
  const wanted = `/${bucket}/${segments.map(encodeURIComponent).join("/")}`;
  // The path as it goes out must be the one built: nothing the parser reads as a dot segment or a separator.
  return new URL(wanted, "http://x").pathname === wanted ? wanted : null;
}

export const s3Connector: Connector = async (ctx) => {
  const config = ctx.source.config as S3Config;
  const { bucket, prefix } = parseS3Url(config.url);
  if (!ctx.secrets.secretAccessKey) throw new Error("this source has no secret access key");
  const aws = new AwsClient({
    accessKeyId: config.accessKeyId,
    secretAccessKey: ctx.secrets.secretAccessKey,
    region: config.region,
    service: "s3",
  });
  const endpoint = (config.endpoint ?? `https://s3.${config.region}.amazonaws.com`).replace(/\/+$/, "");
  const signedGet = async (url: string, maxBytes?: number) => {
    const signed = await aws.sign(url, { method: "GET" });
    const res = await guardedRequest(new URL(signed.url), {
      headers: Object.fromEntries(signed.headers),
      followTo: () => false,
      signal: ctx.signal,
      maxBytes,
    });
    if (res.status !== 200)
      throw new Error(`S3 answered HTTP ${res.status} for ${new URL(url).pathname}: ${tag(res.body.toString("utf8"), "Message") ?? ""}`);
    return res.body;
  };

  let token: string | null = null;
  const tokens = new Set<string>();
  const outside: string[] = [];
  let listed = 0;
  for (let page = 0; ; page++) {
    if (page >= MAX_LIST_PAGES) throw new Error(`the bucket listing did not end after ${MAX_LIST_PAGES} pages`);
    const q = new URLSearchParams({ "list-type": "2", prefix });
    if (token) q.set("continuation-token", token);
    const xml = (await signedGet(`${endpoint}/${bucket}?${q}`, 16 * 1024 * 1024)).toString("utf8");
    for (const [, block] of xml.matchAll(/<Contents>([\s\S]*?)<\/Contents>/g)) {
      const key = tag(block, "Key");
      if (!key || key.endsWith("/")) continue;
      listed++;
      const etag = tag(block, "ETag");
      const url = `s3://${bucket}/${key}`;
      const objPath = objectPath(bucket, prefix, key);
      if (!objPath) {
        outside.push(key);
        ctx.skip(key, url);
        continue;
      }
      if (!readable(key)) {
        ctx.skip(key, url);
        continue;
      }
      const before = ctx.previous.get(key);
      if (before?.documentId && etag && before.version === etag) {
        ctx.keep(key);
        continue;
      }
      try {
        await ctx.ingest({ key, url, name: path.posix.basename(key), data: await signedGet(`${endpoint}${objPath}`), version: etag });
      } catch (err) {
        ctx.fail(key, err instanceof Error ? err.message : String(err));
      }
    }
    if (tag(xml, "IsTruncated") !== "true") break;
    token = tag(xml, "NextContinuationToken");
    if (!token) throw new Error("the bucket listing is truncated but gives no continuation token");
    if (tokens.has(token)) throw new Error(`the bucket listing repeats a continuation token after ${page + 1} pages: it would never end`);
    tokens.add(token);
  }
  const skipped = outside.length
    ? `; ${outside.length} keys with . or .. segments or outside the prefix not fetched (${outside.slice(0, 3).join(", ")})`
    : "";
  return { note: `${listed} objects listed${skipped}` };
};
