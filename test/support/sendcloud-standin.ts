import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { parse } from 'yaml';
import { cn23Pdf, labelPdf, labelZpl } from './sendcloud-documents.ts';

/**
 * A local Sendcloud for tests: POST /shipments/announce, GET /shipments, the parcel label
 * document, and signed parcel-status webhooks. Every request body is validated against Sendcloud's
 * published OpenAPI documents in test/fixtures/sendcloud; a body that does not validate is
 * answered 400 in Sendcloud's JSON:API error format and recorded in `invalid`, so a test sees it.
 * Answers are the documents' own examples with this parcel's ids and numbers put in.
 */

const fixture = (name: string) =>
  parse(readFileSync(new URL(`../fixtures/sendcloud/${name}`, import.meta.url), 'utf8')) as any;

let validators: {
  announce: ValidateFunction;
  webhook: ValidateFunction;
  webhookSchema: any;
  shipments: any;
  documents: any;
} | null = null;
function load() {
  if (validators) return validators;
  const shipments = fixture('sendcloud-shipments-openapi.yml');
  const webhooks = fixture('sendcloud-v3-webhooks-openapi.yml');
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  (addFormatsModule as unknown as (a: Ajv2020) => void)(ajv);
  ajv.addSchema({ ...shipments, $id: 'sendcloud-shipments' });
  ajv.addSchema({ ...webhooks, $id: 'sendcloud-webhooks' });
  validators = {
    announce: ajv.compile({ $ref: 'sendcloud-shipments#/components/schemas/shipment-request-sync-announce' }),
    webhook: ajv.compile({ $ref: 'sendcloud-webhooks#/components/schemas/ParcelStatusChangedWebhook' }),
    webhookSchema: webhooks.components.schemas.ParcelStatusChangedWebhook,
    shipments,
    documents: fixture('sendcloud-v3-parcel-documents-openapi.yml'),
  };
  return validators;
}

/** A schema's documented example: its own `example`, else one built from its properties' examples. */
function exampleOf(schema: any): any {
  if (schema.example !== undefined) return structuredClone(schema.example);
  if (schema.type === 'object' || schema.properties)
    return Object.fromEntries(
      Object.entries(schema.properties ?? {})
        .map(([k, v]) => [k, exampleOf(v)])
        .filter(([, v]) => v !== undefined),
    );
  if (schema.type === 'array' && schema.items) {
    const item = exampleOf(schema.items);
    return item === undefined ? [] : [item];
  }
  return undefined;
}

/** The documented example answer of POST /shipments/announce (201, one domestic parcel). */
const announceExample = () =>
  structuredClone(
    load().shipments.paths['/shipments/announce'].post.responses['201'].content['application/json'].examples
      .CreatedSingleParcelDomesticShipment.value,
  );

/** Carriers whose labels the stand-in gives as native ZPL (thermal printers); the others are PDF only. */
export const ZPL_CARRIERS = new Set(['postnl', 'dhl_express']);

/** Carrier field limits (sendcloud.dev, "Address field limits by carrier"): longer is the carrier's error. */
const CARRIER_LIMITS: Record<string, number> = { address_line_1: 35, address_line_2: 35, city: 35, name: 35 };

const body = (req: IncomingMessage) =>
  new Promise<string>((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });

export interface StandInParcel {
  id: number;
  shipmentId: string;
  reference: string;
  trackingNumber: string;
  carrier: { code: string; name: string };
  request: any;
  status: { code: string; message: string };
  /** When Sendcloud last heard of the parcel (`updated_at` in GET /shipments); the stand-in's start by default. */
  updatedAt?: string;
  label: Buffer;
  /** The CN23 of a parcel declared for customs (`customs_information` in the announcement). */
  customs: Buffer | null;
}

export class SendcloudStandIn {
  private server!: Server;
  origin = '';
  readonly requests: Array<{ method: string; path: string; body: any }> = [];
  readonly invalid: Array<{ path: string; errors: string[] }> = [];
  readonly parcels = new Map<number, StandInParcel>();
  /** Answers for the next announce calls before they are handled: a status (the carrier is down). */
  readonly failures: number[] = [];
  private nextId = 383707309;

  constructor(
    readonly publicKey = 'sc-public',
    readonly secretKey = 'sc-secret',
  ) {}

  get env(): Record<string, string> {
    return {
      CARRIER: 'sendcloud',
      SENDCLOUD_PUBLIC_KEY: this.publicKey,
      SENDCLOUD_SECRET_KEY: this.secretKey,
      SENDCLOUD_API_URL: `${this.origin}/api/v3`,
    };
  }

