import { createHash, randomUUID } from 'node:crypto';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { catalogWrites } from '../../src/modules/catalog/admin-repo.ts';
import { CATALOG_TOPIC } from '../../src/modules/catalog/events.ts';
import { LAYER_PX_PER_MM, caseOutline, printOutline, printSpecFor } from '../../src/modules/catalog/geometry.ts';
import { createOrder, expectError, orderBody, products, startProduction, uploadImage } from '../orders/helpers.ts';
import { type TestApp, call, createTestApp, operator } from '../support/app.ts';
import { pdfImages, pdfInfo, rawPixels, renderPage, popplerMissing, keepPage } from '../support/pdf-tools.ts';

const MM = 72 / 25.4;

/**
 * Artwork whose placement shows in the print: three vertical bands (red, white, blue) with a black
 * line down the middle. Cover-fitted onto a tall print area only the white middle band survives,
 * centred, with the black line on the print area's centre line.
 */
async function artwork(t: TestApp): Promise<string> {
  // Red and blue bands at the sides, beyond what covering a phone's back (and its bleed) keeps.
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="800" height="1000"><rect width="100" height="1000" fill="#ff0000"/><rect x="100" width="600" height="1000" fill="#ffffff"/><rect x="700" width="100" height="1000" fill="#0000ff"/><rect x="398" width="4" height="1000" fill="#000000"/></svg>`;
  const png = await sharp(Buffer.from(svg)).png().toBuffer();
  const res = await call(t, 'POST', '/v2/images', {
    payload: png,
    headers: { 'content-type': 'application/octet-stream' },
  });
  assert.equal(res.statusCode, 200, res.body);
  return res.data.image.reference;
}

/** The hairline cut line antialiased onto white: pink to magenta, green well below red and blue. */
const isMagenta = ([r, g, b]: number[]) => r > 150 && b > 150 && g < Math.min(r, b) - 40;

describe('production files', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(async () => t.close());

  it('makes a print file per printed line when production starts: artwork at print size and place, cut line in CutContour', {
    skip: popplerMissing,
  }, async () => {
    const image = await artwork(t);
    const ref = await createOrder(
      t,
      orderBody(t, image, {
        orderlines: [
          { productReference: products(t).clear, imageReference: image, quantity: 2 },
          { productReference: products(t).protector, quantity: 1 },
        ],
      }),
    );
    let res = await operator(t, 'GET', `/orders/${ref}/print-files`);
    assert.deepEqual(res.data.printFiles, [], 'nothing before production');
    await startProduction(t, ref);
    res = await operator(t, 'GET', `/orders/${ref}/print-files`);
    assert.deepEqual(
      res.data.printFiles.map((f: any) => [f.orderlineIndex, f.copies, f.status]),
      [[1, 2, 'pending']],
      'only the line with artwork is printed, queued with the production start',
    );
    expectError(await operator(t, 'GET', `/orders/${ref}/print-files/1`), 409, 'production_file_not_ready');
    await t.s.worker.drain();

    res = await operator(t, 'GET', `/orders/${ref}/print-files`);
    const [file] = res.data.printFiles;
    assert.equal(file.status, 'ready', JSON.stringify(file));
    const spec = (await t.s.catalog.findProductData(t.seed.organizations[0].reference, products(t).clear))!.print!;
    assert.deepEqual(
      [file.print.widthPx, file.print.heightPx, file.print.dpi, file.print.cutLine],
      [spec.widthPx, spec.heightPx, spec.dpi, 'outline'],
    );
    // 800 x 1000 artwork enlarged to cover the print area (a clear case has no bleed): its own
    // resolution is what the floor checks.
    const enlarged = Math.max(spec.widthPx / 800, spec.heightPx / 1000);
    assert.equal(file.print.effectiveDpi, Math.round(spec.dpi / enlarged));

    const dl = await operator(t, 'GET', `/orders/${ref}/print-files/1`);
    assert.equal(dl.statusCode, 200);
    assert.equal(dl.headers['content-type'], 'application/pdf');
    const pdf = dl.rawPayload;
    assert.equal(file.size, pdf.length);
    // The page is the print area with 2 mm of bleed all round; the artwork one image of exactly the
    // print pixels and the bleed's, at the print dpi.
    const BLEED = 2;
    assert.equal(file.print.bleedMm, BLEED);
    const bleedPx = Math.round((BLEED / 25.4) * spec.dpi);
    const [w, h] = pdfInfo(pdf)
      ['Page size'].split(' ')
      .filter((x) => /^[\d.]+$/.test(x))
      .map(Number);
    assert.ok(
      Math.abs(w - (spec.widthMm + 2 * BLEED) * MM) < 0.1 && Math.abs(h - (spec.heightMm + 2 * BLEED) * MM) < 0.1,
      `page ${w}x${h} pt`,
    );
    assert.deepEqual(pdfImages(pdf), [
      { width: spec.widthPx + 2 * bleedPx, height: spec.heightPx + 2 * bleedPx, xppi: spec.dpi, yppi: spec.dpi },
    ]);
    assert.match(pdf.toString('latin1'), /\/TrimBox \[/, 'the trim box marks the print area');
    assert.match(pdf.toString('latin1'), /sRGB IEC61966-2\.1/, 'sRGB output intent');
    assert.ok(pdf.includes('/Separation /CutContour'), 'the cut line is in the CutContour spot colour');
    assert.match(pdf.toString('latin1'), /\/OP true\s+\/op true/, 'and overprints the artwork');

    const dpi = 150;
    const page = await rawPixels(keepPage('production', 'print-file', renderPage(pdf, dpi)));
    const cx = Math.round(page.width / 2);
    const mid = Math.round(page.height / 2);
    // Cover fit, centred: white band everywhere inside, the black line on the centre line, no red or blue.
    assert.ok(
      page.at(Math.round(page.width / 4), mid).every((c) => c > 245),
      'white band',
    );
    const centre = [cx - 1, cx, cx + 1].map((x) => page.at(x, mid)).some(([r, g, b]) => r + g + b < 150);
    assert.ok(centre, 'the artwork centre line lies on the print area centre line');
    let colored = 0;
    for (let y = 10; y < page.height - 10; y += 7)
      for (let x = 10; x < page.width - 10; x += 7) {
        const [r, g, b] = page.at(x, y);
        if ((r > 200 && g < 60 && b < 60) || (b > 200 && r < 60 && g < 60)) colored++;
      }
    assert.equal(colored, 0, 'the red and blue bands are cropped away');

    // The cut line: the print area's outline (a clear case's flat back) near the page edges and
    // the camera hole where the geometry puts it.
    const shape = (await t.s.catalog.productShapes([products(t).clear])).get(products(t).clear)!;
    const hole = printOutline(shape.device!, shape.caseType!).hole;
    // Page coordinates: the print area starts after the bleed.
    const px = (mm: number) => Math.round(((mm + BLEED) / 25.4) * dpi);
    const magentaNear = (x: number, y: number, r = 3) => {
      for (let dy = -r; dy <= r; dy++)
        for (let dx = -r; dx <= r; dx++) {
          const [xx, yy] = [x + dx, y + dy];
          if (xx >= 0 && yy >= 0 && xx < page.width && yy < page.height && isMagenta(page.at(xx, yy))) return true;
        }
      return false;
    };
    assert.ok(magentaNear(cx, px(0)), 'cut line along the top edge, inside the bleed');
    assert.ok(magentaNear(cx, page.height - 1 - px(0)), 'cut line along the bottom edge');
    assert.ok(!magentaNear(cx, 1), 'no cut line on the page edge: the bleed is beyond it');
    assert.ok(magentaNear(px(hole.xMm + hole.widthMm / 2), px(hole.yMm)), 'camera hole top edge');
    assert.ok(magentaNear(px(hole.xMm), px(hole.yMm + hole.heightMm / 2)), 'camera hole left edge');
    assert.ok(!magentaNear(cx, mid, 5), 'no cut line through the middle of the print');
  });

  it('answers clear errors for unknown orders, lines and orders not in production', async () => {
    expectError(await operator(t, 'GET', '/orders/Order_nonexistent/print-files'), 404, 'not_found');
    expectError(await operator(t, 'GET', '/orders/nope/print-files/1'), 404, 'not_found');
    expectError(await operator(t, 'GET', '/orders/x/print-files/0'), 400, 'invalid_request');
    const ref = await createOrder(t, orderBody(t, await uploadImage(t)));
    expectError(await operator(t, 'POST', `/orders/${ref}/print-files`), 409, 'production_not_started');
    await startProduction(t, ref);
    expectError(await operator(t, 'GET', `/orders/${ref}/print-files/7`), 404, 'not_found');
    const partner = await call(t, 'GET', `/operator/orders/${ref}/print-files`);
    assert.equal(partner.statusCode, 401, 'a partner key is not the operator token');
  });

  it('fails a print file whose artwork is gone, says why, and keeps the order in production', async () => {
    // An image of its own: blobs are shared by every test file, and uploadImage's colours repeat.
    const unique = await sharp({ create: { width: 40, height: 40, channels: 3, background: '#123456' } })
      .composite([
        {
          input: Buffer.from(
            `<svg xmlns="http://www.w3.org/2000/svg" width="40" height="40"><text y="20">${randomUUID()}</text></svg>`,
          ),
        },
      ])
      .png()
      .toBuffer();
    const up = await call(t, 'POST', '/v2/images', {
      payload: unique,
      headers: { 'content-type': 'application/octet-stream' },
    });
    const image = up.data.image.reference;
    const ref = await createOrder(t, orderBody(t, image));
    const handle = await t.s.images.imageForOrganization(t.seed.organizations[0].reference, image);
    await t.s.blobs.delete(handle!.blobKey);
    await startProduction(t, ref);
    await t.s.worker.drain();
    const res = await operator(t, 'GET', `/orders/${ref}/print-files`);
    assert.equal(res.data.status, 'in_production');
    assert.equal(res.data.printFiles[0].status, 'failed');
    assert.match(res.data.printFiles[0].error, /artwork .* is missing/);
    expectError(
      await operator(t, 'GET', `/orders/${ref}/print-files/1`),
      409,
      'production_file_not_ready',
      'failed: artwork',
    );
  });

  it('makes a print file anew on request', async () => {
    const ref = await createOrder(t, orderBody(t, await uploadImage(t)));
    await startProduction(t, ref);
    await t.s.worker.drain();
    const res = await operator(t, 'POST', `/orders/${ref}/print-files`);
    assert.equal(res.statusCode, 202, res.body);
    assert.equal(res.data.printFiles[0].status, 'pending');
    await t.s.worker.drain();
    assert.equal((await operator(t, 'GET', `/orders/${ref}/print-files`)).data.printFiles[0].status, 'ready');
  });

  it("answers a case stored with its full outline as print spec with its geometry's print area, as its print file does", async () => {
    const ref = products(t).clear;
    const shape = (await t.s.catalog.productShapes([ref])).get(ref)!;
    const outline = caseOutline(shape.device!, shape.caseType!);
    const inset = printSpecFor(shape.device!, shape.caseType!);
    assert.ok(inset.widthMm < outline.widthMm - 1, 'a clear case prints inside its outline');
    // A print spec of the case's full outline, rim included, as a product row may hold.
    const dpi = shape.caseType!.dpi;
    const px = (mm: number) => Math.round((mm / 25.4) * dpi);
    const full = {
      widthMm: outline.widthMm,
      heightMm: outline.heightMm,
      widthPx: px(outline.widthMm),
      heightPx: px(outline.heightMm),
      dpi,
    };
    const row = (await catalogWrites.lockProduct(t.db, ref))!;
    await catalogWrites.updateProduct(t.db, { ...row, print_spec: full });
    // And its print-area layer drawn to the full outline too.
    const [area] = (await catalogWrites.mediaOfKind(t.db, ref, ['layer'])).filter((m) => m.name === 'print-area');
    const staleLayer = await sharp({
      create: {
        width: Math.round(outline.widthMm * LAYER_PX_PER_MM),
        height: Math.round(outline.heightMm * LAYER_PX_PER_MM),
        channels: 4,
        background: '#ffffff',
      },
    })
      .png()
      .toBuffer();
    const sha256 = createHash('sha256').update(staleLayer).digest('hex');
    await t.s.blobs.put(`catalog/${sha256}.png`, staleLayer);
    await catalogWrites.deleteMedia(t.db, ref, area.filename);
    await catalogWrites.insertMedia(t.db, {
      ...area,
      blob_key: `catalog/${sha256}.png`,
      sha256,
      size: staleLayer.length,
      width: Math.round(outline.widthMm * LAYER_PX_PER_MM),
      height: Math.round(outline.heightMm * LAYER_PX_PER_MM),
    });
    t.s.changes.changed(CATALOG_TOPIC);

    const detail = (await call(t, 'GET', `/v2/products/${ref}`)).data.product;
    const { modified, ...answered } = detail.print;
    assert.deepEqual(answered, inset);
    const layerWidth = async (d: any) => {
      const l = d.layers.images.find((x: any) => x.name === 'print-area');
      return (await sharp((await call(t, 'GET', new URL(l.url).pathname)).rawPayload).metadata()).width;
    };
    assert.equal(
      await layerWidth(detail),
      Math.round(outline.widthMm * LAYER_PX_PER_MM),
      'stored layers until redrawn',
    );
    const listed = (await t.s.catalog.findProductData(t.seed.organizations[0].reference, ref))!.print!;
    assert.deepEqual({ ...listed, modified: undefined }, { ...inset, modified: undefined });

    const image = await artwork(t);
    const order = await createOrder(t, orderBody(t, image));
    await startProduction(t, order);
    await t.s.worker.drain();
    const [file] = (await operator(t, 'GET', `/orders/${order}/print-files`)).data.printFiles;
    assert.equal(file.status, 'ready', JSON.stringify(file));
    assert.deepEqual(
      [file.print.widthPx, file.print.heightPx, file.print.dpi],
      [inset.widthPx, inset.heightPx, inset.dpi],
    );

    // The lifecycle advance stores the geometry's spec in its place: printModified says it changed.
    await t.s.catalog.advanceLifecycle();
    assert.deepEqual((await catalogWrites.lockProduct(t.db, ref))!.print_spec, inset);
    const after = (await call(t, 'GET', `/v2/products/${ref}`)).data.product;
    assert.equal(after.printModified, t.clock.now().toISOString());
    assert.deepEqual({ ...after.print, modified: undefined }, { ...inset, modified: undefined });
    const areaLayer = after.layers.images.find((l: any) => l.name === 'print-area');
    const layer = await sharp((await call(t, 'GET', new URL(areaLayer.url).pathname)).rawPayload).metadata();
    assert.deepEqual(
      [layer.width, layer.height],
      [Math.round(inset.widthMm * LAYER_PX_PER_MM), Math.round(inset.heightMm * LAYER_PX_PER_MM)],
      'the print-area layer is drawn anew: the inset area',
    );
    assert.equal(after.layersModified, t.clock.now().toISOString());
  });
});
