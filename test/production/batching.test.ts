import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { type BatchableUnit, planBatches } from '../../src/modules/production/batching.ts';
import {
  DEFAULT_FLOOR_FILE,
  FloorConfigError,
  binOf,
  loadFloorConfig,
  parseFloorConfig,
} from '../../src/modules/production/floor-config.ts';

const floor = loadFloorConfig();
const T0 = new Date('2026-12-01T08:00:00Z');
const at = (min: number) => new Date(T0.getTime() + min * 60_000);

/** iPhone 15 clear: 74 × 150 mm; iPhone 15 Pro Max clear: 79.1 × 162.3 mm. */
const STD = { caseType: 'clear', deviceKey: 'iphone-15', widthMm: 74, heightMm: 150 };
const LARGE = { caseType: 'clear', deviceKey: 'iphone-15-pro-max', widthMm: 79.1, heightMm: 162.3 };
let seq = 0;
function units(order: string, n: number, ageMin: number, fit: BatchableUnit['fit'] = STD): BatchableUnit[] {
  return Array.from({ length: n }, () => ({
    id: `u${++seq}`,
    orderId: order,
    orderCreatedAt: at(ageMin),
    waitingSince: at(ageMin),
    attempt: 1,
    fit,
  }));
}
const orderOf = (b: { slots: Array<{ unit: BatchableUnit }> }) => b.slots.map((s) => s.unit.orderId);

describe('the floor file', () => {
  it('ships a UV flatbed with a 12-pocket phone jig and a large-phone jig, inside the bed and apart', () => {
    assert.equal(floor.printers.length, 1);
    const [std, large] = floor.jigs;
    assert.equal(std.slots.length, 12);
    assert.ok(large.slots.length >= 8);
    assert.equal(floor.bleedMm, 2);
    assert.equal(binOf(floor, 'CASE-IP15-CLR'), 'A (clear)');
    assert.equal(binOf(floor, 'CHRG-USBC-20W'), null);
  });

  it('refuses a file whose slots leave the bed, overlap, or name a printer that is not there', () => {
    const raw = JSON.parse(readFileSync(DEFAULT_FLOOR_FILE, 'utf8'));
    const broken = (f: (c: any) => void) => {
      const c = structuredClone(raw);
      f(c);
      return () => parseFloorConfig(c, 'floor.json');
    };
    assert.throws(
      broken((c) => {
        c.jigs[0].slots[0].xMm = 600;
      }),
      (e: Error) => e instanceof FloorConfigError && /slot A1 of jig phones-12 reaches beyond the bed/.test(e.message),
    );
    assert.throws(
      broken((c) => {
        c.jigs[0].slots[1].xMm = c.jigs[0].slots[0].xMm + 10;
      }),
      /overlap/,
    );
    assert.throws(
      broken((c) => {
        c.jigs[1].printer = 'uv-9';
      }),
      /printer "uv-9", which is not listed/,
    );
    assert.throws(
      broken((c) => {
        c.jigs[0].slots[0].rotation = 45;
      }),
      /floor.json: \/jigs\/0\/slots\/0\/rotation/,
    );
    assert.throws(
      broken((c) => {
        c.jigs[0].caseTypes = ['plastic'];
      }),
      FloorConfigError,
    );
  });
});

describe('batching', () => {
  it('fills jigs oldest order first and keeps an order together, a small younger order filling the gap', () => {
    const plan = planBatches(
      floor,
      [...units('A', 7, 0), ...units('B', 7, 1), ...units('C', 5, 2), ...units('D', 3, 3)],
      { now: at(5), flush: true },
    );
    assert.equal(plan.batches.length, 2);
    // A (7) + C (5) fill the first jig of 12; B (7) + D (3) go to the second: no order is split.
    assert.deepEqual([...new Set(orderOf(plan.batches[0]))], ['A', 'C']);
    assert.deepEqual([...new Set(orderOf(plan.batches[1]))], ['B', 'D']);
    assert.equal(plan.batches[0].slots.length, 12);
    assert.deepEqual(
      plan.batches[0].slots.map((s) => s.slot.id),
      floor.jigs[0].slots.map((s) => s.id),
    );
  });

  it('puts large phones in the large jig and keeps case types apart (one print height per batch)', () => {
    const tough = { ...STD, caseType: 'tough', widthMm: 76.4, heightMm: 152.4 };
    const plan = planBatches(floor, [...units('A', 2, 0), ...units('A', 1, 0, LARGE), ...units('B', 2, 1, tough)], {
      now: at(5),
      flush: true,
    });
    const kinds = plan.batches.map((b) => `${b.jig.id}/${b.caseType}/${b.slots.length}`).sort();
    assert.deepEqual(kinds, ['large-phones-10/clear/1', 'phones-12/clear/2', 'phones-12/tough/2']);
  });

  it('splits an order larger than a jig over whole batches', () => {
    const plan = planBatches(floor, units('A', 30, 0), { now: at(5), flush: true });
    assert.deepEqual(
      plan.batches.map((b) => b.slots.length),
      [12, 12, 6],
    );
  });

  it('leaves a partly filled batch for later until its oldest unit has waited long enough', () => {
    const us = [...units('A', 12, 0), ...units('B', 3, 10)];
    const soon = planBatches(floor, us, { now: at(30), flush: false });
    assert.deepEqual(
      soon.batches.map((b) => b.slots.length),
      [12],
    );
    assert.equal(soon.waiting, 3);
    const later = planBatches(floor, us, { now: at(10 + floor.partialBatchAfterMinutes), flush: false });
    assert.deepEqual(
      later.batches.map((b) => b.slots.length),
      [12, 3],
    );
  });

  it('names why a unit fits no jig: no geometry, a case type no jig takes, a case too large', () => {
    const onlyClear = structuredClone(floor);
    for (const j of onlyClear.jigs) j.caseTypes = ['clear'] as typeof j.caseTypes;
    const plan = planBatches(
      onlyClear,
      [
        ...units('A', 1, 0, null),
        ...units('B', 1, 0, { ...STD, caseType: 'wallet' }),
        ...units('C', 1, 0, { ...STD, widthMm: 120, heightMm: 200, deviceKey: 'tablet' }),
      ],
      { now: at(5), flush: true },
    );
    assert.equal(plan.batches.length, 0);
    assert.deepEqual(
      plan.unplaced.map((u) => u.reason),
      [
        'the product has no device geometry or case type',
        'no jig has a pocket for a wallet case of 74 × 150 mm (iphone-15)',
        'no jig has a pocket for a clear case of 120 × 200 mm (tablet)',
      ],
    );
  });

  it('honours a jig that lists the models it takes', () => {
    const only = structuredClone(floor);
    only.jigs[0].models = ['galaxy-*'];
    const plan = planBatches(only, units('A', 1, 0), { now: at(5), flush: true });
    // The iPhone no longer fits the phone jig; the large jig's pockets are too loose for it.
    assert.equal(plan.batches.length, 0);
    assert.match(plan.unplaced[0].reason, /no jig has a pocket/);
  });
});
