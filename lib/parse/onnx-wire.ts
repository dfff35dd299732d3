/**
 * Just enough of the protocol-buffer wire format to read and rewrite an ONNX model's graph (lib/parse/ocr-model.ts):
 * a message is a list of fields, each kept as its bytes, so whatever is not rewritten is written back as it was read.
 * ONNX's numbers of the fields used: https://github.com/onnx/onnx/blob/main/onnx/onnx.proto
 */

/** One field of a message: its number, wire type, value (a varint, or the bytes of a length-delimited or fixed one) and its whole encoding. */
export interface Field {
  no: number;
  wireType: number;
  value: bigint | Uint8Array;
  raw: Uint8Array;
}

const VARINT = 0;
const FIXED64 = 1;
const BYTES = 2;
const FIXED32 = 5;

/** The fields of a message, in order. */
export function readFields(buf: Uint8Array): Field[] {
  const out: Field[] = [];
  let p = 0;
  const varint = (): bigint => {
    let value = 0n;
    for (let shift = 0n; ; shift += 7n) {
      if (p >= buf.length) throw new Error("Truncated protocol buffer.");
      const b = buf[p++];
      value |= BigInt(b & 0x7f) << shift;
      if (b < 0x80) return value;
    }
  };
  const take = (n: number) => {
    if (p + n > buf.length) throw new Error("Truncated protocol buffer.");
    p += n;
    return buf.subarray(p - n, p);
  };
  while (p < buf.length) {
    const start = p;
    const key = Number(varint());
    const wireType = key & 7;
    let value: bigint | Uint8Array;
    if (wireType === VARINT) value = varint();
    else if (wireType === FIXED64) value = take(8);
    else if (wireType === BYTES) value = take(Number(varint()));
    else if (wireType === FIXED32) value = take(4);
    else throw new Error(`Unsupported protocol-buffer wire type ${wireType}.`);
    out.push({ no: key >>> 3, wireType, value, raw: buf.subarray(start, p) });
  }
  return out;
}

const bytes = (f: Field) => f.value as Uint8Array;
const text = (f: Field) => new TextDecoder().decode(bytes(f));

function varintBytes(n: number): number[] {
  const out: number[] = [];
  let v = n;
  while (v > 127) {
    out.push((v & 127) | 128);
    v = Math.floor(v / 128);
  }
  out.push(v);
  return out;
}

/**
 * An encoding in pieces, copied once into one array at the end (join): a model's tensors are megabytes, and a field
 * holding a message needs its length before its bytes.
 */
export type Pieces = Uint8Array[];

const sizeOf = (pieces: Pieces) => pieces.reduce((n, p) => n + p.length, 0);

