/**
 * The case of a stage template, rendered at run time from its geometry: the flat printed back by an
 * exact ray-plane test, the rounded edge and side wall as a triangle mesh (perspective-correct,
 * four samples a pixel), the camera cut-out with the phone's island and lenses in it, and the
 * case's contact shadow on the plate. Out come the template's UV map (u, v across the back and its
 * bleed), its layers (mask, shading, highlight) and the background with hole and shadow. The case
 * is convex and the mesh holds only the faces toward the camera, so no depth buffer is needed.
 * Runs on the compositor's threads (pixel-worker.ts).
 */
export interface CaseJob {
  width: number;
  height: number;
  /** Pixel box to work on (x0, y0, x1, y1), exclusive ends: the case and its shadow. */
  box: Int32Array;
  /** In: the plate; out: the plate with the case's shadow and, in the camera cut-out, the phone. */
  background: Uint8Array;
  /** Out: 16-bit u, v, 0 per pixel of the box (row by row). */
  uv: Uint16Array;
  /** Out: mask, shading, highlight per pixel of the box. */
  layers: Uint8Array;
  /** eye(3), right(3), up(3), forward(3), f, cx, cy. */
  cam: Float64Array;
  /** Mesh vertices, VERTEX_STRIDE numbers each: sx, sy, 1/z, then U, V, nx, ny, nz divided by z. */
  verts: Float64Array;
  /** Visible rim triangles: three vertex indices each. */
  tris: Int32Array;
  /** Numbers of the case: see CASE_PARAMS in stage/case-mesh.ts. */
  p: Float64Array;
  /** Camera cut-out and what shows in it: see HOLE_PARAMS in stage/case-mesh.ts; lenses after. */
  hole: Float64Array;
}

export const VERTEX_STRIDE = 8;