  async start(): Promise<this> {
    load();
    this.server = createServer((req, res) => {
      this.handle(req, res).catch((err) => {
        res.writeHead(500);
        res.end(String(err));
      });
    });
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.origin = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }

  byReference(ref: string): StandInParcel | undefined {
    return [...this.parcels.values()].find((p) => p.reference === ref);
  }

  /**
   * A parcel_status_changed webhook as Sendcloud sends it: the webhooks document's own example
   * payload (every `example` of ParcelStatusChangedWebhook) with this parcel's id, address, tracking
   * number and status put in; the raw body and its Sendcloud-Signature.
   */
  webhook(
    parcel: StandInParcel,
    status: { id: number | string; message: string },
    at = new Date(),
    key = this.secretKey,
  ) {
    const payload = exampleOf(load().webhookSchema);
    const to = parcel.request.to_address;
    payload.timestamp = at.getTime();
    payload.carrier_status_change_timestamp = at.getTime();
    Object.assign(payload.parcel, {
      id: parcel.id,
      name: to.name,
      company_name: to.company_name ?? '',
      address: `${to.address_line_1}${to.house_number ? ` ${to.house_number}` : ''}`,
      address_divided: { street: to.address_line_1, house_number: Number.parseInt(to.house_number ?? '0', 10) || 0 },
      city: to.city,
      postal_code: to.postal_code,
      tracking_number: parcel.trackingNumber,
      weight: Number(parcel.request.parcels[0].weight.value).toFixed(3),
      status: { id: Number(status.id), message: status.message },
      country: { ...payload.parcel.country, iso_2: to.country_code },
      order_number: parcel.request.order_number,
      external_order_id: parcel.reference,
      external_shipment_id: parcel.reference,
    });
    const v = load().webhook;
    if (!v(payload)) throw new Error(`stand-in webhook does not match Sendcloud's schema: ${JSON.stringify(v.errors)}`);
    const raw = JSON.stringify(payload);
    return { raw, signature: createHmac('sha256', key).update(raw).digest('hex') };
  }

