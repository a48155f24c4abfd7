/**
 * The request log's batch format (migration 0021): one organization's requests packed as bytes.
 *
 * JSON text costs ~150 bytes a request (~75 KB a write of 500), and on PGlite every byte is copied
 * into WASM, cut into TOAST chunks and written to the WAL on the database thread, which shares the
 * machine's cores with HTTP (~0.03 µs of CPU a byte there, decision 0121). Format 1 takes ~25
 * bytes for a GET of our own, format 2 ~14: what repeats the previous request is a bit, and our
 * request ids (UUID version 7, made when the request came) keep their time as a difference from the
 * request's.
 *
 * Format 2: a version byte (2), then per request, in order:
 *   head        bits 0-1 the request id's form (0 string, 1 UUID, 2 UUID version 7); bit 2 the same
 *               key as the previous request, bit 3 the same method, bit 4 the same path; bit 5 no
 *               error code; bit 6 status 200
 *   time        zigzag varint, epoch ms minus the previous request's (0 before the first)
 *   request id  string | 16 bytes (a canonical lowercase UUID) | version 7: zigzag varint, its
 *               time minus the request's, then its last 10 bytes
 *   key id, method, path        string reference, each unless the same as the previous request's
 *   status                      unsigned varint, unless 200
 *   latency ms                  unsigned varint
 *   error code                  string reference, unless none
 * Format 1 (still read): a version byte (1), then per request: request id (0x00 + 16 bytes | 0x01
 * + string), key id, method, path (string references), status, latency ms (unsigned varints), error
 * code (string reference), time (as in format 2).
 * string: unsigned varint byte length + UTF-8. String reference: unsigned varint r; 0 is null, an
 * odd r is a new string of (r - 1) / 2 bytes that follows and takes the next number of the batch's
 * table, an even r is the table's string number r / 2 - 1.
 */

/** One request as the log reads it: [request id, key id, method, path, status, latency ms, error code, epoch ms]. */
export type Entry = [string, string | null, string, string, number, number, string | null, number];

/** What a batch keeps of a request (its bodies, for errors, go to request_log_errors). */
export interface PackedRecord {
  requestId: string;
  keyId: string | null;
  method: string;
  path: string;
  status: number;
  latencyMs: number;
  errorCode: string | null;
}

const VERSION = 2;
const ID_STRING = 0;
const ID_UUID = 1;
const ID_V7 = 2;
const SAME_KEY = 4;
const SAME_METHOD = 8;
const SAME_PATH = 16;
const NO_ERROR = 32;
const STATUS_200 = 64;
/** What no field of a request holds: the previous request's fields before the first one. */
const NONE = Symbol('none');

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/** The ASCII codes' values as lowercase hex digits, or -1: a load per digit instead of four comparisons. */
const HEX_VALUE = new Int8Array(128).fill(-1);
for (let i = 0; i < 16; i++) HEX_VALUE['0123456789abcdef'.charCodeAt(i)] = i;
const hexValue = (c: number): number => (c < 128 ? HEX_VALUE[c] : -1);

/**
 * Writes a canonical lowercase UUID's 16 bytes at `at`; false (and nothing that counts written)
 * for anything else. One pass, no regular expression: it runs for every request.
 */
function uuidInto(id: string, buf: Uint8Array, at: number): boolean {
  if (id.length !== 36) return false;
  let j = at;
  for (let i = 0; i < 36; i += 2) {
    if (i === 8 || i === 13 || i === 18 || i === 23) {
      if (id.charCodeAt(i) !== 45) return false;
      i++;
    }
    const hi = hexValue(id.charCodeAt(i));
    const lo = hexValue(id.charCodeAt(i + 1));
    if (hi < 0 || lo < 0) return false;
    buf[j++] = (hi << 4) | lo;
  }
  return true;
}

/** Version 7 and the RFC's variant: the first 6 bytes are the time in ms. */
const isV7 = (b: Uint8Array) => b[6] >> 4 === 7 && (b[8] & 0xc0) === 0x80;
const zigzag = (n: number) => (n >= 0 ? n * 2 : -n * 2 - 1);
const unzigzag = (z: number) => (z % 2 === 0 ? z / 2 : -(z + 1) / 2);

