/** Test only: what the agent tests' scripted models (LanguageModelV4) share. */
import type { LanguageModelV4, LanguageModelV4StreamPart } from "@ai-sdk/provider";

/** Token counts a scripted model reports: one in, one out. */
export const TEST_USAGE = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};

/** doStream's result: `parts`, all at once. */
export function streamOf(parts: LanguageModelV4StreamPart[]) {
  return {
    stream: new ReadableStream<LanguageModelV4StreamPart>({
      start(c) {
        for (const p of parts) c.enqueue(p);
        c.close();
      },
    }),
  };
}

/** A model that only streams, each call answered by `doStream`. */
export function streamingModel(doStream: LanguageModelV4["doStream"]): LanguageModelV4 {
  return {
    specificationVersion: "v4",
    provider: "test",
    modelId: "scripted",
    supportedUrls: {},
    doGenerate: () => Promise.reject(new Error("stream only")),
    doStream,
  };
}