  private reply(res: ServerResponse, status: number, json: unknown) {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(json));
  }

  private async handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url!, this.origin);
    const raw = await body(req);
    const json: any = raw ? JSON.parse(raw) : null;
    this.requests.push({ method: req.method!, path: url.pathname + url.search, body: json });
    const expected = `Basic ${Buffer.from(`${this.publicKey}:${this.secretKey}`).toString('base64')}`;
    if (req.headers.authorization !== expected)
      return this.reply(res, 401, {
        errors: [{ status: '401', code: 'authentication_failed', detail: 'Invalid username/password.' }],
      });
    if (req.method === 'POST' && url.pathname === '/api/v3/shipments/announce') return this.announce(res, json);
    const doc = /^\/api\/v3\/parcels\/(\d+)\/documents\/([^/]+)$/.exec(url.pathname);
    if (req.method === 'GET' && doc) return this.document(req, res, url, Number(doc[1]), doc[2]);
    if (req.method === 'GET' && url.pathname === '/api/v3/shipments') {
      const ref = url.searchParams.get('external_reference_id');
      const found = [...this.parcels.values()].filter((p) => p.reference === ref);
      return this.reply(res, 200, { data: found.map((p) => this.shipmentOf(p)) });
    }
    this.reply(res, 404, { errors: [{ code: 'not_found', status: '404', detail: 'Not found.' }] });
  }

  /**
   * GET /parcels/{id}/documents/{type}: the type, `paper_size` and the Accept header checked against
   * the parcel documents document. The label as PDF, or as ZPL from carriers that print it natively
   * (ZPL_CARRIERS); the customs declaration (a CN23) as PDF for a parcel declared for customs, 404
   * ("not available for the parcel") for any other.
   */
  private document(req: IncomingMessage, res: ServerResponse, url: URL, id: number, type: string) {
    const paper = url.searchParams.get('paper_size');
    const accept = req.headers.accept ?? 'application/pdf';
    const params = load().documents.components.parameters;
    const problems = [
      ...(!params.type.schema.enum.includes(type) ? [`document type ${type}`] : []),
      ...(paper !== null && !params['paper-size'].schema.enum.includes(paper) ? [`paper_size ${paper}`] : []),
      ...(!params.rendering_format.schema.enum.includes(accept) ? [`Accept ${accept}`] : []),
    ];
    if (problems.length) {
      this.invalid.push({ path: url.pathname, errors: problems });
      return this.reply(res, 400, {
        errors: problems.map((detail) => ({ status: '400', code: 'invalid', detail: `${detail} is not allowed` })),
      });
    }
    const p = this.parcels.get(id);
    if (!p)
      return this.reply(res, 404, {
        errors: [{ code: 'not_found', status: '404', detail: 'No Parcel matches the given query.' }],
      });
    if (type !== 'label') {
      if (type !== 'customs-declaration' || !p.request.customs_information)
        return this.reply(res, 404, {
          errors: [{ code: 'not_found', status: '404', detail: `No ${type} document is available for this parcel.` }],
        });
      if (accept !== 'application/pdf')
        return this.reply(res, 400, {
          errors: [{ status: '400', code: 'invalid', detail: `The ${type} document is not available as ${accept}.` }],
        });
      res.writeHead(200, { 'content-type': 'application/pdf' });
      return res.end(p.customs);
    }
    if (accept === 'application/zpl') {
      if (!ZPL_CARRIERS.has(p.carrier.code))
        return this.reply(res, 400, {
          errors: [{ status: '400', code: 'invalid', detail: `${p.carrier.name} does not provide ZPL labels.` }],
        });
      res.writeHead(200, { 'content-type': 'application/zpl' });
      return res.end(labelZpl(p));
    }
    res.writeHead(200, { 'content-type': 'application/pdf' });
    return res.end(p.label);
  }

  private shipmentOf(p: StandInParcel) {
    const data = announceExample().data;
    data.id = p.shipmentId;
    data.order_number = p.request.order_number;
    data.external_reference_id = p.reference;
    data.carrier = p.carrier;
    data.to_address = p.request.to_address;
    data.from_address = p.request.from_address;
    data.ship_with = p.request.ship_with;
    data.total_order_price = p.request.total_order_price;
    const parcel = data.parcels[0];
    parcel.id = p.id;
    parcel.status = p.status;
    if (p.updatedAt) parcel.updated_at = p.updatedAt;
    parcel.tracking_number = p.trackingNumber;
    const link = (type: string) => `${this.origin}/api/v3/parcels/${p.id}/documents/${type}`;
    parcel.documents = [
      { type: 'label', document_type: 'label', size: 'a6', link: link('label') },
      ...(p.customs
        ? [{ type: 'cn23', document_type: 'customs-declaration', size: 'a4', link: link('customs-declaration') }]
        : []),
    ];
    parcel.weight = p.request.parcels[0].weight;
    parcel.parcel_items = p.request.parcels[0].parcel_items;
    return data;
  }

  private async announce(res: ServerResponse, json: any) {
    const fail = this.failures.shift();
    if (fail)
      return this.reply(res, fail, {
        errors: [
          {
            status: String(fail),
            code: 'parcel_announcement_error',
            detail: 'Service error: An error occurred while connecting to the carrier.',
          },
        ],
      });
    const v = load().announce as ValidateFunction<any>;
    const valid = v(json);
    if (!valid) {
      const errors = (v.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}`);
      this.invalid.push({ path: '/shipments/announce', errors });
      return this.reply(res, 400, {
        errors: (v.errors ?? []).map((e) => ({
          status: '400',
          code: 'invalid',
          detail: e.message ?? 'invalid',
          source: { pointer: e.instancePath || '/' },
        })),
      });
    }
    const existing = json.external_reference_id ? this.byReference(json.external_reference_id) : undefined;
    if (existing) return this.reply(res, 409, { data: this.shipmentOf(existing) });
    for (const [field, max] of Object.entries(CARRIER_LIMITS)) {
      const value = json.to_address?.[field];
      if (typeof value === 'string' && value.length > max)
        return this.reply(res, 400, {
          errors: [
            {
              detail: `Ensure this field has no more than ${max} characters.`,
              status: '400',
              source: { pointer: `/to_address/${field}` },
              code: 'invalid',
            },
          ],
        });
    }
    const option: string = json.ship_with.properties.shipping_option_code;
    const code = option.split(':')[0];
    const carrier = { code, name: { postnl: 'PostNL', dhl: 'DHL', dhl_express: 'DHL Express' }[code] ?? code };
    const id = this.nextId++;
    const trackingNumber = `3SYZXG${String(id).padStart(9, '0')}`;
    const p: StandInParcel = {
      id,
      shipmentId: `sc-shipment-${id}`,
      reference: json.external_reference_id,
      trackingNumber,
      carrier,
      request: json,
      status: { code: 'READY_TO_SEND', message: 'Ready to send' },
      label: await labelPdf(json, carrier.name, trackingNumber, option),
      customs: json.customs_information ? await cn23Pdf(json, carrier.name, trackingNumber) : null,
    };
    this.parcels.set(id, p);
    const data = this.shipmentOf(p);
    data.parcels[0].label_file = p.label.toString('base64');
    this.reply(res, 201, { data });
  }
}
