/** The embedder contract, apart from the factory so the implementations need not import it. */
export interface EmbedOptions {
  signal?: AbortSignal;
  /** Called after each text (offline) or batch (remote) with the number of texts embedded so far. */
  onProgress?: (done: number, total: number) => void;
}

export interface Embedder {
  /** Stable identifier stored with the index; vectors from different names must not be mixed. */
  readonly name: string;
  readonly dimension: number;
  /** One L2-comparable vector per text, in input order. */
  embed(texts: string[], opts?: EmbedOptions): Promise<number[][]>;
}
