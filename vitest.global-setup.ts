/**
 * Before any test file: the parse worker's bundle from the sources as they are now (scripts/parse-worker-bundle.mjs),
 * so that the parse and OCR workers the tests start run it as the server does, instead of compiling the TypeScript
 * sources through tsx in every new worker (about one CPU-second a worker; the OCR tests alone start ~18).
 */
import { bundleParseWorker } from "./scripts/parse-worker-bundle.mjs";

export default async function setup() {
  await bundleParseWorker();
}
