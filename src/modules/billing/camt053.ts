import { createHash } from 'node:crypto';
import { type EntityDecoderOptions, XMLParser, XMLValidator } from 'fast-xml-parser';
import { badRequest as platformBadRequest } from '../../platform/errors.ts';

const badRequest = (message: string) => platformBadRequest(message, 'bank_statement_invalid');

/**
 * ISO 20022 camt.053 (BankToCustomerStatement), the statement Dutch banks export: read into the
 * entries a payment import needs. Versions 001.02 to 001.13 share every element read here; the
 * status moved from text (`<Sts>BOOK</Sts>`) into a code (`<Sts><Cd>BOOK</Cd></Sts>`) and the
 * related parties gained a `Pty` level from 001.08, and both forms are read. A document that is not
 * a camt.053 statement is refused whole with a `400` naming the first problem.
 */
export interface CamtEntry {
  /** Unique within the bank account: the entry's reference, the bank's, or a digest of the entry. */
  entryReference: string;
  bookingDate: string;
  amountCents: number;
  currency: string;
  credit: boolean;
  /** Booked (`BOOK`); pending and informational entries are no money yet. */
  booked: boolean;
  reversal: boolean;
  debtorName: string | null;
  debtorAccount: string | null;
  /** The payer's remittance information and references, joined with ` | `. */
  remittance: string;
}
export interface CamtStatement {
  statementId: string;
  bankAccount: string;
  entries: CamtEntry[];
}
export interface CamtDocument {
  version: string;
  messageId: string;
  statements: CamtStatement[];
}

export const CAMT053_MAX_ENTRIES = 20_000;
const NAMESPACE = /\bxmlns(?::[\w.-]+)?\s*=\s*["']urn:iso:std:iso:20022:tech:xsd:([a-z]{4}\.\d{3})\.001\.(\d{2})["']/;
const ARRAYS = new Set(['Stmt', 'Ntry', 'TxDtls', 'Ustrd', 'Strd', 'AddtlTxInf']);

type Node = Record<string, unknown>;
const isNode = (v: unknown): v is Node => typeof v === 'object' && v !== null && !Array.isArray(v);
/** The node at a path, or undefined. */
function at(n: unknown, ...path: string[]): unknown {
  let cur = n;
  for (const p of path) cur = isNode(cur) ? cur[p] : undefined;
  return cur;
}
/** The text of a leaf, with or without attributes. */
function textOf(v: unknown): string | undefined {
  if (typeof v === 'string') return v.trim() || undefined;
  if (isNode(v) && typeof v['#text'] === 'string') return v['#text'].trim() || undefined;
  return undefined;
}
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : v === undefined ? [] : [v]);

/** `123.45` → 12345 cents, exactly (no floating point); more than cents must be zeros. */
export function centsOf(amount: string, where: string): number {
  const m = /^(\d{1,13})(?:\.(\d{1,5}))?$/.exec(amount);
  if (!m) throw badRequest(`${where}: amount "${amount}" is not a decimal number`);
  const frac = (m[2] ?? '').padEnd(5, '0');
  if (frac.slice(2) !== '000') throw badRequest(`${where}: amount ${amount} has fractions of a cent`);
  return Number(m[1]) * 100 + Number(frac.slice(0, 2));
}

