import type { Services } from '../services.ts';

const CASE_PRINT = { widthMm: 78.1, heightMm: 153.8, widthPx: 1845, heightPx: 3633, dpi: 600 };
const S24_PRINT = { widthMm: 76.2, heightMm: 150.3, widthPx: 1800, heightPx: 3551, dpi: 600 };

const gen = (width: number, height: number, background: string, text: string, format?: 'png' | 'jpeg') => ({
  generate: { width, height, background, text, ...(format ? { format } : {}) },
});
const caseLayers = (label: string) => [
  { name: 'print-area', file: gen(300, 590, '#ffffff', `${label} print area`) },
  { name: 'cutline', file: gen(300, 590, '#f4f4f4', `${label} cutline`) },
];
const caseMedia = (label: string, color: string) => [
  { name: 'front.png', kind: 'example_image' as const, file: gen(480, 480, color, label) },
  { name: 'lifestyle.jpg', kind: 'example_render' as const, file: gen(640, 480, '#cfd8dc', `${label} in hand`) },
];

/**
 * The demo catalog as a catalog file, applied with the same import operators use (so it is
 * idempotent). It covers every rule of the catalog: all six lifecycle stages, print and non-print
 * products, a private productgroup of the first organization, two products sharing one item that
 * organization stores, legacy SKUs from before and after 2026-03-22, media and layer images.
 */
function demoCatalog(firstOrg: string, secondOrg: string) {
  return {
    productgroups: [
      { code: 'iphone-15-cases', name: 'iPhone 15 cases', price: 1495 },
      { code: 'galaxy-s24-cases', name: 'Galaxy S24 cases', price: 1395 },
      { code: 'legacy-iphone-cases', name: 'Older iPhone cases', price: 995 },
      { code: 'screen-protectors', name: 'Screen protectors', price: 799 },
      { code: 'demo-cases-leather', name: 'Demo Cases leather collection', price: 2495, privateOrganization: firstOrg },
      // Stock a partner stores with the service is sold only by that partner.
      { code: 'other-prints-slim', name: 'Other Prints slim cases', price: 1295, privateOrganization: secondOrg },
    ],
    packagings: [
      { code: 'standard-sleeve', name: 'Standard sleeve' },
      { code: 'gift-box', name: 'Gift box' },
      { code: 'demo-cases-branded-box', name: 'Demo Cases branded box', privateOrganization: firstOrg },
    ],
    items: [
      { sku: 'CASE-IP15-CLR', logicalQuantity: 250, physicalQuantity: 262 },
      { sku: 'CASE-IP15-BLK', logicalQuantity: 0, physicalQuantity: 0 },
      { sku: 'CASE-S24-CLR', logicalQuantity: 500, physicalQuantity: 500 },
      { sku: 'CASE-IP17-CLR', logicalQuantity: 0, physicalQuantity: 0 },
      { sku: 'CASE-IP12-CLR', logicalQuantity: 12, physicalQuantity: 12 },
      { sku: 'CASE-IP11-CLR', logicalQuantity: 0, physicalQuantity: 0 },
      { sku: 'PROT-IP15-GLS', logicalQuantity: 900, physicalQuantity: 910 },
      { sku: 'DEMO-IP15-LTH', organization: firstOrg, logicalQuantity: 40, physicalQuantity: 42 },
      { sku: 'OTHER-S24-SLM', organization: secondOrg, logicalQuantity: 75, physicalQuantity: 75 },
    ],
    products: [
      {
        name: 'iPhone 15 Clear Case',
        productgroup: 'iphone-15-cases',
        item: 'CASE-IP15-CLR',
        status: 'launched',
        printable: true,
        weightGrams: 38,
        created: '2025-10-01T09:00:00Z',
        print: CASE_PRINT,
        layers: caseLayers('iPhone 15'),
        media: caseMedia('iPhone 15 Clear Case', '#e3f2fd'),
      },
      {
        name: 'iPhone 15 Black Case',
        productgroup: 'iphone-15-cases',
        item: 'CASE-IP15-BLK',
        status: 'sunsetted',
        printable: true,
        weightGrams: 38,
        created: '2025-06-02T09:00:00Z',
        print: CASE_PRINT,
        layers: caseLayers('iPhone 15 black'),
      },
      {
        name: 'Galaxy S24 Clear Case',
        productgroup: 'galaxy-s24-cases',
        item: 'CASE-S24-CLR',
        status: 'prelaunched',
        printable: true,
        weightGrams: 36,
        created: '2026-04-02T09:00:00Z',
        print: S24_PRINT,
        layers: caseLayers('Galaxy S24'),
        media: caseMedia('Galaxy S24 Clear Case', '#ede7f6'),
      },
      {
        name: 'iPhone 17 Clear Case',
        productgroup: 'iphone-15-cases',
        item: 'CASE-IP17-CLR',
        status: 'announced',
        printable: true,
        weightGrams: 38,
        created: '2026-05-04T09:00:00Z',
        print: null,
      },
      {
        name: 'iPhone 12 Clear Case',
        productgroup: 'legacy-iphone-cases',
        item: 'CASE-IP12-CLR',
        status: 'ended',
        printable: true,
        weightGrams: 35,
        created: '2024-09-16T09:00:00Z',
        print: CASE_PRINT,
      },
      {
        name: 'iPhone 11 Clear Case',
        productgroup: 'legacy-iphone-cases',
        item: 'CASE-IP11-CLR',
        status: 'archived',
        printable: true,
        weightGrams: 35,
        created: '2023-09-18T09:00:00Z',
        print: CASE_PRINT,
      },
      {
        name: 'iPhone 15 Tempered Glass Screen Protector',
        productgroup: 'screen-protectors',
        item: 'PROT-IP15-GLS',
        status: 'launched',
        printable: false,
        weightGrams: 20,
        created: '2025-10-01T09:00:00Z',
        media: [
          { name: 'front.png', kind: 'example_image' as const, file: gen(480, 480, '#eceff1', 'Screen protector') },
        ],
      },
      {
        name: 'Demo Walnut Leather Case iPhone 15',
        productgroup: 'demo-cases-leather',
        item: 'DEMO-IP15-LTH',
        status: 'launched',
        printable: true,
        weightGrams: 52,
        created: '2026-04-10T09:00:00Z',
        print: CASE_PRINT,
        layers: caseLayers('Walnut leather'),
        media: caseMedia('Walnut leather', '#8d6e63'),
      },
      {
        name: 'Demo Sand Leather Case iPhone 15',
        productgroup: 'demo-cases-leather',
        item: 'DEMO-IP15-LTH',
        status: 'launched',
        printable: true,
        weightGrams: 52,
        created: '2026-04-11T09:00:00Z',
        print: CASE_PRINT,
        layers: caseLayers('Sand leather'),
      },
      {
        name: 'Galaxy S24 Slim Case',
        productgroup: 'other-prints-slim',
        item: 'OTHER-S24-SLM',
        status: 'launched',
        printable: true,
        weightGrams: 30,
        created: '2026-04-15T09:00:00Z',
        print: S24_PRINT,
        layers: caseLayers('Galaxy S24 slim'),
      },
    ],
  };
}

/** Applies the demo catalog; `orgIds` are the demo organizations in seed order. */
export async function seedCatalog(s: Services, orgIds: string[]): Promise<void> {
  await s.catalog.importCatalog(demoCatalog(orgIds[0], orgIds[1]));
}
