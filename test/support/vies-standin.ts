import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local stand-in for VIES's REST `check-vat-number` endpoint. Every request is checked against the
 * request of the European Commission's published VIES REST interface (POST, JSON, `countryCode` one
 * of the member state codes with `EL` and `XI`, `vatNumber` without prefix, optional requester and
 * trader fields, nothing else); a request that does not match is answered 400 and recorded in
 * `rejected`, so a test can assert none was. Answers have the shape of VIES's own answers: a
 * registered number, an unregistered one, and `MS_UNAVAILABLE` for a member state that is down.
 */
const MEMBER_STATES = new Set(
  'AT BE BG CY CZ DE DK EE EL ES FI FR HR HU IE IT LT LU LV MT NL PL PT RO SE SI SK XI'.split(' '),
);
const FIELDS = new Set([
  'countryCode',
  'vatNumber',
  'requesterMemberStateCode',
  'requesterNumber',
  'traderName',
  'traderStreet',
  'traderPostalCode',
  'traderCity',
  'traderCompanyType',
]);

export interface ViesStandIn {
  url: string;
  requests: Array<Record<string, unknown>>;
  rejected: string[];
  /** Numbers (prefix + number) the register knows, with their name and address. */
  registered: Map<string, { name: string; address: string }>;
  /** Member states whose register is down. */
  down: Set<string>;
  close(): Promise<void>;
}

function problems(body: unknown): string[] {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return ['body is not a JSON object'];
  const b = body as Record<string, unknown>;
  const out = Object.keys(b)
    .filter((k) => !FIELDS.has(k))
    .map((k) => `unknown field ${k}`);
  if (typeof b.countryCode !== 'string' || !MEMBER_STATES.has(b.countryCode)) out.push('countryCode');
  if (typeof b.vatNumber !== 'string' || !/^[0-9A-Za-z+*]{2,12}$/.test(b.vatNumber)) out.push('vatNumber');
  for (const k of FIELDS) if (k in b && typeof b[k] !== 'string') out.push(`${k} is not a string`);
  if ('requesterMemberStateCode' in b !== 'requesterNumber' in b) out.push('requester half given');
  return out;
}

export async function startViesStandIn(): Promise<ViesStandIn> {
  const state = {
    requests: [] as Array<Record<string, unknown>>,
    rejected: [] as string[],
    registered: new Map<string, { name: string; address: string }>(),
    down: new Set<string>(),
  };
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => {
      raw += c;
    });
    req.on('end', () => {
      const send = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      let body: unknown;
      try {
        body = JSON.parse(raw);
      } catch {
        body = null;
      }
      const wrong = [
        ...(req.method !== 'POST' ? ['method'] : []),
        ...(!String(req.headers['content-type']).startsWith('application/json') ? ['content-type'] : []),
        ...(req.url !== '/check-vat-number' ? ['path'] : []),
        ...problems(body),
      ];
      if (wrong.length) {
        state.rejected.push(wrong.join(', '));
        return send(400, {
          actionSucceed: false,
          errorWrappers: [{ error: 'INVALID_INPUT', message: wrong.join(', ') }],
        });
      }
      const b = body as Record<string, string>;
      state.requests.push(b);
      if (state.down.has(b.countryCode))
        return send(200, { actionSucceed: false, errorWrappers: [{ error: 'MS_UNAVAILABLE' }] });
      const known = state.registered.get(`${b.countryCode}${b.vatNumber}`);
      send(200, {
        countryCode: b.countryCode,
        vatNumber: b.vatNumber,
        requestDate: new Date().toISOString(),
        valid: Boolean(known),
        requestIdentifier: known && b.requesterNumber ? 'WAPIAAAAZ8Cq1x2b' : '',
        name: known?.name ?? '---',
        address: known?.address ?? '---',
        traderName: '---',
        traderStreet: '---',
        traderPostalCode: '---',
        traderCity: '---',
        traderCompanyType: '---',
        traderNameMatch: 'NOT_PROCESSED',
        traderStreetMatch: 'NOT_PROCESSED',
        traderPostalCodeMatch: 'NOT_PROCESSED',
        traderCityMatch: 'NOT_PROCESSED',
        traderCompanyTypeMatch: 'NOT_PROCESSED',
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/check-vat-number`,
    ...state,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
