/**
 * The live check of a VAT number against the member state's register, behind a port: the service
 * asks a `VatNumberChecker`, never VIES directly, so tests use a stand-in and a deployment without
 * network access runs without one.
 */

/** What the register said: `unavailable` is no answer (disabled, down, timed out), never "invalid". */
export type LiveVatCheck =
  | {
      status: 'valid' | 'invalid';
      /** The register's name and address where the member state gives them. */
      name: string | null;
      address: string | null;
      /** The consultation number VIES gives as proof of the check, when it gives one. */
      requestIdentifier: string | null;
    }
  | { status: 'unavailable'; reason: string };

export interface VatNumberChecker {
  /** `prefix` as VIES takes it (`EL`, `XI`), `number` without prefix. */
  check(prefix: string, number: string): Promise<LiveVatCheck>;
}

/** No live check configured: every answer is `unavailable`, and says so. */
export const noLiveVatCheck: VatNumberChecker = {
  async check() {
    return { status: 'unavailable', reason: 'no live VIES check is configured (VIES_URL is unset)' };
  },
};

const blank = (v: unknown): string | null =>
  typeof v === 'string' && v.trim() && v.trim() !== '---' ? v.trim() : null;

/**
 * VIES's REST service (`POST {url}` with `{countryCode, vatNumber}`, the European Commission's
 * `check-vat-number` endpoint): `valid` true or false is an answer; an HTTP error, a timeout or an
 * `errorWrappers` body (e.g. `MS_UNAVAILABLE`) is no answer.
 */
export function viesChecker(opts: {
  url: string;
  timeoutMs?: number;
  /** The seller's own VAT number: VIES then returns a consultation number. */
  requester?: { prefix: string; number: string };
  fetch?: typeof fetch;
}): VatNumberChecker {
  const doFetch = opts.fetch ?? fetch;
  return {
    async check(prefix, number) {
      let res: Response;
      try {
        res = await doFetch(opts.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json' },
          body: JSON.stringify({
            countryCode: prefix,
            vatNumber: number,
            ...(opts.requester
              ? { requesterMemberStateCode: opts.requester.prefix, requesterNumber: opts.requester.number }
              : {}),
          }),
          signal: AbortSignal.timeout(opts.timeoutMs ?? 10_000),
        });
      } catch (err) {
        return { status: 'unavailable', reason: `VIES did not answer: ${(err as Error).message}` };
      }
      let body: Record<string, unknown>;
      try {
        body = (await res.json()) as Record<string, unknown>;
      } catch {
        return { status: 'unavailable', reason: `VIES answered ${res.status} without JSON` };
      }
      const wrappers = Array.isArray(body.errorWrappers) ? (body.errorWrappers as Array<{ error?: string }>) : [];
      if (!res.ok || wrappers.length > 0 || typeof body.valid !== 'boolean') {
        const code = wrappers.map((w) => w.error).join(', ') || `HTTP ${res.status}`;
        return { status: 'unavailable', reason: `VIES could not check the number (${code})` };
      }
      return {
        status: body.valid ? 'valid' : 'invalid',
        name: blank(body.name),
        address: blank(body.address),
        requestIdentifier: blank(body.requestIdentifier),
      };
    },
  };
}