function entryOf(ntry: Node, stmt: string, index: number): CamtEntry[] {
  const where = `Stmt ${stmt}, Ntry ${index + 1}`;
  const amt = at(ntry, 'Amt');
  const amount = textOf(amt);
  const currency = isNode(amt) ? String(amt['@_Ccy'] ?? '') : '';
  if (!amount || !/^[A-Z]{3}$/.test(currency)) throw badRequest(`${where}: Amt with a Ccy attribute is required`);
  const indicator = textOf(at(ntry, 'CdtDbtInd'));
  if (indicator !== 'CRDT' && indicator !== 'DBIT') throw badRequest(`${where}: CdtDbtInd must be CRDT or DBIT`);
  const status = textOf(at(ntry, 'Sts', 'Cd')) ?? textOf(at(ntry, 'Sts'));
  if (!status) throw badRequest(`${where}: Sts is required`);
  const date = textOf(at(ntry, 'BookgDt', 'Dt')) ?? textOf(at(ntry, 'BookgDt', 'DtTm'))?.slice(0, 10);
  if (status === 'BOOK' && (!date || !/^\d{4}-\d{2}-\d{2}$/.test(date)))
    throw badRequest(`${where}: a booked entry needs BookgDt`);
  const details = list(at(ntry, 'NtryDtls')).flatMap((d) => list(at(d, 'TxDtls'))) as Node[];
  const reference =
    textOf(at(ntry, 'NtryRef')) ??
    textOf(at(ntry, 'AcctSvcrRef')) ??
    textOf(at(details[0], 'Refs', 'AcctSvcrRef')) ??
    // No reference from the bank: the entry's content and its place in the statement name it.
    `digest:${createHash('sha256')
      .update(JSON.stringify([stmt, index, amount, currency, indicator, date, details]))
      .digest('hex')
      .slice(0, 32)}`;
  const base = {
    bookingDate: date ?? '',
    currency,
    credit: indicator === 'CRDT',
    booked: status === 'BOOK',
    reversal: textOf(at(ntry, 'RvslInd')) === 'true',
  };
  const own = textOf(at(ntry, 'AddtlNtryInf'));
  const partOf = (tx: Node | undefined) => ({
    debtorName: textOf(at(tx, 'RltdPties', 'Dbtr', 'Nm')) ?? textOf(at(tx, 'RltdPties', 'Dbtr', 'Pty', 'Nm')) ?? null,
    debtorAccount:
      textOf(at(tx, 'RltdPties', 'DbtrAcct', 'Id', 'IBAN')) ??
      textOf(at(tx, 'RltdPties', 'DbtrAcct', 'Id', 'Othr', 'Id')) ??
      null,
    remittance: [
      ...list(at(tx, 'RmtInf', 'Ustrd')).map(textOf),
      ...list(at(tx, 'RmtInf', 'Strd')).map((s) => textOf(at(s, 'CdtrRefInf', 'Ref'))),
      textOf(at(tx, 'Refs', 'EndToEndId')),
      ...list(at(tx, 'AddtlTxInf')).map(textOf),
      own,
    ]
      .filter((s): s is string => !!s && s !== 'NOTPROVIDED')
      .join(' | '),
  });
  const total = centsOf(amount, where);
  // A batch booked as one entry, with an amount per transaction: one payment per transaction.
  const parts = details.map((tx) => textOf(at(tx, 'Amt')) ?? textOf(at(tx, 'AmtDtls', 'TxAmt', 'Amt')));
  if (details.length > 1 && parts.every((p) => p !== undefined)) {
    const cents = parts.map((p, i) => centsOf(p!, `${where}, TxDtls ${i + 1}`));
    if (cents.reduce((s, c) => s + c, 0) === total)
      return details.map((tx, i) => ({
        ...base,
        ...partOf(tx),
        entryReference: `${reference}#${i + 1}`,
        amountCents: cents[i],
      }));
  }
  return [{ ...base, ...partOf(details[0]), entryReference: reference, amountCents: total }];
}

const PREDEFINED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
/** XML 1.0 `Char`: the characters a document, and so a character reference, may hold. */
const isXmlChar = (c: number) =>
  c === 0x9 ||
  c === 0xa ||
  c === 0xd ||
  (c >= 0x20 && c <= 0xd7ff) ||
  (c >= 0xe000 && c <= 0xfffd) ||
  (c >= 0x10000 && c <= 0x10ffff);
