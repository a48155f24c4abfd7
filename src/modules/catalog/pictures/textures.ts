import sharp from 'sharp';

/**
 * Surface textures as small seamless tiles, drawn once per process: turbulence is the costliest
 * filter there is, so the pictures repeat a tile through an SVG pattern instead of running it.
 */
const TILES = {
  // Pebbled leather: fractal noise lit from the upper left.
  leather: `<filter id="f" x="0" y="0" width="100%" height="100%"><feTurbulence type="fractalNoise" baseFrequency="0.09" numOctaves="3" seed="7" stitchTiles="stitch"/><feDiffuseLighting surfaceScale="2.2" diffuseConstant="1.05" lighting-color="#fff"><feDistantLight azimuth="235" elevation="50"/></feDiffuseLighting></filter><rect width="256" height="256" filter="url(#f)"/>`,
  // The fine tooth of a soft-touch matte shell.
  matte: `<filter id="f" x="0" y="0" width="100%" height="100%"><feTurbulence type="fractalNoise" baseFrequency="0.6" numOctaves="1" seed="3" stitchTiles="stitch"/><feColorMatrix type="saturate" values="0"/></filter><rect width="256" height="256" filter="url(#f)"/>`,
} as const;
export type Texture = keyof typeof TILES;

const tiles = new Map<Texture, Promise<string>>();

/** A texture tile as a data URI (PNG, 256 px square, gray). */
export function textureTile(t: Texture): Promise<string> {
  let tile = tiles.get(t);
  if (!tile) {
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="256" height="256">${TILES[t]}</svg>`;
    tile = sharp(Buffer.from(svg))
      .greyscale()
      .png()
      .toBuffer()
      .then((b) => `data:image/png;base64,${b.toString('base64')}`);
    tiles.set(t, tile);
  }
  return tile;
}
