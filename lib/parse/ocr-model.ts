/**
 * The OCR models' graphs made cheaper to run, before ONNX Runtime loads them (lib/parse/ocr-engine.ts), computing the
 * same function. PP-OCRv4's backbone (PP-LCNetV3) follows each convolution with a learnable scale and shift and a hard
 * swish, all exported as single-number Mul, Add, Clip and Div nodes over the whole feature map: ONNX Runtime fuses
 * none of them (its Conv+Mul fusion wants a per-channel operand), and they took half the recogniser's CPU time.
 * Here a scale and shift after a convolution go into its weights and bias, one before a convolution into its weights
 * (with the shift into its bias where it pads nothing, else one Add), and each hard swish becomes HardSigmoid × x.
 */
import {
  bytesField,
  constantNode,
  type FloatTensor,
  floatAttribute,
  join,
  type OnnxNode,
  type Pieces,
  readAttribute,
  readFields,
  readFloatTensor,
  readNode,
  writeNode,
} from "./onnx-wire";

/** Names of the constants the folds make. */
const MADE = "folded_constant_";

interface Node extends OnnxNode {
  raw: Uint8Array;
  changed?: boolean;
  removed?: boolean;
}

/** The graph's nodes, its float constants and who reads each value. */
class Graph {
  /** Constants' TensorProto bytes, read into `consts` (a copy, which the folds change) when first used. */
  private readonly tensors = new Map<string, Uint8Array>();
  private readonly consts = new Map<string, FloatTensor | undefined>();
  readonly changedConsts = new Set<string>();
  readonly readers = new Map<string, Node[]>();
  private made = 0;

  constructor(
    nodes: Node[],
    private readonly outputs: Set<string>,
  ) {
    for (const n of nodes) {
      for (const i of n.inputs) {
        const readers = this.readers.get(i);
        if (readers) readers.push(n);
        else this.readers.set(i, [n]);
      }
      if (n.op !== "Constant" || n.attributes.length !== 1) continue;
      const a = readAttribute(n.attributes[0]);
      if (a.name === "value" && a.tensor) this.tensors.set(n.outputs[0], a.tensor);
    }
  }

  /** A float constant's tensor, or undefined when the value is not one. */
  const(name: string): FloatTensor | undefined {
    if (!this.consts.has(name)) {
      const bytes = this.tensors.get(name);
      this.consts.set(name, bytes && readFloatTensor(bytes));
    }
    return this.consts.get(name);
  }

  /** The one node reading `value`, where only one does and it is not an output of the graph. */
  onlyReader(value: string, op: string): Node | undefined {
    const readers = this.readers.get(value) ?? [];
    return readers.length === 1 && readers[0].op === op && !this.outputs.has(value) ? readers[0] : undefined;
  }

  /** The single number a binary node combines `value` with, or undefined when its other operand is not one. */
  scalarBeside(n: Node, value: string): number | undefined {
    if (n.inputs.length !== 2 || !n.inputs.includes(value)) return undefined;
    return this.scalar(n.inputs[0] === value ? n.inputs[1] : n.inputs[0]);
  }

  scalar(name: string | undefined): number | undefined {
    const t = name === undefined ? undefined : this.const(name);
    return t?.data.length === 1 ? t.data[0] : undefined;
  }

  /** A constant read by node `n` alone, which may then be changed in place. */
  ownConst(n: Node, index: number): FloatTensor | undefined {
    const name = n.inputs[index];
    return name !== undefined && this.readers.get(name)?.length === 1 ? this.const(name) : undefined;
  }

  /**
   * A convolution's bias, its own to change: zeros made where it has none, a copy where another node reads it too;
   * undefined where it is not a float constant.
   */
  bias(conv: Node, channels: number): FloatTensor | undefined {
    const name = conv.inputs[2];
    if (!name) return this.newConst(conv, 2, { dims: [channels], data: new Float32Array(channels) });
    const own = this.ownConst(conv, 2);
    if (own) {
      this.changedConsts.add(name);
      return own;
    }
    const shared = this.const(name);
    return shared && this.newConst(conv, 2, { dims: [...shared.dims], data: shared.data.slice() });
  }

