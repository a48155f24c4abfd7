/**
 * The case of a stage template, rendered at run time from its geometry: the flat printed back by an
 * exact ray-plane test, the rounded edge and side wall as a triangle mesh (perspective-correct,
 * four samples a pixel), the camera cut-out with the phone's island and lenses in it, and the
 * case's contact shadow on the plate. Out come the template's UV map (u, v across the back as the
 * flatbed prints it), its layers (mask, shading, highlight) and the background with hole and shadow. The case
 * is convex and the mesh holds only the faces toward the camera, so no depth buffer is needed.
 * Runs on the compositor's threads (pixel-worker.ts).
 */
import { type CaseJob, type Ctx, VERTEX_STRIDE, context, light, printOf, ray, sdRound } from './case-context.ts';

export type { CaseJob };
export { VERTEX_STRIDE };

/** Signed distance to the flat back's outline (inset by the edge radius) of the print point. */
const backDistance = (k: Ctx, x: number, y: number) =>
  sdRound(x, y, k.cW / 2, k.cH / 2, k.cW / 2 - k.re, k.cH / 2 - k.re, k.rc - k.re);

/** How many of four samples of pixel (x, y) fall on the flat back (the centre ray hit it at t). */
function backCoverage(k: Ctx, x: number, y: number, t: number) {
  printOf(k, k.ex + t * k.rd[0], k.ey + t * k.rd[1]);
  const dc = backDistance(k, k.pr[0], k.pr[1]);
  // Far from the flat back's outline one ray decides; near it, four samples.
  const far = (2 * t) / k.c[12];
  if (dc < -far) return 4;
  if (dc > far) return 0;
  let n = 0;
  for (let s = 0; s < 4; s++) {
    ray(k, x + 0.25 + 0.5 * (s & 1), y + 0.25 + 0.5 * (s >> 1));
    const ts = (k.D - k.ez) / k.rd[2];
    printOf(k, k.ex + ts * k.rd[0], k.ey + ts * k.rd[1]);
    if (backDistance(k, k.pr[0], k.pr[1]) <= 0) n++;
  }
  return n;
}

/** The stitched seam (leather) and the tough case's raised lip, on k.sh at print point (U, V). */
function backDetails(k: Ctx, U: number, V: number, px: number) {
  // Distance inward from the back's outline (mm, negative inside).
  const dOut = sdRound(U, V, k.cW / 2, k.cH / 2, k.cW / 2, k.cH / 2, k.rc);
  if (k.stitched) {
    // A stitched seam 1.6 mm inside the flat back: dashes pressed into the leather.
    const line = Math.max(0, Math.min(1, 0.5 - (Math.abs(dOut + k.re + 1.6) - 0.2) / px));
    const phase = (U + V) / 2.6 - Math.floor((U + V) / 2.6);
    const dash = phase < 0.6 ? 1 : 0;
    k.sh[0] *= 1 - 0.4 * line * dash;
    k.sh[1] += 0.12 * line * dash;
  }
  if (k.bezel) {
    // A raised lip along the edge: its inner slope in shadow, its crest catching the light.
    const b = dOut + k.re + 1.4;
    if (b > 0) {
      const q = Math.min(1, b / 1.4);
      k.sh[0] *= 0.78 + 0.22 * q;
      k.sh[1] += 0.3 * Math.max(0, 1 - Math.abs(q - 0.85) / 0.15);
    }
  }
}

/** Lays the colour (r, g, b) over k.rgb with opacity `a`. */
function over(k: Ctx, r: number, g: number, b: number, a: number) {
  k.rgb[0] += (r - k.rgb[0]) * a;
  k.rgb[1] += (g - k.rgb[1]) * a;
  k.rgb[2] += (b - k.rgb[2]) * a;
}

/** Antialiased coverage of a shape whose signed distance is `dist` (mm), a pixel being `px` mm. */
const edge = (px: number, dist: number) => Math.max(0, Math.min(1, 0.5 - dist / px));