function uuidText(b: Uint8Array, at: number): string {
  const h = (i: number) => HEX[b[at + i]];
  return `${h(0)}${h(1)}${h(2)}${h(3)}-${h(4)}${h(5)}-${h(6)}${h(7)}-${h(8)}${h(9)}-${h(10)}${h(11)}${h(12)}${h(13)}${h(14)}${h(15)}`;
}

/** Bytes in, appended as requests come: starts at one request's size and doubles. */
export class PackedWriter {
  private buf = Buffer.allocUnsafeSlow(1024);
  private len = 1;
  private readonly strings = new Map<string, number>();
  private readonly id = new Uint8Array(16);
  private lastAt = 0;
  private lastKey: string | null | typeof NONE = NONE;
  private lastMethod: string | typeof NONE = NONE;
  private lastPath: string | typeof NONE = NONE;

  constructor() {
    this.buf[0] = VERSION;
  }

  add(r: PackedRecord, at: number): void {
    // The most a request can take: fixed fields and every string new, at 3 UTF-8 bytes per unit.
    const strings = r.requestId.length + (r.keyId?.length ?? 0) + r.method.length + r.path.length;
    this.reserve(80 + 3 * (strings + (r.errorCode?.length ?? 0)));
    const head = this.len++;
    // Whole ms: a fraction would not survive the varints.
    const t = Number.isFinite(at) ? Math.round(at) : this.lastAt;
    this.varint(zigzag(t - this.lastAt));
    this.lastAt = t;
    let flags = this.requestId(r.requestId, t);
    if (r.keyId === this.lastKey) flags |= SAME_KEY;
    else this.ref((this.lastKey = r.keyId));
    if (r.method === this.lastMethod) flags |= SAME_METHOD;
    else this.ref((this.lastMethod = r.method));
    if (r.path === this.lastPath) flags |= SAME_PATH;
    else this.ref((this.lastPath = r.path));
    const status = whole(r.status);
    if (status === 200) flags |= STATUS_200;
    else this.varint(status);
    this.varint(whole(r.latencyMs));
    if (r.errorCode === null) flags |= NO_ERROR;
    else this.ref(r.errorCode);
    this.buf[head] = flags;
  }

  bytes(): Buffer {
    return this.buf.subarray(0, this.len);
  }

  /** The id in its shortest form; returns the form's bits of the head. */
  private requestId(id: string, t: number): number {
    const b = this.id;
    if (!uuidInto(id, b, 0)) {
      this.string(id);
      return ID_STRING;
    }
    if (!isV7(b)) {
      this.buf.set(b, this.len);
      this.len += 16;
      return ID_UUID;
    }
    this.varint(zigzag(b[0] * 2 ** 40 + b[1] * 2 ** 32 + ((b[2] << 24) >>> 0) + (b[3] << 16) + (b[4] << 8) + b[5] - t));
    for (let i = 6; i < 16; i++) this.buf[this.len++] = b[i];
    return ID_V7;
  }

  private reserve(n: number): void {
    if (this.len + n <= this.buf.length) return;
    const grown = Buffer.allocUnsafeSlow(Math.max(this.len + n, this.buf.length * 2));
    this.buf.copy(grown, 0, 0, this.len);
    this.buf = grown;
  }

  /** LEB128, by arithmetic: times reach past 2^32. */
  private varint(n: number): void {
    while (n >= 128) {
      this.buf[this.len++] = (n % 128) | 128;
      n = Math.floor(n / 128);
    }
    this.buf[this.len++] = n;
  }

  private string(s: string): void {
    this.varint(Buffer.byteLength(s, 'utf8'));
    this.len += this.buf.write(s, this.len, 'utf8');
  }

  private ref(s: string | null): void {
    if (s === null) {
      this.buf[this.len++] = 0;
      return;
    }
    const known = this.strings.get(s);
    if (known !== undefined) {
      this.varint((known + 1) * 2);
      return;
    }
    this.strings.set(s, this.strings.size);
    this.varint(Buffer.byteLength(s, 'utf8') * 2 + 1);
    this.len += this.buf.write(s, this.len, 'utf8');
  }
}

const whole = (n: number) => (Number.isFinite(n) && n > 0 ? Math.min(Math.round(n), 2 ** 31) : 0);

