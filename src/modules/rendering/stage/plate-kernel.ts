/**
 * The plate of a stage: floor, props, key light, their shadows and contact shading, ray-cast per
 * pixel (analytic spheres, upright cylinders, boxes; a procedural paper, oak or marble floor). No
 * random sampling anywhere, so flat areas carry no render noise; an ordered dither of half a level
 * keeps gradients from banding. Runs on the compositor's threads (pixel-worker.ts).
 */
export interface PlateJob {
  width: number;
  height: number;
  /** Out: RGB. */
  out: Uint8Array;
  /** eye(3), right(3), up(3), forward(3), f, cx, cy. */
  cam: Float64Array;
  /** Toward the key light, normalised; then the ambient share. */
  light: Float64Array;
  /** 0 paper, 1 oak, 2 marble. */
  floor: number;
  /** Props, PROP_STRIDE numbers each (see stage/plate.ts). */
  props: Float64Array;
  /** Each prop's screen box (x0, y0, x1, y1): pixels there are sampled four times (smooth edges). */
  rects: Float64Array;
}

export const PROP_STRIDE = 16;

export function plateKernel(j: PlateJob): void {
  const { width: W, height: H, out, cam: c, light: Lt, props, rects } = j;
  const ex = c[0];
  const ey = c[1];
  const ez = c[2];
  const lx = Lt[0];
  const ly = Lt[1];
  const lz = Lt[2];
  const amb = Lt[3];
  const nProps = props.length / 16;
  const floorKind = j.floor;
  const hash = (x: number, y: number) => {
    let h = (Math.imul(x | 0, 374761393) + Math.imul(y | 0, 668265263)) | 0;
    h = Math.imul(h ^ (h >>> 13), 1274126177);
    return ((h ^ (h >>> 16)) >>> 0) / 4294967296;
  };
  const noise = (x: number, y: number) => {
    const xi = Math.floor(x);
    const yi = Math.floor(y);
    const fx = x - xi;
    const fy = y - yi;
    const sx = fx * fx * (3 - 2 * fx);
    const sy = fy * fy * (3 - 2 * fy);
    const a = hash(xi, yi);
    const b = hash(xi + 1, yi);
    const d = hash(xi, yi + 1);
    const e = hash(xi + 1, yi + 1);
    return a + (b - a) * sx + (d - a) * sy + (a - b - d + e) * sx * sy;
  };
  const fbm = (x: number, y: number) =>
    noise(x, y) * 0.5 +
    noise(x * 2.03, y * 2.03) * 0.25 +
    noise(x * 4.1, y * 4.1) * 0.125 +
    noise(x * 8.2, y * 8.2) * 0.0625;
  const col = new Float64Array(3);
  // The floor's own colour at (x, y) into col.
  const floorColour = (x: number, y: number) => {
    if (floorKind === 1) {
      // Flat-sawn oak: growth rings around a trunk axis tilted under the board, fibre streaks.
      const a = x * 0.94 + y * 0.34;
      const b = -x * 0.34 + y * 0.94;
      const depth = 60 + a * 0.05;
      const r = Math.sqrt((b + 40) * (b + 40) + depth * depth) + fbm(a * 0.004, b * 0.03) * 14;
      const ring = r * 0.22 - Math.floor(r * 0.22);
      const late = ring > 0.72 ? (ring - 0.72) / 0.28 : 0;
      const fibre = noise(a * 0.01, b * 1.3) * 0.5 + noise(a * 0.02, b * 3.1) * 0.5;
      const k = 0.9 + 0.12 * fbm(a * 0.002, b * 0.01) - 0.22 * late - 0.07 * fibre;
      col[0] = 196 * k;
      col[1] = 146 * k;
      col[2] = 98 * k;
    } else if (floorKind === 2) {
      // Marble: soft grey veins along a distorted diagonal wave, and a fainter second family.
      const t = fbm(x * 0.006, y * 0.006) * 6;
      const v1 = Math.abs(Math.sin((x * 0.6 + y * 0.8) * 0.012 + t));
      const v2 = Math.abs(Math.sin((x * 0.9 - y * 0.4) * 0.02 + t * 1.6 + 1.3));
      const vein = 1 - Math.min(1, v1 / 0.22);
      const faint = 1 - Math.min(1, v2 / 0.12);
      const cloud = fbm(x * 0.015 + 7, y * 0.015) * 0.05;
      const k = 1 - 0.16 * vein * vein * vein - 0.06 * faint * faint - cloud;
      col[0] = 238 * k;
      col[1] = 237 * k;
      col[2] = 233 * k;
    } else {
      // Paper: warm white, a touch cooler and darker toward the back.
      const back = Math.max(0, Math.min(1, (y + 200) / 500));
      col[0] = 246 - 12 * back;
      col[1] = 240 - 8 * back;
      col[2] = 232 - 2 * back;
    }
  };
  // Shadow and contact darkening of a floor point by the props.
  const floorLight = (x: number, y: number) => {
    let sh = 1;
    let ao = 1;
    for (let p = 0; p < nProps; p++) {
      const o = p * 16;
      const kind = props[o];
      if (kind === 0) {
        const cx = props[o + 1];
        const cy = props[o + 2];
        const cz = props[o + 3];
        const r = props[o + 4];
        // Closest approach of the ray toward the light to the centre.
        const dx = cx - x;
        const dy = cy - y;
        const t = dx * lx + dy * ly + cz * lz;
        const qx = dx - t * lx;
        const qy = dy - t * ly;
        const qz = cz - t * lz;
        const d = Math.sqrt(qx * qx + qy * qy + qz * qz);
        const pen = r * 0.25 + 0.12 * Math.max(0, t);
        const s = t <= 0 ? 1 : Math.min(1, Math.max(0, (d - r + pen) / (2 * pen)));
        sh *= 0.35 + 0.65 * s * s * (3 - 2 * s);
        const dd = Math.sqrt(dx * dx + dy * dy + cz * cz);
        ao *= 1 - 0.5 * Math.min(1, (r * r) / (dd * dd)) * (cz / dd);
      } else if (kind === 1) {
        const cx = props[o + 1];
        const cy = props[o + 2];
        const r = props[o + 3];
        const h = props[o + 4];
        // The ray's ground track from (x, y) while it is below the cylinder's top.
        const tmax = h / lz;
        const gx = lx;
        const gy = ly;
        const g2 = gx * gx + gy * gy;
        let t = g2 > 0 ? ((cx - x) * gx + (cy - y) * gy) / g2 : 0;
        if (t < 0) t = 0;
        if (t > tmax) t = tmax;
        const qx = x + gx * t - cx;
        const qy = y + gy * t - cy;
        const d = Math.sqrt(qx * qx + qy * qy);
        const pen = 1.5 + 0.1 * t * lz;
        const s = Math.min(1, Math.max(0, (d - r + pen) / (2 * pen)));
        sh *= 0.35 + 0.65 * s * s * (3 - 2 * s);
        const dx = x - cx;
        const dy = y - cy;
        const e = Math.max(0, Math.sqrt(dx * dx + dy * dy) - r);
        ao *= 1 - 0.42 * Math.exp(-e / (0.18 * r + 3));
      } else {
        const cx = props[o + 1];
        const cy = props[o + 2];
        const co = props[o + 3];
        const si = props[o + 4];
        const hx = props[o + 5];
        const hy = props[o + 6];
        const hz = props[o + 7];
        // In the box's frame; the shadow is the footprint swept toward the light, softened.
        const px = (x - cx) * co + (y - cy) * si;
        const py = -(x - cx) * si + (y - cy) * co;
        const tx = lx * co + ly * si;
        const ty = -lx * si + ly * co;
        let inside = 0;
        for (let k = 0; k <= 4; k++) {
          const t = (hz / lz) * (k / 4);
          const ax = Math.abs(px + tx * t) - hx;
          const ay = Math.abs(py + ty * t) - hy;
          const d = Math.max(ax, ay);
          inside = Math.max(inside, Math.min(1, Math.max(0, 0.5 - d / 3)));
        }
        sh *= 1 - 0.6 * inside;
        const ax = Math.max(0, Math.abs(px) - hx);
        const ay = Math.max(0, Math.abs(py) - hy);
        ao *= 1 - 0.35 * Math.exp(-Math.sqrt(ax * ax + ay * ay) / 3);
      }
    }
    return sh * ao;
  };
  const rgb = new Float64Array(3);
  // Traces one ray; its colour into rgb.
  const trace = (sx: number, sy: number) => {
    // The ray through (sx, sy): forward * f + right * x - up * y.
    let dx = c[9] * c[12] + c[3] * (sx - c[13]) - c[6] * (sy - c[14]);
    let dy = c[10] * c[12] + c[4] * (sx - c[13]) - c[7] * (sy - c[14]);
    let dz = c[11] * c[12] + c[5] * (sx - c[13]) - c[8] * (sy - c[14]);
    const dl = Math.sqrt(dx * dx + dy * dy + dz * dz);
    dx /= dl;
    dy /= dl;
    dz /= dl;
    let best = dz < 0 ? -ez / dz : 1e12;
    let hit = -1;
    let nx = 0;
    let ny = 0;
    let nz = 1;
    let capHit = false;
    for (let p = 0; p < nProps; p++) {
      const o = p * 16;
      const kind = props[o];
      if (kind === 0) {
        const ox = ex - props[o + 1];
        const oy = ey - props[o + 2];
        const oz = ez - props[o + 3];
        const r = props[o + 4];
        const b = ox * dx + oy * dy + oz * dz;
        const cc = ox * ox + oy * oy + oz * oz - r * r;
        const disc = b * b - cc;
        if (disc < 0) continue;
        const t = -b - Math.sqrt(disc);
        if (t > 0 && t < best) {
          best = t;
          hit = p;
          nx = (ox + t * dx) / r;
          ny = (oy + t * dy) / r;
          nz = (oz + t * dz) / r;
          capHit = false;
        }
      } else if (kind === 1) {
        const ox = ex - props[o + 1];
        const oy = ey - props[o + 2];
        const r = props[o + 3];
        const h = props[o + 4];
        // Top cap first (the camera looks down).
        if (dz < 0) {
          const t = (h - ez) / dz;
          const hx = ox + t * dx;
          const hy = oy + t * dy;
          if (t > 0 && t < best && hx * hx + hy * hy <= r * r) {
            best = t;
            hit = p;
            nx = 0;
            ny = 0;
            nz = 1;
            capHit = true;
            continue;
          }
        }
        const a = dx * dx + dy * dy;
        const b = ox * dx + oy * dy;
        const cc = ox * ox + oy * oy - r * r;
        const disc = b * b - a * cc;
        if (disc < 0 || a === 0) continue;
        const t = (-b - Math.sqrt(disc)) / a;
        const z = ez + t * dz;
        if (t > 0 && t < best && z >= 0 && z <= h) {
          best = t;
          hit = p;
          nx = (ox + t * dx) / r;
          ny = (oy + t * dy) / r;
          nz = 0;
          capHit = false;
        }
      } else {
        const co = props[o + 3];
        const si = props[o + 4];
        const ox0 = ex - props[o + 1];
        const oy0 = ey - props[o + 2];
        const ox = ox0 * co + oy0 * si;
        const oy = -ox0 * si + oy0 * co;
        const rx = dx * co + dy * si;
        const ry = -dx * si + dy * co;
        const hx = props[o + 5];
        const hy = props[o + 6];
        const hz = props[o + 7];
        let t0 = -1e12;
        let t1 = 1e12;
        let axis = 0;
        const lo = [-hx, -hy, 0];
        const hi = [hx, hy, hz];
        const org = [ox, oy, ez];
        const dir = [rx, ry, dz];
        let miss = false;
        for (let k = 0; k < 3; k++) {
          if (Math.abs(dir[k]) < 1e-12) {
            if (org[k] < lo[k] || org[k] > hi[k]) miss = true;
            continue;
          }
          let ta = (lo[k] - org[k]) / dir[k];
          let tb = (hi[k] - org[k]) / dir[k];
          if (ta > tb) {
            const s = ta;
            ta = tb;
            tb = s;
          }
          if (ta > t0) {
            t0 = ta;
            axis = k;
          }
          if (tb < t1) t1 = tb;
        }
        if (miss || t0 > t1 || t0 <= 0 || t0 >= best) continue;
        best = t0;
        hit = p;
        const sgn = -Math.sign(dir[axis]);
        const lnx = axis === 0 ? sgn : 0;
        const lny = axis === 1 ? sgn : 0;
        nx = lnx * co - lny * si;
        ny = lnx * si + lny * co;
        nz = axis === 2 ? 1 : 0;
        capHit = axis === 2;
      }
    }
    if (hit < 0) {
      if (dz >= 0) {
        rgb[0] = rgb[1] = rgb[2] = 240;
        return;
      }
      const fx = ex + best * dx;
      const fy = ey + best * dy;
      floorColour(fx, fy);
      const light = (amb + (1 - amb) * lz * floorLight(fx, fy)) / (amb + (1 - amb) * lz);
      // A broad pool of light around the subject, falling off toward the frame's corners.
      const pool = 0.9 + 0.1 * Math.exp(-(fx * fx + fy * fy) / (2 * 260 * 260));
      rgb[0] = col[0] * light * pool;
      rgb[1] = col[1] * light * pool;
      rgb[2] = col[2] * light * pool;
      return;
    }
    const o = hit * 16;
    const kind = props[o];
    let r = 0;
    let g = 0;
    let b = 0;
    let gloss = 0;
    if (kind === 0) {
      r = props[o + 5];
      g = props[o + 6];
      b = props[o + 7];
      gloss = props[o + 8];
    } else if (kind === 1) {
      const k = capHit ? 8 : 5;
      r = props[o + k];
      g = props[o + k + 1];
      b = props[o + k + 2];
      gloss = props[o + 11];
    } else {
      const k = capHit ? 11 : 8;
      r = props[o + k];
      g = props[o + k + 1];
      b = props[o + k + 2];
      gloss = 0.1;
    }
    const pz = ez + best * dz;
    const diff = Math.max(0, nx * lx + ny * ly + nz * lz);
    // Near the floor a prop is darker (the floor's contact occlusion, seen from the prop's side).
    const low = 0.72 + 0.28 * Math.min(1, pz / 10);
    const lit = (0.5 + 0.12 * nz + 0.55 * diff) * low;
    let hx = lx - dx;
    let hy = ly - dy;
    let hz = lz - dz;
    const hl = Math.sqrt(hx * hx + hy * hy + hz * hz);
    hx /= hl;
    hy /= hl;
    hz /= hl;
    const spec = gloss * Math.max(0, nx * hx + ny * hy + nz * hz) ** (6 + 90 * gloss) * 255;
    rgb[0] = r * lit + spec;
    rgb[1] = g * lit + spec;
    rgb[2] = b * lit + spec;
  };
  const bayer = [0, 8, 2, 10, 12, 4, 14, 6, 3, 11, 1, 9, 15, 7, 13, 5];
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      let many = false;
      for (let k = 0; k < rects.length; k += 4)
        if (x >= rects[k] && x <= rects[k + 2] && y >= rects[k + 1] && y <= rects[k + 3]) many = true;
      let r = 0;
      let g = 0;
      let b = 0;
      if (many) {
        for (let s = 0; s < 4; s++) {
          trace(x + 0.25 + 0.5 * (s & 1), y + 0.25 + 0.5 * (s >> 1));
          r += rgb[0];
          g += rgb[1];
          b += rgb[2];
        }
        r /= 4;
        g /= 4;
        b /= 4;
      } else {
        trace(x + 0.5, y + 0.5);
        r = rgb[0];
        g = rgb[1];
        b = rgb[2];
      }
      const d = bayer[(y & 3) * 4 + (x & 3)] / 16 + 0.03;
      const i = (y * W + x) * 3;
      out[i] = r + d > 255 ? 255 : r + d < 0 ? 0 : r + d;
      out[i + 1] = g + d > 255 ? 255 : g + d < 0 ? 0 : g + d;
      out[i + 2] = b + d > 255 ? 255 : b + d < 0 ? 0 : b + d;
    }
  }
}