function decodeReference(ref: string, name: string): string {
  const shown = ref.length > 40 ? `${ref.slice(0, 40)}…` : ref;
  if (!name.startsWith('#')) {
    const value = PREDEFINED[name];
    if (value === undefined)
      throw badRequest(
        `The statement uses the undefined entity ${shown}: camt.053 files use only &amp;, &lt;, &gt;, &quot;, &apos; and character references`,
      );
    return value;
  }
  const code = name[1] === 'x' ? Number.parseInt(name.slice(2), 16) : Number.parseInt(name.slice(1), 10);
  if (!isXmlChar(code))
    throw badRequest(`The statement has the character reference ${shown}, which names a character XML does not allow`);
  return String.fromCodePoint(code);
}
/**
 * Text and attribute values decoded as XML 1.0 does, in one pass: the five predefined entities and
 * character references. fast-xml-parser's own decoder leaves numeric references undecoded unless
 * HTML's named entities are let in too, and drops references to characters XML forbids (NUL, a
 * lone surrogate) without a word; a statement never needs either, so both are refused whole.
 */
const XML_ENTITIES: EntityDecoderOptions = {
  decode: (text) => text.replace(/&(#[0-9]+|#x[0-9a-fA-F]+|[^\s&;]+);/g, decodeReference),
  // A statement has no DOCTYPE (refused before parsing), so it declares no entities.
  setExternalEntities: () => {},
  addInputEntities: () => {},
  reset: () => {},
  setXmlVersion: () => {},
};

export function parseCamt053(xml: string): CamtDocument {
  if (xml.trim() === '') throw badRequest('The statement is empty: upload the camt.053 XML file your bank exports');
  // A statement never has a document type; refusing one keeps entity expansion out entirely.
  if (/<!DOCTYPE|<!ENTITY/i.test(xml)) throw badRequest('The statement has a DOCTYPE; camt.053 files have none');
  const valid = XMLValidator.validate(xml);
  if (valid !== true)
    throw badRequest(`The statement is not well-formed XML: line ${valid.err.line}: ${valid.err.msg}`);
  const ns = NAMESPACE.exec(xml.slice(0, 4096));
  if (!ns)
    throw badRequest(
      'The file is XML but not an ISO 20022 camt.053 statement (no urn:iso:std:iso:20022:tech:xsd:camt.053 namespace)',
    );
  if (ns[1] !== 'camt.053')
    throw badRequest(`The file is ISO 20022 ${ns[1]}, not camt.053: export the account statement (camt.053)`);
  const doc = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '@_',
    removeNSPrefix: true,
    parseTagValue: false,
    parseAttributeValue: false,
    processEntities: true,
    entityDecoder: XML_ENTITIES,
    isArray: (name) => ARRAYS.has(name),
  }).parse(xml) as Node;
  const root = at(doc, 'Document', 'BkToCstmrStmt');
  if (!isNode(root)) throw badRequest('The statement has no Document/BkToCstmrStmt element');
  const messageId = textOf(at(root, 'GrpHdr', 'MsgId'));
  if (!messageId) throw badRequest('GrpHdr/MsgId is required');
  const stmts = list(root.Stmt) as Node[];
  if (stmts.length === 0) throw badRequest('The statement has no Stmt element');
  let count = 0;
  const statements = stmts.map((s, i) => {
    const statementId = textOf(at(s, 'Id'));
    if (!statementId) throw badRequest(`Stmt ${i + 1}: Id is required`);
    const bankAccount = textOf(at(s, 'Acct', 'Id', 'IBAN')) ?? textOf(at(s, 'Acct', 'Id', 'Othr', 'Id'));
    if (!bankAccount) throw badRequest(`Stmt ${statementId}: Acct/Id (IBAN or Othr/Id) is required`);
    const ntries = list(s.Ntry) as Node[];
    count += ntries.length;
    if (count > CAMT053_MAX_ENTRIES)
      throw badRequest(`The statement has more than ${CAMT053_MAX_ENTRIES} entries: import it in parts`);
    if (ntries.some((n) => !isNode(n))) throw badRequest(`Stmt ${statementId}: an Ntry is empty`);
    return { statementId, bankAccount, entries: ntries.flatMap((n, j) => entryOf(n, statementId, j)) };
  });
  return { version: `camt.053.001.${ns[2]}`, messageId, statements };
}
