/**
 * A local S3-compatible server (s3rver) for the object-store test and the replica bench, and the AWS_*
 * variables with which LanceDB's object-store client reaches it (endpoint, plain HTTP, credentials, region).
 */
import { createHash, randomUUID } from "node:crypto";
import { mkdir, rename, writeFile } from "node:fs/promises";
import path from "node:path";
import { buffer } from "node:stream/consumers";
import S3rver from "s3rver";

export function s3Env(port: number) {
  return {
    AWS_ENDPOINT: `http://127.0.0.1:${port}`,
    AWS_ALLOW_HTTP: "true",
    AWS_ACCESS_KEY_ID: "S3RVER",
    AWS_SECRET_ACCESS_KEY: "S3RVER",
    AWS_REGION: "us-east-1",
  };
}

/**
 * S3 makes a PUT visible only once it is complete. s3rver writes the object file in place and its metadata
 * after, so a replica listing versions meanwhile read a 0-byte manifest ("Range started at 0 and ended at 0").
 * The object is written beside its final name and renamed there once its metadata is stored.
 */
function makePutsAtomic(server: S3rver) {
  const store = server.store;
  store.putObject = async (object) => {
    const objectPath = store.getResourcePath(object.bucket, object.key, "object");
    const content = Buffer.isBuffer(object.content) ? object.content : await buffer(object.content);
    const md5 = createHash("md5").update(content).digest("hex");
    const staged = `${objectPath}.${randomUUID()}.staged`;
    await mkdir(path.dirname(objectPath), { recursive: true });
    await writeFile(staged, content);
    await store.putMetadata(object.bucket, object.key, object.metadata, md5);
    await rename(staged, objectPath);
    return { size: content.length, md5 };
  };
}

/** s3rver on 127.0.0.1:`port`, keeping its objects under `directory`, with `bucket` made. */
export async function startS3(directory: string, port: number, bucket: string): Promise<S3rver> {
  await mkdir(directory, { recursive: true });
  const s3 = new S3rver({ port, address: "127.0.0.1", silent: true, directory, configureBuckets: [{ name: bucket, configs: [] }] });
  makePutsAtomic(s3);
  await s3.run();
  return s3;
}
