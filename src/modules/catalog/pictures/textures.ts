import sharp from 'sharp';

/**
 * Surface textures as small seamless tiles, drawn once per process: turbulence is the costliest
 * filter there is, so the pictures repeat a tile through an SVG pattern instead of running it.
 */
const TILES = {
  // Pebbled leather: fractal noise lit from the upper left; the shade becomes black of that opacity.
  leather: `<filter id="f" x="0" y="0" width="100%" height="100%"><feTurbulence type="fractalNoise" baseFrequency="0.045" numOctaves="3" seed="7" stitchTiles="stitch"/><feDiffuseLighting surfaceScale="3.5" diffuseConstant="1" lighting-color="#fff"><feDistantLight azimuth="235" elevation="40"/></feDiffuseLighting><feColorMatrix values="0 0 0 0 0  0 0 0 0 0  0 0 0 0 0  -0.6 -0.6 -0.6 0 1.65"/></filter><rect width="256" height="256" filter="url(#f)"/>`,
  // The fine tooth of a soft-touch matte shell: light specks.
  matte: `<filter id="f" x="0" y="0" width="100%" height="100%"><feTurbulence type="fractalNoise" baseFrequency="0.5" numOctaves="1" seed="3" stitchTiles="stitch"/><feColorMatrix values="0 0 0 0 1  0 0 0 0 1  0 0 0 0 1  1.2 0 0 0 -0.45"/></filter><rect width="256" height="256" filter="url(#f)"/>`,
} as const;
export type Texture = keyof typeof TILES;

const tiles = new Map<Texture, Promise<string>>();

/** A texture tile as a data URI (PNG, 256 px square: black or white of varying opacity). */
export function textureTile(t: Texture): Promise<string> {
  let tile = tiles.get(t);
  if (!tile) {
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="256" height="256">${TILES[t]}</svg>`;
    tile = sharp(Buffer.from(svg))
      .png()
      .toBuffer()
      .then((b) => `data:image/png;base64,${b.toString('base64')}`);
    tiles.set(t, tile);
  }
  return tile;
}
