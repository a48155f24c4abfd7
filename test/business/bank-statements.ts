import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The ISO 20022 business example of camt.053.001.02 (see test/fixtures/camt053/README.md). */
export const ISO_EXAMPLE = readFileSync(
  join(import.meta.dirname, '../fixtures/camt053/iso20022-camt.053.001.02-example.xml'),
  'utf8',
);

export interface Line {
  ref?: string;
  /** EUR cents. */
  cents: number;
  credit?: boolean;
  status?: 'BOOK' | 'PDNG';
  remittance?: string;
  debtor?: string;
  iban?: string;
  date?: string;
}

const money = (cents: number) => `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');

/**
 * A Dutch bank's camt.053.001.02 statement in EUR, on the structure of the ISO example: group
 * header, one statement of an IBAN account with opening and closing balances, and one entry per
 * line with the bank's reference, the bank transaction code, the debtor and unstructured
 * remittance information (the description a payer types).
 */
export function dutchStatement(id: string, lines: Line[], opts: { version?: string } = {}): string {
  const version = opts.version ?? '02';
  const v8 = Number(version) >= 8;
  const entries = lines
    .map(
      (l, i) => `			<Ntry>
				${l.ref === undefined ? '' : `<NtryRef>${esc(l.ref)}</NtryRef>`}
				<Amt Ccy="EUR">${money(l.cents)}</Amt>
				<CdtDbtInd>${l.credit === false ? 'DBIT' : 'CRDT'}</CdtDbtInd>
				${v8 ? `<Sts><Cd>${l.status ?? 'BOOK'}</Cd></Sts>` : `<Sts>${l.status ?? 'BOOK'}</Sts>`}
				<BookgDt><Dt>${l.date ?? '2026-11-20'}</Dt></BookgDt>
				<ValDt><Dt>${l.date ?? '2026-11-20'}</Dt></ValDt>
				<AcctSvcrRef>${esc(id)}-${i + 1}</AcctSvcrRef>
				<BkTxCd><Domn><Cd>PMNT</Cd><Fmly><Cd>RCDT</Cd><SubFmlyCd>ESCT</SubFmlyCd></Fmly></Domn></BkTxCd>
				<NtryDtls>
					<TxDtls>
						<Refs><EndToEndId>NOTPROVIDED</EndToEndId></Refs>
						<RltdPties>
							${v8 ? `<Dbtr><Pty><Nm>${esc(l.debtor ?? 'Demo Cases B.V.')}</Nm></Pty></Dbtr>` : `<Dbtr><Nm>${esc(l.debtor ?? 'Demo Cases B.V.')}</Nm></Dbtr>`}
							<DbtrAcct><Id><IBAN>${l.iban ?? 'NL02ABNA0123456789'}</IBAN></Id></DbtrAcct>
						</RltdPties>
						${l.remittance === undefined ? '' : `<RmtInf><Ustrd>${esc(l.remittance)}</Ustrd></RmtInf>`}
					</TxDtls>
				</NtryDtls>
			</Ntry>`,
    )
    .join('\n');
  return `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.${version}">
	<BkToCstmrStmt>
		<GrpHdr>
			<MsgId>${esc(id)}-MSG</MsgId>
			<CreDtTm>2026-11-20T17:00:00+01:00</CreDtTm>
		</GrpHdr>
		<Stmt>
			<Id>${esc(id)}</Id>
			<ElctrncSeqNb>1</ElctrncSeqNb>
			<CreDtTm>2026-11-20T17:00:00+01:00</CreDtTm>
			<Acct>
				<Id><IBAN>NL91ABNA0417164300</IBAN></Id>
				<Ccy>EUR</Ccy>
				<Ownr><Nm>POD FACTORY B.V.</Nm></Ownr>
			</Acct>
			<Bal>
				<Tp><CdOrPrtry><Cd>OPBD</Cd></CdOrPrtry></Tp>
				<Amt Ccy="EUR">1000.00</Amt>
				<CdtDbtInd>CRDT</CdtDbtInd>
				<Dt><Dt>2026-11-19</Dt></Dt>
			</Bal>
${entries}
		</Stmt>
	</BkToCstmrStmt>
</Document>
`;
}