/**
 * What shows in the camera cut-out at print point (U, V), into k.rgb: the phone's back, its island
 * and lenses, the hole's wall (`d`: distance to the cut-out's outline; `px`: a pixel in mm).
 */
function holeColour(k: Ctx, U: number, V: number, d: number, px: number) {
  const h = k.h;
  const phR = h[10];
  const phG = h[11];
  const phB = h[12];
  k.rgb[0] = phR * 0.78;
  k.rgb[1] = phG * 0.78;
  k.rgb[2] = phB * 0.78;
  const di = h[6] === 1 ? Math.hypot(U - h[7], V - h[8]) - h[9] : sdRound(U, V, h[7], h[8], h[13], h[14], h[15]);
  const ai = di / px < -0.5 ? 1 : di / px > 0.5 ? 0 : 0.5 - di / px;
  const lift = 0.95 + 0.08 * Math.max(0, Math.min(1, (h[8] - V) / (2 * h[14] + 1e-6) + 0.5));
  over(k, phR * lift, phG * lift, phB * lift, ai);
  const nl = h[20];
  for (let q = 0; q < nl; q++) {
    const cx = h[24 + q * 3];
    const cy = h[25 + q * 3];
    const R = h[26 + q * 3];
    const dist = Math.hypot(U - cx, V - cy);
    over(k, 43, 46, 51, edge(px, dist - R));
    over(k, 11, 12, 16, edge(px, dist - 0.72 * R));
    over(k, 20, 26, 42, edge(px, dist - 0.42 * R));
    over(k, 200, 205, 215, edge(px, Math.hypot(U - cx + 0.25 * R, V - cy + 0.28 * R) - 0.12 * R) * 0.6);
  }
  // The cut-out's wall, in the camera rim's colour, shaded.
  over(k, h[16] * 0.55, h[17] * 0.55, h[18] * 0.55, Math.max(0, Math.min(1, 0.5 - (-0.9 - d) / px)));
}

/**
 * The flat back at pixel (x, y): exact ray-plane intersection at four samples a pixel near its
 * outline; its print point, light and details into the accumulator at `a`, and the cut-out's colour.
 */
function backPixel(k: Ctx, acc: Float64Array, a: number, x: number, y: number) {
  ray(k, x + 0.5, y + 0.5);
  if (k.rd[2] >= 0) return;
  const t = (k.D - k.ez) / k.rd[2];
  const n = backCoverage(k, x, y, t);
  if (n === 0) return;
  ray(k, x + 0.5, y + 0.5);
  const rd = k.rd;
  printOf(k, k.ex + t * rd[0], k.ey + t * rd[1]);
  const c = k.c;
  const h = k.h;
  light(k, 0, 0, 1, -rd[0], -rd[1], -rd[2]);
  // Size of a pixel on the back, for the cut-out's smooth edge.
  const depth = t * (c[9] * rd[0] + c[10] * rd[1] + c[11] * rd[2]);
  const pxMm = depth / c[12] / Math.sqrt(Math.abs(rd[2]));
  const U = k.pr[0];
  const V = k.pr[1];
  const w = n / 4;
  const d = h[0] === 1 ? Math.hypot(U - h[1], V - h[2]) - h[3] : sdRound(U, V, h[1], h[2], h[3], h[4], h[5]);
  const px = Math.abs(pxMm) > 1e-6 ? Math.abs(pxMm) : 0.1;
  const inHole = d / px < -0.5 ? 1 : d / px > 0.5 ? 0 : 0.5 - d / px;
  const ws = w * (1 - inHole);
  if (k.stitched || k.bezel) backDetails(k, U, V, px);
  acc[a] += ws;
  acc[a + 1] += U * ws;
  acc[a + 2] += V * ws;
  acc[a + 3] += k.sh[0] * ws;
  acc[a + 4] += k.sh[1] * ws;
  if (inHole > 0) {
    holeColour(k, U, V, d, px);
    const wh = w * inHole;
    acc[a + 5] += wh;
    acc[a + 6] += k.rgb[0] * wh;
    acc[a + 7] += k.rgb[1] * wh;
    acc[a + 8] += k.rgb[2] * wh;
  }
}

