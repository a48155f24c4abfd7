/**
 * One statement's protocol messages for the PGlite worker, built in one buffer of the exact size:
 * Bind (the named statement, its values), Describe the portal, Execute, Sync. Byte for byte what
 * PGlite's own serializers give (test/platform/pglite-protocol.test.ts), without their copies: for a
 * bytes value PGlite's `bind` makes five (a slice of it, a parameter writer growing and its flush, the
 * message writer growing and its flush) and joins the four messages into a sixth. V8 counts the
 * bytes of ArrayBuffers made since its last full collection against the heap's limit, and a
 * request-log write carries ~112 KB: with those copies the worker's isolate collects every ~17 such
 * writes, with one copy 3 times in 300 (decision 0148). One copy is made, besides the
 * structured clone that brought the value to this thread.
 */

/** A parameter as the worker sends it: text (already serialized), bytes (binary format) or NULL. */
export type WireValue = string | Uint8Array | null;

const BIND = 66;
/** Describe the unnamed portal, Execute it with no row limit, Sync: fixed messages. */
const TAIL = Uint8Array.from([68, 0, 0, 0, 6, 80, 0, 69, 0, 0, 0, 9, 0, 0, 0, 0, 0, 83, 0, 0, 0, 4]);

export function boundMessage(statement: string, values: readonly WireValue[]): Uint8Array {
  const n = values.length;
  if (n > 65535) throw new Error(`a statement takes at most 65535 parameters, not ${n}`);
  const nameBytes = Buffer.byteLength(statement, 'utf8');
  // Type byte, length, empty portal name, statement name, two counts, a format per value, and the
  // result-format count; each value a length and its bytes.
  let size = 1 + 4 + 1 + nameBytes + 1 + 2 + 2 * n + 2 + 2;
  const lengths = new Array<number>(n);
  for (let i = 0; i < n; i++) {
    const v = values[i];
    lengths[i] = v === null ? 0 : typeof v === 'string' ? Buffer.byteLength(v, 'utf8') : v.byteLength;
    size += 4 + lengths[i];
  }
  const out = Buffer.allocUnsafeSlow(size + TAIL.length);
  let at = 0;
  out[at++] = BIND;
  out.writeInt32BE(size - 1, at);
  at += 4;
  out[at++] = 0;
  at += out.write(statement, at, 'utf8');
  out[at++] = 0;
  out.writeUInt16BE(n, at);
  at += 2;
  for (let i = 0; i < n; i++) at = out.writeInt16BE(values[i] instanceof Uint8Array ? 1 : 0, at);
  out.writeUInt16BE(n, at);
  at += 2;
  for (let i = 0; i < n; i++) {
    const v = values[i];
    if (v === null) {
      at = out.writeInt32BE(-1, at);
      continue;
    }
    at = out.writeInt32BE(lengths[i], at);
    if (typeof v === 'string') at += out.write(v, at, 'utf8');
    else {
      out.set(v, at);
      at += v.byteLength;
    }
  }
  // No result format codes: every column as text, as PGlite's `bind` asks.
  at = out.writeInt16BE(0, at);
  out.set(TAIL, at);
  return out;
}
