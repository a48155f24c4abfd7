import type { SendcloudConfig } from '../../../config.ts';
import { CarrierUnavailable } from '../port.ts';

const TIMEOUT_MS = 30_000;

export interface ErrorObject {
  status?: string;
  code?: string;
  detail?: string;
  source?: { pointer?: string };
}

/** Sendcloud's JSON:API errors as one line the operator can act on: field and carrier message, verbatim. */
export const describeErrors = (errors: ErrorObject[] | undefined) =>
  (errors ?? [])
    .map((e) => `${e.source?.pointer ? `${e.source.pointer}: ` : ''}${e.detail ?? e.code ?? 'error'}`)
    .join('; ') || 'no message';

/** A request to Sendcloud's API with the integration's keys; a network failure is CarrierUnavailable. */
export type SendcloudCall = (path: string, init?: RequestInit) => Promise<Response>;

export function sendcloudClient(config: SendcloudConfig, fetchImpl: typeof fetch): SendcloudCall {
  const auth = `Basic ${Buffer.from(`${config.publicKey}:${config.secretKey}`).toString('base64')}`;
  return async function call(path: string, init: RequestInit = {}): Promise<Response> {
    try {
      return await fetchImpl(`${config.apiUrl}${path}`, {
        ...init,
        headers: { authorization: auth, accept: 'application/json', ...(init.headers as Record<string, string>) },
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch (err) {
      throw new CarrierUnavailable(`Sendcloud could not be reached: ${(err as Error).message}`);
    }
  };
}
