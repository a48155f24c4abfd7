import { randomId } from '../../platform/ids.ts';
import type { Carrier } from './port.ts';

/** A carrier-style number for test shipments: production never invents one. */
const testTrackingNumber = () => `TEST${Array.from(randomId(14), (c) => (c.charCodeAt(0) % 10).toString()).join('')}`;

/** The test environment's carrier: DHL by name, a made-up `TEST…` number unless one is given. */
export function sandboxCarrier(): Carrier {
  return {
    kind: 'sandbox',
    assign(req) {
      return {
        kind: 'now',
        carrier: req.carrier ?? (req.level === 'express' ? 'DHL Express' : 'DHL'),
        trackingNumber: req.trackingNumber ?? testTrackingNumber(),
      };
    },
  };
}