/**
 * The leather grain at print point (U, V) as a factor on the colour: the tile the warp lays over the
 * printed surface (6 texels a mm from the bleed's corner, bilinear), so it runs on unbroken from the
 * edge down the wall (the wall's U, V unroll it beyond the outline).
 */
function grainAt(k: Ctx, U: number, V: number) {
  const gs = k.gs;
  const g = k.gt;
  const tx = (U + k.bleed) * 6;
  const ty = (V + k.bleed) * 6;
  const ix = Math.floor(tx);
  const iy = Math.floor(ty);
  const fx = tx - ix;
  const fy = ty - iy;
  const c0 = ((ix % gs) + gs) % gs;
  const c1 = (c0 + 1) % gs;
  const r0 = (((iy % gs) + gs) % gs) * gs;
  const r1 = ((r0 / gs + 1) % gs) * gs;
  const t0 = g[r0 + c0] + (g[r0 + c1] - g[r0 + c0]) * fx;
  const t1 = g[r1 + c0] + (g[r1 + c1] - g[r1 + c0]) * fx;
  return 1 - k.grain + (k.grain * (t0 + (t1 - t0) * fy)) / 160;
}

/**
 * An unprinted part of the rim (drawn into the background, outside the mask). A clear rim shows
 * the phone's side through it, lit like the rim, tinted by the shell, with the shell's gloss on
 * top; the side wall of any other case, which a flatbed does not reach, shows the side wall's
 * colour (the colourway's bezel, else the shell's).
 * A leather wall shows the grain and a stitched seam along its middle (`px`: a pixel in mm).
 */
function unprintedRim(k: Ctx, acc: Float64Array, a: number, w: number, U: number, V: number, px: number) {
  let lit = Math.min(1.15, 0.3 + 0.7 * k.sh[0]);
  let gl = Math.min(1, k.sh[1] * (k.clear > 0 ? 0.9 : 0.3));
  if (k.grain > 0) lit *= grainAt(k, U, V);
  if (k.wallSeam) {
    // How far down the wall (mm below the edge): the seam is a row of dashes at half its height.
    const down = sdRound(U, V, k.cW / 2, k.cH / 2, k.cW / 2, k.cH / 2, k.rc);
    const line = Math.max(0, Math.min(1, 0.5 - (Math.abs(down - k.wallMm / 2) - 0.3) / px));
    const phase = (U + V) / 2.6 - Math.floor((U + V) / 2.6);
    const dash = phase < 0.6 ? line : 0;
    // The thread: paler than the leather it is sewn through, with a little sheen.
    lit *= 1 + 0.5 * dash;
    gl = Math.min(1, gl + 0.1 * dash);
  }
  for (let q = 0; q < 3; q++) {
    const col = (k.h[10 + q] * 0.82 * k.clear + k.h[21 + q] * (1 - k.clear)) * lit;
    acc[a + 6 + q] += (255 - (255 - Math.min(255, col)) * (1 - gl)) * w;
  }
  acc[a + 5] += w;
}