/** Reads a batch's bytes in order: numbers, strings and the batch's table of strings. */
class Reader {
  at = 1;
  private readonly table: string[] = [];
  constructor(readonly buf: Buffer) {}

  more(): boolean {
    return this.at < this.buf.length;
  }
  byte(): number {
    if (this.at >= this.buf.length) throw new Error('request log batch cut short');
    return this.buf[this.at++];
  }
  varint(): number {
    let n = 0;
    // A row cut short must fail (byte()), not read past its end for ever.
    for (let mul = 1; ; mul *= 128) {
      const b = this.byte();
      n += (b & 127) * mul;
      if (b < 128) return n;
    }
  }
  bytes(n: number): number {
    if (this.at + n > this.buf.length) throw new Error('request log batch cut short');
    this.at += n;
    return this.at - n;
  }
  string(len = this.varint()): string {
    const from = this.bytes(len);
    return this.buf.toString('utf8', from, from + len);
  }
  ref(): string | null {
    const r = this.varint();
    if (r === 0) return null;
    if (r % 2 === 0) {
      const s = this.table[r / 2 - 1];
      if (s === undefined) throw new Error('request log batch refers to a string it does not hold');
      return s;
    }
    const s = this.string((r - 1) / 2);
    this.table.push(s);
    return s;
  }
}

/** The requests of a packed batch, in the order they were recorded. */
export function unpack(bytes: Uint8Array): Entry[] {
  const r = new Reader(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  if (r.buf[0] === 1) return unpackV1(r);
  if (r.buf[0] !== VERSION) throw new Error(`request log batch of unknown format ${r.buf[0]}`);
  const out: Entry[] = [];
  const id = new Uint8Array(16);
  let time = 0;
  let prev: Entry | null = null;
  while (r.more()) {
    const head = r.byte();
    time += unzigzag(r.varint());
    let requestId: string;
    const form = head & 3;
    if (form === ID_STRING) requestId = r.string();
    else if (form === ID_UUID) requestId = uuidText(r.buf, r.bytes(16));
    else if (form === ID_V7) {
      let t = time + unzigzag(r.varint());
      for (let i = 5; i >= 0; i--) {
        id[i] = t % 256;
        t = Math.floor(t / 256);
      }
      id.set(r.buf.subarray(r.bytes(10), r.at), 6);
      requestId = uuidText(id, 0);
    } else throw new Error(`request log batch with an unknown request id form ${form}`);
    if (!prev && head & (SAME_KEY | SAME_METHOD | SAME_PATH))
      throw new Error('request log batch repeats a request before its first');
    const key: string | null = head & SAME_KEY ? prev![1] : r.ref();
    const method: string = head & SAME_METHOD ? prev![2] : (r.ref() ?? '');
    const path: string = head & SAME_PATH ? prev![3] : (r.ref() ?? '');
    const status = head & STATUS_200 ? 200 : r.varint();
    const latency = r.varint();
    const code = head & NO_ERROR ? null : r.ref();
    prev = [requestId, key, method, path, status, latency, code, time];
    out.push(prev);
  }
  return out;
}

function unpackV1(r: Reader): Entry[] {
  const out: Entry[] = [];
  let time = 0;
  while (r.more()) {
    const id = r.byte() === 0 ? uuidText(r.buf, r.bytes(16)) : r.string();
    const key = r.ref();
    const method = r.ref() ?? '';
    const path = r.ref() ?? '';
    const status = r.varint();
    const latency = r.varint();
    const code = r.ref();
    time += unzigzag(r.varint());
    out.push([id, key, method, path, status, latency, code, time]);
  }
  return out;
}

/**
 * Bytes that a packed batch holding this request id contains, in either format: a search for them
 * in SQL (`position(… IN packed)`) finds every batch that has it, and a few that merely look alike.
 * For a version 7 id, its last 10 bytes (80 of them random).
 */
export function packedId(requestId: string): Buffer {
  const bytes = Buffer.alloc(16);
  if (!uuidInto(requestId, bytes, 0)) return Buffer.from(requestId, 'utf8');
  return isV7(bytes) ? bytes.subarray(6) : bytes;
}