export function join(pieces: Pieces): Uint8Array {
  const out = new Uint8Array(sizeOf(pieces));
  let at = 0;
  for (const p of pieces) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** A length-delimited field (a string, bytes or a message). */
export function bytesField(no: number, value: Uint8Array | string | Pieces): Pieces {
  const payload = typeof value === "string" ? [new TextEncoder().encode(value)] : Array.isArray(value) ? value : [value];
  return [new Uint8Array([...varintBytes((no << 3) | BYTES), ...varintBytes(sizeOf(payload))]), ...payload];
}

function varintField(no: number, value: number): Uint8Array {
  return new Uint8Array([...varintBytes((no << 3) | VARINT), ...varintBytes(value)]);
}

function floatField(no: number, value: number): Uint8Array {
  const out = new Uint8Array(5);
  out[0] = (no << 3) | FIXED32;
  new DataView(out.buffer).setFloat32(1, value, true);
  return out;
}

/** An ONNX NodeProto: inputs, outputs, name, operator and its attributes (AttributeProto, as read). */
export interface OnnxNode {
  inputs: string[];
  outputs: string[];
  name: string;
  op: string;
  attributes: Field[];
}

export function readNode(buf: Uint8Array): OnnxNode {
  const node: OnnxNode = { inputs: [], outputs: [], name: "", op: "", attributes: [] };
  for (const f of readFields(buf)) {
    if (f.no === 1) node.inputs.push(text(f));
    else if (f.no === 2) node.outputs.push(text(f));
    else if (f.no === 3) node.name = text(f);
    else if (f.no === 4) node.op = text(f);
    else if (f.no === 5) node.attributes.push(f);
  }
  return node;
}

export function writeNode(node: OnnxNode): Pieces {
  return [
    ...node.inputs.flatMap((i) => bytesField(1, i)),
    ...node.outputs.flatMap((o) => bytesField(2, o)),
    ...bytesField(3, node.name),
    ...bytesField(4, node.op),
    ...node.attributes.map((a) => a.raw),
  ];
}

/** A node's attribute field (5) from its AttributeProto's pieces. */
function attributeField(pieces: Pieces): Field {
  const raw = join(bytesField(5, pieces));
  return { ...readFields(raw)[0], raw };
}

/** An AttributeProto field holding one float (type FLOAT). */
export function floatAttribute(name: string, value: number): Field {
  return attributeField([...bytesField(1, name), floatField(2, value), varintField(20, 1)]);
}

/** An attribute's name, and its value: a float, an integer, a list of integers, or a tensor's bytes. */
export function readAttribute(f: Field): { name: string; f?: number; i?: number; ints: number[]; tensor?: Uint8Array } {
  const out: ReturnType<typeof readAttribute> = { name: "", ints: [] };
  for (const a of readFields(bytes(f))) {
    if (a.no === 1) out.name = text(a);
    else if (a.no === 2) out.f = new DataView(bytes(a).buffer, bytes(a).byteOffset).getFloat32(0, true);
    else if (a.no === 3) out.i = Number(BigInt.asIntN(64, a.value as bigint));
    else if (a.no === 5) out.tensor = bytes(a);
    else if (a.no === 8) {
      if (a.wireType === VARINT) out.ints.push(Number(BigInt.asIntN(64, a.value as bigint)));
      else for (const v of readPacked(bytes(a))) out.ints.push(v);
    }
  }
  return out;
}

function readPacked(buf: Uint8Array): number[] {
  const out: number[] = [];
  let value = 0n;
  let shift = 0n;
  for (const b of buf) {
    value |= BigInt(b & 0x7f) << shift;
    shift += 7n;
    if (b < 0x80) {
      out.push(Number(BigInt.asIntN(64, value)));
      value = 0n;
      shift = 0n;
    }
  }
  return out;
}

/** A float32 tensor (TensorProto with raw_data): its shape and values. */
export interface FloatTensor {
  dims: number[];
  data: Float32Array;
}

const FLOAT = 1;

/** A TensorProto's floats, or undefined when it holds another type or keeps its values elsewhere than raw_data. */
export function readFloatTensor(buf: Uint8Array): FloatTensor | undefined {
  const dims: number[] = [];
  let type = 0;
  let raw: Uint8Array | undefined;
  for (const f of readFields(buf)) {
    if (f.no === 1) {
      if (f.wireType === VARINT) dims.push(Number(f.value));
      else dims.push(...readPacked(bytes(f)));
    } else if (f.no === 2) type = Number(f.value);
    else if (f.no === 9) raw = bytes(f);
  }
  if (type !== FLOAT || !raw || raw.length !== 4 * dims.reduce((a, b) => a * b, 1)) return undefined;
  const data = new Float32Array(raw.length / 4);
  new Uint8Array(data.buffer).set(raw);
  return { dims, data };
}

/** A Constant node whose output `name` is the tensor. */
export function constantNode(name: string, t: FloatTensor): OnnxNode {
  const tensor = [
    ...t.dims.map((d) => varintField(1, d)),
    varintField(2, FLOAT),
    ...bytesField(8, name),
    ...bytesField(9, new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength)),
  ];
  const TENSOR = 4;
  const value = attributeField([...bytesField(1, "value"), ...bytesField(5, tensor), varintField(20, TENSOR)]);
  return { inputs: [], outputs: [name], name, op: "Constant", attributes: [value] };
}
