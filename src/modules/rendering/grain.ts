/**
 * The leather grain texture: pebbled leather as a tile of GRAIN_SIZE² grey levels, drawn by a fixed
 * recipe from a fixed seed, so every process and every node draws the same bytes (a render's bytes,
 * the stored renders and their ETags depend on it). It tiles without a seam: the cells wrap around.
 * The kernels lay it over the case at GRAIN_PER_MM texels a millimetre, sampled bilinearly. It is
 * drawn once a process, on the compositor's threads (~60-250 ms of JavaScript; fit.ts `grain()`).
 *
 * The tile is followed by its mipmap: GRAIN_LEVELS - 1 smaller copies, each the one before averaged
 * 2x2 (128², 64², 32², 16²), so a case seen small samples a copy whose pebbles are no finer than its
 * pixels (warp.ts) instead of reading every other crease of the full tile as speckle.
 */

export const GRAIN_SIZE = 256;
/** The full tile and its four averaged copies. */
export const GRAIN_LEVELS = 5;
/** Bytes of the tile and its mipmap, one after the other. */
export const GRAIN_BYTES = Array.from({ length: GRAIN_LEVELS }, (_, l) => (GRAIN_SIZE >> l) ** 2).reduce(
  (a, b) => a + b,
);
/** Texels a millimetre of case: a pebble (one cell) is ~1.1 mm across, as on pebbled cowhide. */
export const GRAIN_PER_MM = 6;
/** Cells a side of the tile. */
const CELLS = 40;
/** The texture's mean: the kernels scale a colour by texel / GRAIN_MEAN (1 on average). */
export const GRAIN_MEAN = 160;

/** mulberry32: a small PRNG whose sequence is fixed by its seed. */
function seeded(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Pebbles and creases: one jittered point a cell; a texel's two nearest points (over the wrapped
 * grid) give the crease between pebbles (F2 - F1 small) and each pebble's dome (F1), with a faint
 * fine grain on top. Levels are normalised to mean GRAIN_MEAN, standard deviation 20.
 */
export function drawGrain(out: Uint8Array, size = GRAIN_SIZE, seed = 0x1ea7e5): void {
  const rnd = seeded(seed);
  const cell = size / CELLS;
  const pts = new Float64Array(CELLS * CELLS * 2);
  for (let i = 0; i < CELLS * CELLS; i++) {
    pts[i * 2] = rnd();
    pts[i * 2 + 1] = rnd();
  }
  const v = new Float64Array(size * size);
  for (let y = 0; y < size; y++)
    for (let x = 0; x < size; x++) {
      const cx = Math.floor(x / cell);
      const cy = Math.floor(y / cell);
      const px = (x + 0.5) / cell;
      const py = (y + 0.5) / cell;
      // Squared distances in cells; the square roots once, after the search.
      let f1 = Number.POSITIVE_INFINITY;
      let f2 = Number.POSITIVE_INFINITY;
      for (let dy = -2; dy <= 2; dy++)
        for (let dx = -2; dx <= 2; dx++) {
          const gx = cx + dx;
          const gy = cy + dy;
          const p = (((gy + CELLS) % CELLS) * CELLS + ((gx + CELLS) % CELLS)) * 2;
          const ex = gx + pts[p] - px;
          const ey = gy + pts[p + 1] - py;
          const d = ex * ex + ey * ey;
          if (d < f1) {
            f2 = f1;
            f1 = d;
          } else if (d < f2) f2 = d;
        }
      f1 = Math.sqrt(f1);
      f2 = Math.sqrt(f2);
      const crease = Math.min(1, (f2 - f1) / 0.4);
      const dome = 1 - 0.3 * f1 * f1;
      v[y * size + x] = Math.sqrt(crease) * dome + 0.06 * (rnd() - 0.5);
    }
  let mean = 0;
  for (const s of v) mean += s;
  mean /= v.length;
  let sq = 0;
  for (const s of v) sq += (s - mean) ** 2;
  const k = 20 / Math.sqrt(sq / v.length);
  for (let i = 0; i < v.length; i++) out[i] = Math.max(0, Math.min(255, Math.round(GRAIN_MEAN + (v[i] - mean) * k)));
  if (out.length >= GRAIN_BYTES && size === GRAIN_SIZE) mipmap(out);
}

/** Each level after the first: the level before averaged 2x2, rounded half up (integers only). */
function mipmap(out: Uint8Array): void {
  let from = 0;
  for (let l = 1, s = GRAIN_SIZE >> 1; l < GRAIN_LEVELS; l++, s >>= 1) {
    const to = from + 4 * s * s;
    const w = 2 * s;
    for (let y = 0; y < s; y++)
      for (let x = 0; x < s; x++) {
        const a = from + 2 * y * w + 2 * x;
        out[to + y * s + x] = (out[a] + out[a + 1] + out[a + w] + out[a + w + 1] + 2) >> 2;
      }
    from = to;
  }
}
