import type { FastifyInstance } from 'fastify';

/** The service's mark: a phone case with its camera opening and a printed band, on the header's navy. */
export const FAVICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64">
<rect width="64" height="64" rx="14" fill="#14213d"/>
<rect x="17" y="6" width="30" height="52" rx="8" fill="#ffffff"/>
<rect x="21" y="10" width="11" height="14" rx="4" fill="#14213d"/>
<circle cx="26.5" cy="14.5" r="2.4" fill="#8fb4f0"/>
<circle cx="26.5" cy="20" r="2.4" fill="#8fb4f0"/>
<path d="M17 36 L47 28 L47 44 L17 52 Z" fill="#0b57d0"/>
</svg>`;

const SIZES = [16, 32, 48];

/**
 * An .ico file holding one PNG per size (the ICONDIR header, a 16-byte entry per image, then the
 * images), which every browser reads.
 */
export function icoOf(pngs: Array<{ size: number; png: Buffer }>): Buffer {
  const header = Buffer.alloc(6 + 16 * pngs.length);
  header.writeUInt16LE(0, 0);
  header.writeUInt16LE(1, 2);
  header.writeUInt16LE(pngs.length, 4);
  let offset = header.length;
  pngs.forEach(({ size, png }, i) => {
    const at = 6 + 16 * i;
    header.writeUInt8(size >= 256 ? 0 : size, at);
    header.writeUInt8(size >= 256 ? 0 : size, at + 1);
    header.writeUInt16LE(1, at + 4);
    header.writeUInt16LE(32, at + 6);
    header.writeUInt32LE(png.length, at + 8);
    header.writeUInt32LE(offset, at + 12);
    offset += png.length;
  });
  return Buffer.concat([header, ...pngs.map((p) => p.png)]);
}

/** `/favicon.ico` (browsers ask for it on every site) and `/favicon.svg`, drawn on the first request. */
export function installFavicon(app: FastifyInstance): void {
  let ico: Promise<Buffer> | undefined;
  const draw = async () => {
    const { default: sharp } = await import('sharp');
    const svg = Buffer.from(FAVICON_SVG);
    const pngs = await Promise.all(
      SIZES.map(async (size) => ({
        size,
        png: await sharp(svg, { density: 72 * (size / 64) * 4 })
          .resize(size, size)
          .png()
          .toBuffer(),
      })),
    );
    return icoOf(pngs);
  };
  const cached = 'public, max-age=86400';
  app.get('/favicon.ico', { config: { access: 'public' }, schema: { hide: true } }, async (_req, reply) => {
    ico ??= draw().catch((err: unknown) => {
      ico = undefined;
      throw err;
    });
    return reply
      .type('image/x-icon')
      .header('cache-control', cached)
      .send(await ico);
  });
  app.get('/favicon.svg', { config: { access: 'public' }, schema: { hide: true } }, async (_req, reply) =>
    reply.type('image/svg+xml').header('cache-control', cached).send(FAVICON_SVG),
  );
}
