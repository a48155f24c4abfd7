import type { Clock } from '../../platform/clock.ts';
import type { Db } from '../../platform/db/index.ts';
import { newReference } from '../../platform/ids.ts';
import { RecentKeys } from '../../platform/recent-keys.ts';
import type { Carrier, CarrierStatusIn } from '../carriers/port.ts';
import { shipmentsRepo as repo } from './repo.ts';
import type { CarrierEventIn, IngestResult } from './tracking-events.ts';

const DAY_MS = 24 * 3600_000;
/**
 * Unknown parcels are logged once each: the last ones seen are remembered, so a flood cannot grow
 * memory and a parcel first seen after it is still logged.
 */
export const UNKNOWN_PARCELS_REMEMBERED = 10_000;

/**
 * Statuses from the carrier platform (webhooks and the poll): each is kept with its shipment, and
 * the ones the mapping table knows become tracking events through the same path as the operator
 * feed and the sandbox helper.
 */
export function carrierTracking(deps: {
  db: Db;
  clock: Clock;
  log: { warn: (obj: object, msg: string) => void };
  carrier: Carrier;
  ingest: (list: CarrierEventIn[]) => Promise<IngestResult[]>;
  lostAfterDays: number;
  /** How many unknown parcels are remembered as logged (UNKNOWN_PARCELS_REMEMBERED). */
  unknownRemembered?: number;
}) {
  const { db, clock, carrier } = deps;
  const unknown = new RecentKeys(deps.unknownRemembered ?? UNKNOWN_PARCELS_REMEMBERED);

  async function receive(list: CarrierStatusIn[]): Promise<{ stored: number; ignored: number }> {
    let stored = 0;
    let ignored = 0;
    for (const st of list) {
      const s = await repo.byCarrierParcel(db, carrier.kind, st.parcelId);
      if (!s) {
        ignored++;
        if (unknown.firstSight(st.parcelId))
          deps.log.warn(
            { carrier: carrier.kind, parcelId: st.parcelId, status: st.code },
            'carrier status for a parcel no shipment knows; ignored',
          );
        continue;
      }
      const mapped = carrier.mapStatus?.(st.code, st.message) ?? null;
      const fresh = await repo.insertCarrierStatus(db, {
        id: newReference('Carrierstatus'),
        shipment_id: s.id,
        carrier: carrier.kind,
        code: st.code,
        message: st.message,
        mapped_status: mapped,
        occurred_at: st.occurred,
        created_at: clock.now(),
      });
      if (!fresh) continue;
      stored++;
      if (mapped)
        await deps.ingest([
          {
            shipmentReference: s.id,
            carrierEventId: `${carrier.kind}:${st.code}:${st.occurred.getTime()}`,
            status: mapped,
            occurred: st.occurred.toISOString(),
            description: st.message,
          },
        ]);
      else await repo.setTrackingFacts(db, s.id, { ...s, tracking_seen_at: clock.now() });
    }
    return { stored, ignored };
  }

  return {
    receive,
    /** The poll: parcels with no word for a day are asked for; parcels silent for N days are lost. */
    async check(): Promise<void> {
      const now = clock.now();
      if (carrier.statuses) {
        const quiet = await repo.quietParcels(db, carrier.kind, new Date(now.getTime() - DAY_MS), 100);
        if (quiet.length)
          await receive(
            await carrier.statuses(
              quiet.map((s) => ({
                reference: s.id,
                parcelId: s.carrier_parcel_id!,
                trackingNumber: s.tracking_number,
              })),
            ),
          );
      }
      const silent = await repo.silentParcels(db, new Date(now.getTime() - deps.lostAfterDays * DAY_MS), 500);
      for (const s of silent) await repo.setAttention(db, s.id, 'lost', now);
    },
  };
}

export type CarrierTracking = ReturnType<typeof carrierTracking>;