  /** Sets node `n`'s input `index` to a new constant. */
  newConst(n: Node, index: number, t: FloatTensor): FloatTensor {
    const name = `${MADE}${this.made++}`;
    this.consts.set(name, t);
    this.changedConsts.add(name);
    n.inputs[index] = name;
    this.readers.set(name, [n]);
    n.changed = true;
    return t;
  }

  remove(...nodes: Node[]) {
    for (const n of nodes) n.removed = true;
  }

  /** Node `n` now reads `to` where it read `from`. */
  rewire(n: Node, from: string, to: string) {
    n.inputs = n.inputs.map((i) => (i === from ? to : i));
    this.readers.set(to, [...(this.readers.get(to) ?? []).filter((r) => r !== n), n]);
    n.changed = true;
  }
}

/** Conv → Mul(s) → Add(b): the convolution's weights × s, its bias × s + b. */
function foldAfterConv(g: Graph, conv: Node) {
  const weights = g.ownConst(conv, 1);
  if (!weights) return;
  const mul = g.onlyReader(conv.outputs[0], "Mul");
  const s = mul && g.scalarBeside(mul, conv.outputs[0]);
  if (!mul || s === undefined) return;
  const add = g.onlyReader(mul.outputs[0], "Add");
  const shift = add && g.scalarBeside(add, mul.outputs[0]);
  const last = add && shift !== undefined ? add : mul;
  const b = shift ?? 0;
  const bias = g.bias(conv, weights.dims[0]);
  if (!bias) return;
  for (let i = 0; i < weights.data.length; i++) weights.data[i] *= s;
  g.changedConsts.add(conv.inputs[1]);
  for (let i = 0; i < bias.data.length; i++) bias.data[i] = bias.data[i] * s + b;
  conv.outputs = [last.outputs[0]];
  conv.changed = true;
  g.remove(...(last === mul ? [mul] : [mul, last]));
}

/** Add(x, 3) → Clip(0, 6) → Mul(x, ·) → Div(6), PaddlePaddle's hard swish: HardSigmoid(x; 1/6, 0.5) × x. */
function foldHardSwish(g: Graph, add: Node) {
  if (g.scalarBeside(add, add.inputs[0]) !== 3 && g.scalarBeside(add, add.inputs[1]) !== 3) return;
  const x = g.scalar(add.inputs[1]) === 3 ? add.inputs[0] : add.inputs[1];
  const clip = g.onlyReader(add.outputs[0], "Clip");
  if (!clip) return;
  const attrs = new Map(clip.attributes.map((f) => readAttribute(f)).map((a) => [a.name, a.f]));
  const [min, max] = clip.inputs.length > 1 ? [g.scalar(clip.inputs[1]), g.scalar(clip.inputs[2])] : [attrs.get("min"), attrs.get("max")];
  if (min !== 0 || max !== 6) return;
  const mul = g.onlyReader(clip.outputs[0], "Mul");
  if (!mul?.inputs.includes(x)) return;
  const div = g.onlyReader(mul.outputs[0], "Div");
  if (!div || div.inputs[0] !== mul.outputs[0] || g.scalar(div.inputs[1]) !== 6) return;
  Object.assign(add, {
    op: "HardSigmoid",
    inputs: [x],
    attributes: [floatAttribute("alpha", 1 / 6), floatAttribute("beta", 0.5)],
    changed: true,
  });
  Object.assign(mul, { inputs: [x, add.outputs[0]], outputs: div.outputs, changed: true });
  g.remove(clip, div);
}

/**
 * Mul(x, s) → Add(b) → Conv: the convolution's weights × s; where it pads nothing and sees one pixel at a time (1 × 1),
 * b × its weights' sum goes into its bias, else Add(x, b / s) stays before it (its padding is zeros either way).
 */
