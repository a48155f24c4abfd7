/**
 * The request log's batch format (migration 0021): one organization's requests packed as bytes.
 *
 * JSON text cost ~150 bytes a request (~75 KB a write of 500), and on PGlite every byte is copied
 * into WASM, cut into TOAST chunks and written to the WAL on the database thread, which shares the
 * machine's cores with HTTP. Packed, a request takes ~25-50 bytes: our request ids as their 16
 * bytes, and a string (key, method, path, error code) written once per batch and referred to after.
 *
 * Layout: a version byte (1), then per request, in order:
 *   request id   0x00 + 16 bytes (a canonical lowercase UUID) | 0x01 + string
 *   key id, method, path        string reference
 *   status, latency ms          unsigned varint
 *   error code                  string reference
 *   time                        zigzag varint, epoch ms minus the previous request's (0 before the first)
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

const VERSION = 1;
const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/** The ASCII codes' values as lowercase hex digits, or -1: a load per digit instead of four comparisons. */
const HEX_VALUE = new Int8Array(128).fill(-1);
for (let i = 0; i < 16; i++) HEX_VALUE['0123456789abcdef'.charCodeAt(i)] = i;
const hexValue = (c: number): number => (c < 128 ? HEX_VALUE[c] : -1);

/**
 * Writes a canonical lowercase UUID's 16 bytes at `at`; false (and nothing that counts written)
 * for anything else. One pass, no regular expression: it runs for every request.
 */
function uuidInto(id: string, buf: Buffer, at: number): boolean {
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

/** Bytes in, appended as requests come: starts at one request's size and doubles. */
export class PackedWriter {
  private buf = Buffer.allocUnsafeSlow(1024);
  private len = 1;
  private readonly strings = new Map<string, number>();
  /**
   * The last string each field (key, method, path, error code) referred to and its reference: a
   * busy client repeats them request after request, and a comparison with the last one spares the
   * table's lookup (a hash of the text) on the request path.
   */
  private readonly last: Array<string | null> = [null, null, null, null];
  private readonly lastRef = [0, 0, 0, 0];
  private lastAt = 0;

  constructor() {
    this.buf[0] = VERSION;
  }

  add(r: PackedRecord, at: number): void {
    // The most a request can take: fixed fields and every string new, at 3 UTF-8 bytes per unit.
    const strings = r.requestId.length + (r.keyId?.length ?? 0) + r.method.length + r.path.length;
    this.reserve(80 + 3 * (strings + (r.errorCode?.length ?? 0)));
    if (uuidInto(r.requestId, this.buf, this.len + 1)) {
      this.buf[this.len] = 0;
      this.len += 17;
    } else {
      this.buf[this.len++] = 1;
      this.string(r.requestId);
    }
    this.ref(r.keyId, 0);
    this.ref(r.method, 1);
    this.ref(r.path, 2);
    this.varint(whole(r.status));
    this.varint(whole(r.latencyMs));
    this.ref(r.errorCode, 3);
    const t = Number.isFinite(at) ? at : this.lastAt;
    const d = t - this.lastAt;
    this.varint(d >= 0 ? d * 2 : -d * 2 - 1);
    this.lastAt = t;
  }

  bytes(): Buffer {
    return this.buf.subarray(0, this.len);
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

  /** `field`: which of the last strings to compare with (key, method, path, error code). */
  private ref(s: string | null, field: number): void {
    if (s === null) {
      this.buf[this.len++] = 0;
      return;
    }
    if (s === this.last[field]) {
      this.varint(this.lastRef[field]);
      return;
    }
    this.last[field] = s;
    const known = this.strings.get(s);
    if (known !== undefined) {
      this.varint((this.lastRef[field] = (known + 1) * 2));
      return;
    }
    this.lastRef[field] = (this.strings.size + 1) * 2;
    this.strings.set(s, this.strings.size);
    this.varint(Buffer.byteLength(s, 'utf8') * 2 + 1);
    this.len += this.buf.write(s, this.len, 'utf8');
  }
}

const whole = (n: number) => (Number.isFinite(n) && n > 0 ? Math.min(Math.round(n), 2 ** 31) : 0);

/** The requests of a packed batch, in the order they were recorded. */
export function unpack(bytes: Uint8Array): Entry[] {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buf[0] !== VERSION) throw new Error(`request log batch of unknown format ${buf[0]}`);
  let at = 1;
  const varint = (): number => {
    let n = 0;
    for (let mul = 1; ; mul *= 128) {
      // A row cut short must fail, not read past its end for ever.
      if (at >= buf.length) throw new Error('request log batch cut short');
      const b = buf[at++];
      n += (b & 127) * mul;
      if (b < 128) return n;
    }
  };
  const string = (len: number): string => {
    const s = buf.toString('utf8', at, at + len);
    at += len;
    return s;
  };
  const table: string[] = [];
  const ref = (): string | null => {
    const r = varint();
    if (r === 0) return null;
    if (r % 2 === 0) return table[r / 2 - 1];
    const s = string((r - 1) / 2);
    table.push(s);
    return s;
  };
  const out: Entry[] = [];
  let time = 0;
  while (at < buf.length) {
    let id: string;
    if (buf[at++] === 0) {
      const h = (i: number) => HEX[buf[at + i]];
      id = `${h(0)}${h(1)}${h(2)}${h(3)}-${h(4)}${h(5)}-${h(6)}${h(7)}-${h(8)}${h(9)}-${h(10)}${h(11)}${h(12)}${h(13)}${h(14)}${h(15)}`;
      at += 16;
    } else id = string(varint());
    const key = ref();
    const method = ref() ?? '';
    const path = ref() ?? '';
    const status = varint();
    const latency = varint();
    const code = ref();
    const z = varint();
    time += z % 2 === 0 ? z / 2 : -(z + 1) / 2;
    out.push([id, key, method, path, status, latency, code, time]);
  }
  return out;
}

/**
 * What a packed batch holding this request id contains, byte for byte: a search for it in SQL
 * (`position(… IN packed)`) finds every batch that has it, and a few that merely look alike.
 */
export function packedId(requestId: string): Buffer {
  const bytes = Buffer.alloc(17);
  return uuidInto(requestId, bytes, 1) ? bytes : Buffer.from(requestId, 'utf8');
}