/** One rim triangle (vertex offsets i0..i2) over rows sy0..sy1 of the strip. */
function rimTriangle(
  k: Ctx,
  vt: Float64Array,
  acc: Float64Array,
  i0: number,
  i1: number,
  i2: number,
  sy0: number,
  sy1: number,
) {
  const x0 = vt[i0];
  const y0 = vt[i0 + 1];
  const x1 = vt[i1];
  const y1 = vt[i1 + 1];
  const x2 = vt[i2];
  const y2 = vt[i2 + 1];
  const area = (x1 - x0) * (y2 - y0) - (x2 - x0) * (y1 - y0);
  if (Math.abs(area) < 1e-9) return;
  const minY = Math.max(sy0, Math.floor(Math.min(y0, y1, y2)));
  const maxY = Math.min(sy1 - 1, Math.ceil(Math.max(y0, y1, y2)));
  if (minY > maxY) return;
  const minX = Math.max(k.bx0, Math.floor(Math.min(x0, x1, x2)));
  const maxX = Math.min(k.bx1 - 1, Math.ceil(Math.max(x0, x1, x2)));
  const inv = 1 / area;
  for (let y = minY; y <= maxY; y++) {
    for (let x = minX; x <= maxX; x++) {
      let n = 0;
      for (let s = 0; s < 4; s++) {
        const px = x + 0.25 + 0.5 * (s & 1);
        const py = y + 0.25 + 0.5 * (s >> 1);
        const w0 = ((x1 - px) * (y2 - py) - (x2 - px) * (y1 - py)) * inv;
        const w1 = ((x2 - px) * (y0 - py) - (x0 - px) * (y2 - py)) * inv;
        const w2 = 1 - w0 - w1;
        if (w0 >= 0 && w1 >= 0 && w2 >= 0) n++;
      }
      if (n === 0) continue;
      const px = x + 0.5;
      const py = y + 0.5;
      const w0 = ((x1 - px) * (y2 - py) - (x2 - px) * (y1 - py)) * inv;
      const w1 = ((x2 - px) * (y0 - py) - (x0 - px) * (y2 - py)) * inv;
      const w2 = 1 - w0 - w1;
      // Perspective-correct attributes: each vertex carries them divided by its depth.
      const iz = w0 * vt[i0 + 2] + w1 * vt[i1 + 2] + w2 * vt[i2 + 2];
      const U = (w0 * vt[i0 + 3] + w1 * vt[i1 + 3] + w2 * vt[i2 + 3]) / iz;
      const V = (w0 * vt[i0 + 4] + w1 * vt[i1 + 4] + w2 * vt[i2 + 4]) / iz;
      let nx = (w0 * vt[i0 + 5] + w1 * vt[i1 + 5] + w2 * vt[i2 + 5]) / iz;
      let ny = (w0 * vt[i0 + 6] + w1 * vt[i1 + 6] + w2 * vt[i2 + 6]) / iz;
      let nz = (w0 * vt[i0 + 7] + w1 * vt[i1 + 7] + w2 * vt[i2 + 7]) / iz;
      const nl = Math.sqrt(nx * nx + ny * ny + nz * nz) || 1;
      nx /= nl;
      ny /= nl;
      nz /= nl;
      ray(k, px, py);
      light(k, nx, ny, nz, -k.rd[0], -k.rd[1], -k.rd[2]);
      const a = ((y - sy0) * k.bw + (x - k.bx0)) * 9;
      const w = n / 4;
      // Printed: the rounded edge up to the outline, seen from above; not: a clear rim, the side wall.
      if (k.clear > 0 || sdRound(U, V, k.cW / 2, k.cH / 2, k.cW / 2, k.cH / 2, k.rc) > 0.01) {
        // A pixel's size on the wall (mm): its depth over the focal length, stretched as the wall
        // turns away from the eye.
        const facing = Math.max(0.2, -(nx * k.rd[0] + ny * k.rd[1] + nz * k.rd[2]));
        unprintedRim(k, acc, a, w, U, V, 1 / iz / k.c[12] / facing);
        continue;
      }
      acc[a] += w;
      acc[a + 1] += U * w;
      acc[a + 2] += V * w;
      acc[a + 3] += k.sh[0] * w;
      acc[a + 4] += k.sh[1] * w;
    }
  }
}

/**
 * Signed distance to the case's outline of the last print point. A function of the module, not a
 * closure made per pixel: run through tsx, each closure made is also named (Object.defineProperty),
 * which takes more of the case's time than its shading.
 */
const caseOutline = (k: Ctx) => sdRound(k.pr[0], k.pr[1], k.cW / 2, k.cH / 2, k.cW / 2, k.cH / 2, k.rc);