function foldBeforeConv(g: Graph, mul: Node) {
  const x = mul.inputs.find((i) => g.scalar(i) === undefined);
  const s = x === undefined ? undefined : g.scalarBeside(mul, x);
  if (x === undefined || s === undefined || s === 0) return;
  const add = g.onlyReader(mul.outputs[0], "Add");
  const b = add && g.scalarBeside(add, mul.outputs[0]);
  if (!add || b === undefined) return;
  const conv = g.onlyReader(add.outputs[0], "Conv");
  const weights = conv?.inputs[0] === add.outputs[0] ? g.ownConst(conv, 1) : undefined;
  if (!conv || !weights) return;
  const attrs = conv.attributes.map((f) => readAttribute(f));
  const pads = attrs.find((a) => a.name === "pads")?.ints ?? [];
  const autoPad = attrs.some((a) => a.name === "auto_pad");
  const pointwise = weights.dims.slice(2).every((d) => d === 1) && pads.every((p) => p === 0) && !autoPad;
  const perOutput = weights.data.length / weights.dims[0];
  const bias = pointwise ? g.bias(conv, weights.dims[0]) : undefined;
  if (bias) {
    for (let o = 0; o < weights.dims[0]; o++) {
      let sum = 0;
      for (let i = o * perOutput; i < (o + 1) * perOutput; i++) sum += weights.data[i];
      bias.data[o] += b * sum;
    }
    g.rewire(conv, add.outputs[0], x);
    g.remove(mul, add);
  } else {
    g.newConst(add, add.inputs.indexOf(mul.outputs[0]) === 0 ? 1 : 0, { dims: [], data: new Float32Array([b / s]) });
    g.rewire(add, mul.outputs[0], x);
    g.remove(mul);
  }
  for (let i = 0; i < weights.data.length; i++) weights.data[i] *= s;
  g.changedConsts.add(conv.inputs[1]);
}

/** The model (ONNX, as read from its file) with the folds above; a graph they do not match is written back unchanged. */
export function foldModel(model: Uint8Array): Uint8Array {
  const top = readFields(model);
  const graphField = top.find((f) => f.no === 7);
  if (!graphField) return model;
  const graphFields = readFields(graphField.value as Uint8Array);
  const nodes: Node[] = graphFields
    .filter((f) => f.no === 1)
    .map((f) => ({ ...readNode(f.value as Uint8Array), raw: f.value as Uint8Array }));
  const outputs = new Set(
    graphFields
      .filter((f) => f.no === 12)
      .map((f) => new TextDecoder().decode(readFields(f.value as Uint8Array).find((v) => v.no === 1)?.value as Uint8Array)),
  );
  const g = new Graph(nodes, outputs);
  for (const n of nodes) if (n.op === "Conv" && !n.removed) foldAfterConv(g, n);
  for (const n of nodes) if (n.op === "Add" && !n.removed) foldHardSwish(g, n);
  for (const n of nodes) if (n.op === "Mul" && !n.removed) foldBeforeConv(g, n);

  const kept = nodes.filter((n) => !n.removed);
  const read = new Set([...kept.flatMap((n) => n.inputs), ...outputs]);
  const constant = (name: string) => writeNode(constantNode(name, g.const(name) as FloatTensor));
  const made = [...g.changedConsts].filter((name) => name.startsWith(MADE) && read.has(name));
  const written: Pieces[] = [
    ...made.map(constant),
    ...kept
      .filter((n) => n.op !== "Constant" || read.has(n.outputs[0]))
      .map((n) => {
        if (n.op === "Constant" && g.changedConsts.has(n.outputs[0])) return constant(n.outputs[0]);
        return n.changed ? writeNode(n) : [n.raw];
      }),
  ];
  const graph = [...written.flatMap((n) => bytesField(1, n)), ...graphFields.filter((f) => f.no !== 1).map((f) => f.raw)];
  return join(top.flatMap((f) => (f === graphField ? bytesField(7, graph) : [f.raw])));
}
