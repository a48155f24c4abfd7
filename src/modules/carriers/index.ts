import type { Config } from '../../config.ts';
import { manualCarrier } from './manual.ts';
import type { Carrier } from './port.ts';
import { sandboxCarrier } from './sandbox.ts';
import { sendcloudCarrier } from './sendcloud/adapter.ts';

/** The adapter the configuration names (CARRIER). */
export function carrierFor(config: Pick<Config, 'carrier' | 'sendcloud'>, fetchImpl: typeof fetch = fetch): Carrier {
  if (config.carrier === 'sendcloud' && config.sendcloud) return sendcloudCarrier(config.sendcloud, fetchImpl);
  if (config.carrier === 'manual') return manualCarrier();
  return sandboxCarrier();
}
