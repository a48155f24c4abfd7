import type { Command } from 'commander';

/**
 * One example per command, shown at the end of its `--help`. An organization can be given as its
 * reference, a store code or its exact name; a store as reference, code or name.
 */
export const EXAMPLES: Record<string, string> = {
  migrate: 'podctl migrate',
  seed: 'podctl seed --rotate-keys --json',
  'orgs list': 'podctl orgs list --json',
  'orgs create': 'podctl orgs create --name "Case Studio" --rendertoken-limit 500',
  'orgs show': 'podctl orgs show DEMO1',
  'orgs set-rate-limits': 'podctl orgs set-rate-limits "Demo Cases Co" --default 6000/60 --uploads 10000/86400',
  'orgs set-rendertoken-limit': 'podctl orgs set-rendertoken-limit DEMO1 2000',
  'accounts list': 'podctl accounts list DEMO1',
  'accounts create':
    'podctl accounts create DEMO1 --name "Case Studio NL" --legal-name "Case Studio B.V." --billing-address \'{"lastname":"Visser","streetname":"Damrak","housenumber":"1","zipcode":"1012 LG","city":"Amsterdam","countryCode":"NL","email":"billing@case.example"}\'',
  'brands list': 'podctl brands list DEMO1',
  'brands create':
    'podctl brands create DEMO1 --name "Case Studio" --primary-color "#0b5fff" --cs-email help@case.example',
  'stores list': 'podctl stores list "Demo Cases Co"',
  'stores create':
    'podctl stores create DEMO1 --name "Case Studio API" --code CASE1 --integration api --account Account_…',
  'stores set-callback': 'podctl stores set-callback DEMO1 DEMO2 https://shop.example/pod-callback',
  'keys list': 'podctl keys list DEMO1',
  'keys revoke': 'podctl keys revoke DEMO1 Apikey_…',
  'users list': 'podctl users list DEMO1',
  'users create': 'podctl users create DEMO1 --email anna@case.example',
  'users create-operator': 'podctl users create-operator --email ops@pod-service.example',
  'catalog import': 'podctl catalog import catalog.yaml',
  'catalog advance': 'podctl catalog advance --date 2026-12-01',
  'catalog products': 'podctl catalog products --json',
  'catalog show': 'podctl catalog show Product_…',
  'catalog set-status': 'podctl catalog set-status Product_… launched',
  'catalog set-print':
    'podctl catalog set-print Product_… --spec \'{"widthMm":78.1,"heightMm":153.8,"widthPx":1845,"heightPx":3633,"dpi":600}\'',
  'catalog set-layers': 'podctl catalog set-layers Product_… base=case-base.png mask=case-mask.png',
  'catalog set-stock': 'podctl catalog set-stock CASE-IP15-CLR 250 --physical 260',
  'orders start-production': 'podctl orders start-production Order_…',
  'orders cancel': 'podctl orders cancel Order_… --reason "blank cracked, partner asked to drop it" --line 2',
  'shipments create': 'podctl shipments create Order_… --carrier PostNL --tracking-number 3SABCD1234567',
  'shipments tracking-events': 'podctl shipments tracking-events postnl-events.json',
  'production queue': 'podctl production queue',
  'production print-files': 'podctl production print-files Order_… --out ./print',
  'production documents': 'podctl production documents Shipment_… --out ./labels',
  'production remake': 'podctl production remake Order_…',
  'production produced': 'podctl production produced Order_…',
  'production printed': 'podctl production printed Batch_…',
  'production qc': 'podctl production qc Unit_… --fail misprint',
  'production picking': 'podctl production picking Unit_… --problem damaged',
  'production pack': 'podctl production pack Unit_…',
  'claims decide': 'podctl claims decide Claim_… --line 1:1,0,0 --comment "Replacement on its way"',
  'claims categories list': 'podctl claims categories list',
  'claims categories add': 'podctl claims categories add "Wrong colour" --evidence-required',
  'stock receive': 'podctl stock receive CASE-IP15-CLR 500 --reason "delivery 4711"',
  'stock correct': 'podctl stock correct CASE-IP15-CLR --logical -2 --physical -2 --reason "2 cracked in the count"',
  'stock ledger': 'podctl stock ledger CASE-IP15-CLR --limit 20',
  'ledger show': 'podctl ledger show Account_…',
  'ledger payment': 'podctl ledger payment Account_… 50000 --note "bank transfer 2026-11-03" --invoice Invoice_…',
  'invoices issue': 'podctl invoices issue --month 2026-10',
  'invoices list': 'podctl invoices list Account_…',
  'invoices credit-note': 'podctl invoices credit-note Invoice_… --reason "price error on order 17" --net 500',
  'bank import': 'podctl bank import statement-2026-11-20.xml',
  'bank payments': 'podctl bank payments --status unmatched',
  'bank assign': 'podctl bank assign Bankpayment_… Invoice_…',
  'bank dismiss': 'podctl bank dismiss Bankpayment_… --note "interest"',
  'integrators list': 'podctl integrators list',
  'integrators create': 'podctl integrators create --code SHOPAPP --name "Shop App Ltd"',
  'keys create': 'podctl keys create DEMO1 --name "shop backend" --read-only',
  'jobs list': 'podctl jobs list --status dead',
  'jobs retry': 'podctl jobs retry 4711',
  'request-log': 'podctl request-log pause',
};

/** The words that reach a command from the program, e.g. `claims categories add`. */
export function commandPath(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c?.parent; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

/** Adds each command's example to its help; a command without one is a mistake caught at start. */
export function addExamples(program: Command): void {
  const visit = (cmd: Command) => {
    if (cmd.commands.length > 0) return cmd.commands.forEach(visit);
    const path = commandPath(cmd);
    const example = EXAMPLES[path];
    if (!example) throw new Error(`podctl ${path} has no example in src/cli/examples.ts`);
    cmd.addHelpText('after', `\nExample:\n  $ ${example}`);
  };
  program.commands.forEach(visit);
}