export function caseKernel(j: CaseJob): void {
  const { width: W, verts: vt, tris, p, hole: h, cam: c, background: bg, uv, layers } = j;
  const bx0 = j.box[0];
  const by0 = j.box[1];
  const bx1 = j.box[2];
  const by1 = j.box[3];
  const bw = bx1 - bx0;
  // Case numbers.
  const cW = p[0];
  const cH = p[1];
  const D = p[2];
  const re = p[3];
  const rc = p[4];
  const bleed = p[5];
  const co = p[6];
  const si = p[7];
  const lx = p[8];
  const ly = p[9];
  const lz = p[10];
  const amb = p[11];
  const specK = p[12];
  const stitched = p[13] > 0;
  const bezel = p[14] > 0;
  const clear = p[15];
  const ex = c[0];
  const ey = c[1];
  const ez = c[2];
  const flatLight = amb + (1 - amb) * lz;
  const sdRound = (x: number, y: number, cx: number, cy: number, hx: number, hy: number, r: number) => {
    const qx = Math.abs(x - cx) - (hx - r);
    const qy = Math.abs(y - cy) - (hy - r);
    const ox = qx > 0 ? qx : 0;
    const oy = qy > 0 ? qy : 0;
    return Math.sqrt(ox * ox + oy * oy) + Math.min(Math.max(qx, qy), 0) - r;
  };
  // Print coordinates (mm, from the back's top-left seen from behind) of a world point.
  const toPrint = new Float64Array(2);
  const printOf = (x: number, y: number) => {
    const lx2 = x * co + y * si;
    const ly2 = -x * si + y * co;
    toPrint[0] = lx2 + cW / 2;
    toPrint[1] = cH / 2 - ly2;
  };
  // Ray direction through a screen point into rd.
  const rd = new Float64Array(3);
  const ray = (sx: number, sy: number) => {
    let dx = c[9] * c[12] + c[3] * (sx - c[13]) - c[6] * (sy - c[14]);
    let dy = c[10] * c[12] + c[4] * (sx - c[13]) - c[7] * (sy - c[14]);
    let dz = c[11] * c[12] + c[5] * (sx - c[13]) - c[8] * (sy - c[14]);
    const l = Math.sqrt(dx * dx + dy * dy + dz * dz);
    dx /= l;
    dy /= l;
    dz /= l;
    rd[0] = dx;
    rd[1] = dy;
    rd[2] = dz;
  };
  // Half-vector light model: shading relative to the flat back, highlight from a specular lobe and
  // a Fresnel sheen (the edge catches the bright surroundings).
  const sh = new Float64Array(2);
  const light = (nx: number, ny: number, nz: number, vx: number, vy: number, vz: number) => {
    const diff = Math.max(0, nx * lx + ny * ly + nz * lz);
    sh[0] = (amb * (0.8 + 0.2 * nz) + (1 - amb) * diff) / flatLight;
    let hx = lx + vx;
    let hy = ly + vy;
    let hz = lz + vz;
    const hl = Math.sqrt(hx * hx + hy * hy + hz * hz);
    hx /= hl;
    hy /= hl;
    hz /= hl;
    const nh = Math.max(0, nx * hx + ny * hy + nz * hz);
    const nv = Math.max(0, nx * vx + ny * vy + nz * vz);
    const fres = (1 - nv) ** 5;
    sh[1] = specK * nh ** 60 + 0.55 * fres;
  };
  // Outside the case: no mask, neutral shading.
  for (let i = 1; i < layers.length; i += 3) layers[i] = 255;
  const STRIP = 32;
  const acc = new Float64Array(STRIP * bw * 9);
  for (let sy0 = by0; sy0 < by1; sy0 += STRIP) {
    const sy1 = Math.min(by1, sy0 + STRIP);
    acc.fill(0);
    // The flat back: exact ray-plane intersection at four samples a pixel.
    for (let y = sy0; y < sy1; y++) {
      for (let x = bx0; x < bx1; x++) {
        ray(x + 0.5, y + 0.5);
        if (rd[2] >= 0) continue;
        const t = (D - ez) / rd[2];
        printOf(ex + t * rd[0], ey + t * rd[1]);
        const dc = sdRound(toPrint[0], toPrint[1], cW / 2, cH / 2, cW / 2 - re, cH / 2 - re, rc - re);
        // Far from the flat back's outline one ray decides; near it, four samples.
        const far = (2 * t) / c[12];
        let n = dc < -far ? 4 : 0;
        if (dc >= -far && dc <= far)
          for (let s = 0; s < 4; s++) {
            ray(x + 0.25 + 0.5 * (s & 1), y + 0.25 + 0.5 * (s >> 1));
            const ts = (D - ez) / rd[2];
            printOf(ex + ts * rd[0], ey + ts * rd[1]);
            if (sdRound(toPrint[0], toPrint[1], cW / 2, cH / 2, cW / 2 - re, cH / 2 - re, rc - re) <= 0) n++;
          }
        if (n === 0) continue;
        ray(x + 0.5, y + 0.5);
        printOf(ex + t * rd[0], ey + t * rd[1]);
        const a = ((y - sy0) * bw + (x - bx0)) * 9;
        light(0, 0, 1, -rd[0], -rd[1], -rd[2]);
        // Size of a pixel on the back, for the cut-out's smooth edge.
        const depth = t * (c[9] * rd[0] + c[10] * rd[1] + c[11] * rd[2]);
        const pxMm = depth / c[12] / Math.sqrt(Math.abs(rd[2]));
        const U = toPrint[0];
        const V = toPrint[1];
        const w = n / 4;
        const d = h[0] === 1 ? Math.hypot(U - h[1], V - h[2]) - h[3] : sdRound(U, V, h[1], h[2], h[3], h[4], h[5]);
        const px = Math.abs(pxMm) > 1e-6 ? Math.abs(pxMm) : 0.1;
        const inHole = d / px < -0.5 ? 1 : d / px > 0.5 ? 0 : 0.5 - d / px;
        const ws = w * (1 - inHole);
        let shade = sh[0];
        let high = sh[1];
        if (stitched || bezel) {
          // Distance inward from the back's outline (mm, negative inside).
          const dOut = sdRound(U, V, cW / 2, cH / 2, cW / 2, cH / 2, rc);
          if (stitched) {
            // A stitched seam 1.6 mm inside the flat back: dashes pressed into the leather.
            const line = Math.max(0, Math.min(1, 0.5 - (Math.abs(dOut + re + 1.6) - 0.2) / px));
            const phase = (U + V) / 2.6 - Math.floor((U + V) / 2.6);
            const dash = phase < 0.6 ? 1 : 0;
            shade *= 1 - 0.4 * line * dash;
            high += 0.12 * line * dash;
          }
          if (bezel) {
            // A raised lip along the edge: its inner slope in shadow, its crest catching the light.
            const b = dOut + re + 1.4;
            if (b > 0) {
              const k = Math.min(1, b / 1.4);
              shade *= 0.78 + 0.22 * k;
              high += 0.3 * Math.max(0, 1 - Math.abs(k - 0.85) / 0.15);
            }
          }
        }
        acc[a] += ws;
        acc[a + 1] += U * ws;
        acc[a + 2] += V * ws;
        acc[a + 3] += shade * ws;
        acc[a + 4] += high * ws;
        if (inHole > 0) {
          // What shows in the cut-out: the phone's back, its island and lenses, the hole's wall.
          const phR = h[10];
          const phG = h[11];
          const phB = h[12];
          let r = phR * 0.78;
          let g = phG * 0.78;
          let b = phB * 0.78;
          const di =
            h[6] === 1 ? Math.hypot(U - h[7], V - h[8]) - h[9] : sdRound(U, V, h[7], h[8], h[13], h[14], h[15]);
          const ai = di / px < -0.5 ? 1 : di / px > 0.5 ? 0 : 0.5 - di / px;
          const lift = 0.95 + 0.08 * Math.max(0, Math.min(1, (h[8] - V) / (2 * h[14] + 1e-6) + 0.5));
          r += (phR * lift - r) * ai;
          g += (phG * lift - g) * ai;
          b += (phB * lift - b) * ai;
          const nl = h[20];
          for (let k = 0; k < nl; k++) {
            const cx = h[21 + k * 3];
            const cy = h[22 + k * 3];
            const R = h[23 + k * 3];
            const dist = Math.hypot(U - cx, V - cy);
            const ring = Math.max(0, Math.min(1, 0.5 - (dist - R) / px));
            r += (43 - r) * ring;
            g += (46 - g) * ring;
            b += (51 - b) * ring;
            const glass = Math.max(0, Math.min(1, 0.5 - (dist - 0.72 * R) / px));
            r += (11 - r) * glass;
            g += (12 - g) * glass;
            b += (16 - b) * glass;
            const inner = Math.max(0, Math.min(1, 0.5 - (dist - 0.42 * R) / px));
            r += (20 - r) * inner;
            g += (26 - g) * inner;
            b += (42 - b) * inner;
            const glint = Math.max(
              0,
              Math.min(1, 0.5 - (Math.hypot(U - cx + 0.25 * R, V - cy + 0.28 * R) - 0.12 * R) / px),
            );
            r += (200 - r) * glint * 0.6;
            g += (205 - g) * glint * 0.6;
            b += (215 - b) * glint * 0.6;
          }
          // The cut-out's wall, in the shell's colour, shaded.
          const wallA = Math.max(0, Math.min(1, 0.5 - (-0.9 - d) / px));
          r += (h[16] * 0.55 - r) * wallA;
          g += (h[17] * 0.55 - g) * wallA;
          b += (h[18] * 0.55 - b) * wallA;
          const wh = w * inHole;
          acc[a + 5] += wh;
          acc[a + 6] += r * wh;
          acc[a + 7] += g * wh;
          acc[a + 8] += b * wh;
        }
      }
    }
    // The rounded edge and the side wall: the mesh's visible triangles.
    for (let t = 0; t < tris.length; t += 3) {
      const i0 = tris[t] * 8;
      const i1 = tris[t + 1] * 8;
      const i2 = tris[t + 2] * 8;
      const x0 = vt[i0];
      const y0 = vt[i0 + 1];
      const x1 = vt[i1];
      const y1 = vt[i1 + 1];
      const x2 = vt[i2];
      const y2 = vt[i2 + 1];
      const area = (x1 - x0) * (y2 - y0) - (x2 - x0) * (y1 - y0);
      if (Math.abs(area) < 1e-9) continue;
      const minY = Math.max(sy0, Math.floor(Math.min(y0, y1, y2)));
      const maxY = Math.min(sy1 - 1, Math.ceil(Math.max(y0, y1, y2)));
      if (minY > maxY) continue;
      const minX = Math.max(bx0, Math.floor(Math.min(x0, x1, x2)));
      const maxX = Math.min(bx1 - 1, Math.ceil(Math.max(x0, x1, x2)));
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
          ray(px, py);
          light(nx, ny, nz, -rd[0], -rd[1], -rd[2]);
          const a = ((y - sy0) * bw + (x - bx0)) * 9;
          const w = n / 4;
          if (clear > 0) {
            // A clear rim is not printed: the phone's side shows through it, lit like the rim,
            // tinted by the shell, with the shell's own gloss on top (drawn into the background).
            const lit = Math.min(1.15, 0.3 + 0.7 * sh[0]);
            const gl = Math.min(1, sh[1] * 0.9);
            for (let k = 0; k < 3; k++) {
              const col = (h[10 + k] * 0.82 * clear + h[16 + k] * (1 - clear)) * lit;
              acc[a + 6 + k] += (255 - (255 - Math.min(255, col)) * (1 - gl)) * w;
            }
            acc[a + 5] += w;
            continue;
          }
          acc[a] += w;
          acc[a + 1] += U * w;
          acc[a + 2] += V * w;
          acc[a + 3] += sh[0] * w;
          acc[a + 4] += sh[1] * w;
        }
      }
    }
    // Resolve the strip: the shadow on the floor, the cut-out into the background, UV and layers.
    for (let y = sy0; y < sy1; y++) {
      for (let x = bx0; x < bx1; x++) {
        const a = ((y - sy0) * bw + (x - bx0)) * 9;
        const o = (y * W + x) * 3;
        let cov = acc[a];
        const holeW = acc[a + 5];
        if (cov + holeW < 1) {
          // Floor under this pixel: contact darkening and the key light's soft shadow.
          ray(x + 0.5, y + 0.5);
          if (rd[2] < 0) {
            const t = -ez / rd[2];
            const fx = ex + t * rd[0];
            const fy = ey + t * rd[1];
            printOf(fx, fy);
            const d0 = sdRound(toPrint[0], toPrint[1], cW / 2, cH / 2, cW / 2, cH / 2, rc);
            const k = (D * 0.55) / lz;
            printOf(fx + lx * k, fy + ly * k);
            const d1 = sdRound(toPrint[0], toPrint[1], cW / 2, cH / 2, cW / 2, cH / 2, rc);
            const s = Math.max(0, Math.min(1, (d1 + 3) / 10));
            const f = (1 - 0.5 * Math.exp(-Math.max(0, d0) / 2.2)) * (1 - 0.3 * (1 - s * s * (3 - 2 * s)));
            bg[o] *= f;
            bg[o + 1] *= f;
            bg[o + 2] *= f;
          }
        }
        if (cov > 1) cov = 1;
        if (holeW > 0) {
          // Premultiplied hole colour over what the plate shows of this pixel, unpremultiplied by
          // the part the case does not cover (the warp lays the case over it through the mask).
          const rest = 1 - cov;
          const plate = Math.max(0, rest - holeW);
          for (let k = 0; k < 3; k++) {
            const v = rest > 1e-6 ? (bg[o + k] * plate + acc[a + 6 + k]) / rest : bg[o + k];
            bg[o + k] = v > 255 ? 255 : v < 0 ? 0 : v + 0.5;
          }
        }
        if (cov <= 0) continue;
        const u = (acc[a + 1] / acc[a] + bleed) / (cW + 2 * bleed);
        const v = (acc[a + 2] / acc[a] + bleed) / (cH + 2 * bleed);
        const q = ((y - by0) * bw + (x - bx0)) * 3;
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
}
