import sharp from 'sharp';

/** A plain PNG of one colour, base64-encoded as a catalog file carries it. */
export const png = async (w: number, h: number, color: string) =>
  (
    await sharp({ create: { width: w, height: h, channels: 3, background: color } })
      .png()
      .toBuffer()
  ).toString('base64');
