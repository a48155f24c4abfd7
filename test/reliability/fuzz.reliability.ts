import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { type TestApp, createTestApp } from '../support/app.ts';
import { SEED, generate } from './fuzz-requests.ts';
import type { Context, FuzzRequest } from './generate.ts';
import {
  type Operation,
  type World,
  buildWorld,
  collectRefs,
  openapi,
  pngBytes,
  privateRefs,
  recordFigures,
  REF_ANYWHERE,
} from './support.ts';

const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 20_000);
const CONCURRENCY = 4;
const REGRESSIONS = join(import.meta.dirname, 'regressions.json');
const UNLIMITED = 'default=100000000/60,uploads=100000000/60,downloads=100000000/60';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

interface Problem {
  request: FuzzRequest;
  status: number;
  problem: string;
}

describe(`fuzzing every operation of the OpenAPI document (${REQUESTS} requests, seed ${SEED})`, () => {
  let t: TestApp;
  let ops: Operation[];
  let ctx: Context;
  let mine: World;
  let theirs: World;
  const validators = new Map<string, (v: unknown) => boolean>();
  const ajv = new Ajv({ strict: false, allErrors: false, validateFormats: true });
  addFormats(ajv);
  let doc: any;
  let foreign = new Set<string>();

  before(async () => {
    t = await createTestApp({ env: { RATE_LIMITS: UNLIMITED } });
    ({ doc, operations: ops } = await openapi(t));
    mine = await buildWorld(t, 0);
    theirs = await buildWorld(t, 1);
    const cursors: string[] = [];
    for (const op of ops.filter(
      (o) => o.method === 'GET' && o.params.some((p) => p.name === 'cursor') && !o.path.includes('{'),
    )) {
      const res = await t.app.inject({
        method: 'GET',
        url: `${op.path}?limit=1`,
        headers: { 'x-service-secret-key': t.key },
      });
      const next = res.statusCode === 200 ? JSON.parse(res.body).nextCursor : null;
      if (next) cursors.push(next);
    }
    const foreignRefs = [...privateRefs(theirs, mine).values()].flat();
    ctx = { refs: mine.refs, foreign: foreignRefs, cursors, png: await pngBytes(32), now: t.clock.now() };
    foreign = new Set(foreignRefs);
  });
  after(() => t?.close());

  function validatorFor(op: Operation, status: string) {
    const id = `${op.id}:${status}`;
    if (!validators.has(id)) validators.set(id, ajv.compile({ ...op.success[status], components: doc.components }));
    return validators.get(id)!;
  }

  async function send(req: FuzzRequest): Promise<{ status: number; problems: string[] }> {
    const op = ops.find((o) => o.id === req.op)!;
    const res = await t.app.inject({
      method: req.method as 'GET',
      url: req.url,
      headers: req.headers,
      payload: req.payload === undefined ? undefined : req.binary ? Buffer.from(req.payload, 'base64') : req.payload,
    });
    const status = res.statusCode;
    const problems: string[] = [];
    if (status >= 500) problems.push(`5xx: ${status} ${res.body.slice(0, 200)}`);
    if (op && !op.statuses.has(String(status)) && !op.statuses.has(`${String(status)[0]}XX`))
      problems.push(`undocumented status ${status} for ${op.id}`);
    const type = String(res.headers['content-type'] ?? '');
    if (!res.headers['x-request-id']) problems.push('no X-Request-Id header');
    if (status === 204 && res.body.length > 0) problems.push('204 with a body');
    if (status >= 400) {
      let body: any = null;
      try {
        body = JSON.parse(res.body);
      } catch {
        // reported below
      }
      if (
        !body ||
        typeof body.code !== 'string' ||
        !/^[a-z][a-z0-9_]*$/.test(body.code) ||
        typeof body.message !== 'string' ||
        !body.message
      ) {
        problems.push(`error body is not {code, message}: ${res.body.slice(0, 200)}`);
      }
    } else if (status >= 200 && status < 300 && op?.success[String(status)] && type.includes('json')) {
      const validate = validatorFor(op, String(status));
      let body: unknown;
      try {
        body = JSON.parse(res.body);
      } catch {
        problems.push('2xx body is not JSON');
      }
      if (body !== undefined && !validate(body))
        problems.push(`2xx body does not match the schema: ${ajv.errorsText((validate as any).errors).slice(0, 300)}`);
      // with the first organization's keys, nothing of the second may show up
      const asOther = req.headers['x-service-secret-key'] === t.otherKey;
      const leaked = asOther
        ? []
        : [...collectRefs(body).values()].flatMap((x) => [...x]).filter((r) => foreign.has(r));
      if (leaked.length) problems.push(`2xx body shows the other organization's ${leaked.join(', ')}`);
    }
    return { status, problems };
  }

  it('replays every saved regression case', async () => {
    const saved: Array<FuzzRequest & { problem?: string }> = existsSync(REGRESSIONS)
      ? JSON.parse(readFileSync(REGRESSIONS, 'utf8'))
      : [];
    const failures: string[] = [];
    for (const r of saved) {
      // references differ per database: swap each for one of the same kind from this run's pool
      const swap = (s: string) =>
        s.replace(REF_ANYWHERE, (whole, prefix: string) => {
          const pool = [...(mine.refs.get(prefix.toLowerCase()) ?? [])];
          return pool.length ? pool[0] : whole;
        });
      const req = {
        ...r,
        url: swap(r.url),
        payload: r.payload && !r.binary ? swap(r.payload) : r.payload,
        headers: {
          ...r.headers,
          'x-service-secret-key':
            r.headers['x-service-secret-key'] === '(other)'
              ? t.otherKey
              : r.headers['x-service-secret-key'] === '(read-only)'
                ? t.readOnlyKey
                : t.key,
        },
      };
      const { problems } = await send(req);
      if (problems.length) failures.push(`${r.op} ${r.mutation} ${r.method} ${r.url}: ${problems.join('; ')}`);
    }
    assert.deepEqual(failures, [], `regression cases fail again:\n${failures.join('\n')}`);
  });

  it('never answers 5xx, an undocumented status, a bad error body or an off-schema success', async () => {
    const keys = { full: t.key, readOnly: t.readOnlyKey, other: t.otherKey };
    const byStatus = new Map<number, number>();
    const problems: Problem[] = [];
    const seen = new Set<string>();
    let fiveXX = 0;
    let undocumented = 0;
    let nextIndex = 0;
    const started = Date.now();
    const workers = Array.from({ length: CONCURRENCY }, async () => {
      while (nextIndex < REQUESTS) {
        const i = nextIndex++;
        const req = generate(i, ops, ctx, keys);
        const { status, problems: found } = await send(req);
        byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
        if (status >= 500) fiveXX++;
        for (const p of found) {
          if (p.startsWith('undocumented')) undocumented++;
          const sig = `${req.op} ${p.replace(/:.*/s, '')}`;
          if (!seen.has(sig)) {
            seen.add(sig);
            problems.push({ request: { ...req, mutation: `#${i} ${req.mutation}` }, status, problem: p });
          }
        }
      }
    });
    await Promise.all(workers);
    const seconds = (Date.now() - started) / 1000;
    recordFigures('fuzz', {
      requestsFuzzed: REQUESTS,
      fiveXX,
      undocumented,
      notes: [
        `fuzz: ${REQUESTS} requests in ${seconds.toFixed(0)} s over ${ops.length} operations, seed ${SEED}; statuses ${JSON.stringify(Object.fromEntries([...byStatus].sort((a, b) => a[0] - b[0])))}`,
        `fuzz: ${problems.length} distinct problems`,
      ],
    });
    if (problems.length) {
      const saved: unknown[] = existsSync(REGRESSIONS) ? JSON.parse(readFileSync(REGRESSIONS, 'utf8')) : [];
      const redact = (k: string) =>
        k === t.otherKey ? '(other)' : k === t.readOnlyKey ? '(read-only)' : k === t.key ? '(full)' : k;
      for (const p of problems) {
        const headers = { ...p.request.headers };
        if (headers['x-service-secret-key']) headers['x-service-secret-key'] = redact(headers['x-service-secret-key']);
        saved.push({ ...p.request, headers, problem: p.problem });
      }
      if (process.env.FUZZ_SAVE !== '0') writeFileSync(REGRESSIONS, `${JSON.stringify(saved, null, 2)}\n`);
    }
    assert.equal(
      problems.length,
      0,
      `problems found (saved to regressions.json):\n${problems.map((p) => `${p.request.op} [${p.request.mutation}] ${p.request.method} ${p.request.url.slice(0, 160)} -> ${p.status}: ${p.problem}`).join('\n')}`,
    );
    assert.ok(byStatus.get(200) || byStatus.get(204), 'some generated requests succeed');
  });
});
