import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures');
export const UBL_XSD = {
  Invoice: join(FIXTURES, 'ubl-2.1', 'xsd', 'maindoc', 'UBL-Invoice-2.1.xsd'),
  CreditNote: join(FIXTURES, 'ubl-2.1', 'xsd', 'maindoc', 'UBL-CreditNote-2.1.xsd'),
};
/** The compiled Schematron rule sets Peppol runs, in its order: CEN's EN 16931 rules, then OpenPeppol's own. */
export const RULES = {
  en16931: join(FIXTURES, 'en16931', 'EN16931-UBL-validation.xslt'),
  peppol: join(FIXTURES, 'peppol-bis-3', 'PEPPOL-EN16931-UBL.xslt'),
};
const SAXON_JARS = ['/usr/share/java/Saxon-HE.jar', '/usr/share/java/Saxon-HE-9.9.1.5.jar'];
const saxonJar = SAXON_JARS.find((p) => existsSync(p));

const has = (cmd: string, args: string[]) => spawnSync(cmd, args, { stdio: 'ignore' }).status === 0;

/** Why XSD validation cannot run here (xmllint missing), or false. */
export const xmllintMissing = has('xmllint', ['--version'])
  ? false
  : 'xmllint is not installed (Debian: apt-get install libxml2-utils)';
/** Why Schematron validation cannot run here (Java or Saxon-HE missing), or false. */
export const saxonMissing =
  saxonJar && has('java', ['-version'])
    ? false
    : 'Java 17 and Saxon-HE are not installed (Debian: apt-get install default-jre-headless libsaxonhe-java)';

/** xmllint's complaints about `xml` against the UBL 2.1 schema of its kind; empty: valid. */
export function xsdErrors(xml: string, kind: keyof typeof UBL_XSD): string {
  const r = spawnSync('xmllint', ['--noout', '--nonet', '--schema', UBL_XSD[kind], '-'], {
    input: xml,
    encoding: 'utf8',
  });
  return r.status === 0 ? '' : r.stderr;
}

/**
 * The failed rules of each document (by name), running a compiled Schematron rule set (default:
 * CEN's EN 16931) with Saxon-HE once over all of them: `[rule id, flag, text]`.
 */
export function schematronFailures(
  docs: Record<string, string>,
  rules: keyof typeof RULES = 'en16931',
): Record<string, Array<[string, string, string]>> {
  const dir = mkdtempSync(join(tmpdir(), 'ubl-'));
  try {
    const input = join(dir, 'in');
    const output = join(dir, 'out');
    spawnSync('mkdir', ['-p', input, output]);
    for (const [name, xml] of Object.entries(docs)) writeFileSync(join(input, `${name}.xml`), xml);
    const r = spawnSync(
      'java',
      ['-cp', saxonJar!, 'net.sf.saxon.Transform', `-s:${input}`, `-xsl:${RULES[rules]}`, `-o:${output}`],
      { encoding: 'utf8' },
    );
    if (r.status !== 0) throw new Error(`Saxon failed: ${r.stderr}`);
    const out: Record<string, Array<[string, string, string]>> = {};
    for (const f of readdirSync(output)) {
      const svrl = readFileSync(join(output, f), 'utf8');
      out[f.replace(/\.xml$/, '')] = [
        ...svrl.matchAll(/<svrl:failed-assert\b([^>]*)>([\s\S]*?)<\/svrl:failed-assert>/g),
      ].map((m) => [
        /id="([^"]*)"/.exec(m[1])?.[1] ?? '?',
        /flag="([^"]*)"/.exec(m[1])?.[1] ?? '?',
        m[2]
          .replace(/<[^>]+>/g, ' ')
          .replace(/\s+/g, ' ')
          .trim(),
      ]);
    }
    return out;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
