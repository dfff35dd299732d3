/**
 * S3-compatible buckets: `s3://bucket/prefix` listed with ListObjectsV2 (path-style, so any S3-compatible
 * service works), an object fetched only when its ETag changed. Requests are signed with aws4fetch (SigV4 in
 * a few kilobytes, instead of the AWS SDK's many packages) and sent through ./http.ts, so an endpoint is
 * held to the same public-address rule as every other fetch. A hostile or broken service cannot lead it out of
 * the bucket and prefix (objectPath) or keep it listing forever (a repeated token, SOURCE_MAX_LIST_PAGES), nor make it hold
 * more and more memory: a page's keys are handed on one by one as they are read, each copied out of the page, which
 * is dropped before the next one is asked for; a skipped key is counted, and a continuation token kept as its hash.
 */
import { createHash } from "node:crypto";
import path from "node:path";
import { AwsClient } from "aws4fetch";
import { sourceLimits } from "@/lib/config";
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

/**
 * A string of its own: what a regular expression or a slice finds is a view of the whole text it was found in, and
 * would keep that page alive for as long as the key is kept.
 */
const detached = (s: string) => Buffer.from(s, "utf8").toString("utf8");

function parseS3Url(url: string): { bucket: string; prefix: string } {
  const m = /^s3:\/\/([^/]+)\/?(.*)$/.exec(url);
  if (!m) throw new Error("not an s3:// URL");
  return { bucket: m[1], prefix: m[2] };
}

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
    if (res.status !== 200) {
      const message = detached((tag(res.body.toString("utf8"), "Message") ?? "").slice(0, 300));
      throw new Error(`S3 answered HTTP ${res.status} for ${new URL(url).pathname}: ${message}`);
    }
    return res.body;
  };

  let token: string | null = null;
  const tokens = new Set<string>();
  const outside: string[] = [];
  let outsideCount = 0;
  let listed = 0;
  const { maxListPages } = sourceLimits();
  for (let page = 0; ; page++) {
    if (page >= maxListPages) throw new Error(`the bucket listing did not end after ${maxListPages} pages`);
    const q = new URLSearchParams({ "list-type": "2", prefix });
    if (token) q.set("continuation-token", token);
    const xml = (await signedGet(`${endpoint}/${bucket}?${q}`, 16 * 1024 * 1024)).toString("utf8");
    for (const [, block] of xml.matchAll(/<Contents>([\s\S]*?)<\/Contents>/g)) {
      const found = tag(block, "Key");
      if (!found || found.endsWith("/")) continue;
      listed++;
      const objPath = objectPath(bucket, prefix, found);
      if (!objPath) {
        if (outsideCount++ < 3) outside.push(detached(found));
        ctx.skip(found);
        continue;
      }
      if (!readable(found)) {
        ctx.skip(found);
        continue;
      }
      const key = detached(found);
      const etag = detached(tag(block, "ETag") ?? "") || null;
      const before = ctx.previous.get(key);
      if (before?.documentId && etag && before.version === etag) {
        ctx.keep(key);
        continue;
      }
      try {
        const url = `s3://${bucket}/${key}`;
        await ctx.ingest({ key, url, name: path.posix.basename(key), data: await signedGet(`${endpoint}${objPath}`), version: etag });
      } catch (err) {
        ctx.fail(key, err instanceof Error ? err.message : String(err));
      }
    }
    if (tag(xml, "IsTruncated") !== "true") break;
    const next = tag(xml, "NextContinuationToken");
    if (!next) throw new Error("the bucket listing is truncated but gives no continuation token");
    const seen = createHash("sha256").update(next).digest("base64");
    if (tokens.has(seen)) throw new Error(`the bucket listing repeats a continuation token after ${page + 1} pages: it would never end`);
    tokens.add(seen);
    token = detached(next);
  }
  const skipped = outsideCount
    ? `; ${outsideCount} keys with . or .. segments or outside the prefix not fetched (${outside.join(", ")})`
    : "";
  return { note: `${listed} objects listed${skipped}` };
};
