export function bundleParseWorker(): Promise<void>;