/** The floor at pixel (x, y), beside the case: contact darkening and the key light's soft shadow. */
function floorShadow(k: Ctx, bg: Uint8Array, o: number, x: number, y: number) {
  ray(k, x + 0.5, y + 0.5);
  if (k.rd[2] >= 0) return;
  const t = -k.ez / k.rd[2];
  const fx = k.ex + t * k.rd[0];
  const fy = k.ey + t * k.rd[1];
  printOf(k, fx, fy);
  const d0 = caseOutline(k);
  const along = (k.D * 0.55) / k.lz;
  printOf(k, fx + k.lx * along, fy + k.ly * along);
  const d1 = caseOutline(k);
  const s = Math.max(0, Math.min(1, (d1 + 3) / 10));
  const f = (1 - 0.5 * Math.exp(-Math.max(0, d0) / 2.2)) * (1 - 0.3 * (1 - s * s * (3 - 2 * s)));
  bg[o] *= f;
  bg[o + 1] *= f;
  bg[o + 2] *= f;
}

/** Resolves the strip: the shadow on the floor, the cut-out into the background, UV and layers. */
function resolveStrip(k: Ctx, j: CaseJob, acc: Float64Array, sy0: number, sy1: number) {
  const { background: bg, uv, layers } = j;
  for (let y = sy0; y < sy1; y++) {
    for (let x = k.bx0; x < k.bx1; x++) {
      const a = ((y - sy0) * k.bw + (x - k.bx0)) * 9;
      const o = (y * k.W + x) * 3;
      let cov = acc[a];
      const holeW = acc[a + 5];
      if (cov + holeW < 1) floorShadow(k, bg, o, x, y);
      if (cov > 1) cov = 1;
      if (holeW > 0) {
        // Premultiplied hole colour over what the plate shows of this pixel, unpremultiplied by
        // the part the case does not cover (the warp lays the case over it through the mask).
        const rest = 1 - cov;
        const plate = Math.max(0, rest - holeW);
        for (let q = 0; q < 3; q++) {
          const v = rest > 1e-6 ? (bg[o + q] * plate + acc[a + 6 + q]) / rest : bg[o + q];
          bg[o + q] = v > 255 ? 255 : v < 0 ? 0 : v + 0.5;
        }
      }
      if (cov <= 0) continue;
      const u = (acc[a + 1] / acc[a] + k.bleed) / (k.cW + 2 * k.bleed);
      const v = (acc[a + 2] / acc[a] + k.bleed) / (k.cH + 2 * k.bleed);
      const q = ((y - k.by0) * k.bw + (x - k.bx0)) * 3;
      uv[q] = Math.round((u < 0 ? 0 : u > 1 ? 1 : u) * 65535);
      uv[q + 1] = Math.round((v < 0 ? 0 : v > 1 ? 1 : v) * 65535);
      uv[q + 2] = 0;
      const shade = acc[a + 3] / acc[a];
      const hi = acc[a + 4] / acc[a] + (shade > 1 ? (shade - 1) * 0.5 : 0);
      layers[q] = Math.round(cov * 255);
      layers[q + 1] = Math.round((shade > 1 ? 1 : shade) * 255);
      layers[q + 2] = Math.round((hi > 1 ? 1 : hi) * 255);
    }
  }
}

export function caseKernel(j: CaseJob): void {
  const k = context(j);
  const { layers, tris, verts: vt } = j;
  // Outside the case: no mask, neutral shading.
  for (let i = 1; i < layers.length; i += 3) layers[i] = 255;
  const STRIP = 32;
  const acc = new Float64Array(STRIP * k.bw * 9);
  for (let sy0 = k.by0; sy0 < k.by1; sy0 += STRIP) {
    const sy1 = Math.min(k.by1, sy0 + STRIP);
    acc.fill(0);
    for (let y = sy0; y < sy1; y++)
      for (let x = k.bx0; x < k.bx1; x++) backPixel(k, acc, ((y - sy0) * k.bw + (x - k.bx0)) * 9, x, y);
    // The rounded edge and the side wall: the mesh's visible triangles.
    for (let t = 0; t < tris.length; t += 3)
      rimTriangle(
        k,
        vt,
        acc,
        tris[t] * VERTEX_STRIDE,
        tris[t + 1] * VERTEX_STRIDE,
        tris[t + 2] * VERTEX_STRIDE,
        sy0,
        sy1,
      );
    resolveStrip(k, j, acc, sy0, sy1);
  }
}
