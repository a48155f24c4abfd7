import { type ClientRequest, type IncomingMessage, request } from 'node:http';
import { Readable } from 'node:stream';
import { crc32 } from 'node:zlib';
import sharp from 'sharp';
import { type TestApp, call } from '../support/app.ts';

/** Real images, made by sharp; `seed` varies the colour so that each call can give other bytes. */
export async function jpeg(width = 320, height = 200, seed = 0): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: { r: 200, g: seed % 256, b: 40 } } })
    .jpeg()
    .toBuffer();
}

export async function png(width = 320, height = 200, seed = 0): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 4, background: { r: 30, g: 160, b: seed % 256, alpha: 1 } } })
    .png()
    .toBuffer();
}

export async function gif(): Promise<Buffer> {
  return sharp({ create: { width: 40, height: 30, channels: 3, background: '#3366cc' } })
    .gif()
    .toBuffer();
}

/** A few KB of valid PNG whose header claims `side` x `side` pixels (a decompression bomb). */
export async function bombPng(side = 100_000): Promise<Buffer> {
  const bomb = Buffer.from(await png(64, 64));
  // IHDR: length(4) type(4) at offset 8, width at 16, height at 20, CRC over type+data at 29.
  bomb.writeUInt32BE(side, 16);
  bomb.writeUInt32BE(side, 20);
  bomb.writeUInt32BE(crc32(bomb.subarray(12, 29)) >>> 0, 29);
  return bomb;
}

export function upload(t: TestApp, bytes: Buffer, opts: { key?: string; headers?: Record<string, string> } = {}) {
  return call(t, 'POST', '/v2/images', {
    key: opts.key,
    payload: bytes,
    headers: { 'content-type': 'application/octet-stream', ...opts.headers },
  });
}

/** An upload without Content-Length, its body read from `chunks` (an iterable, also lazy). */
export function uploadChunked(t: TestApp, chunks: Iterable<Buffer>, headers: Record<string, string> = {}) {
  return t.app.inject({
    method: 'POST',
    url: '/v2/images',
    headers: {
      'x-service-secret-key': t.key,
      'content-type': 'application/octet-stream',
      'transfer-encoding': 'chunked',
      ...headers,
    },
    payload: Readable.from(chunks),
  });
}

/** A real HTTP upload to a listening test app that declares `length` bytes; the caller writes them. */
export function uploadRequest(
  t: TestApp,
  port: number,
  length: number,
  onResponse?: (res: IncomingMessage) => void,
): ClientRequest {
  return request(
    {
      host: '127.0.0.1',
      port,
      method: 'POST',
      path: '/v2/images',
      headers: {
        'x-service-secret-key': t.key,
        'content-type': 'application/octet-stream',
        'content-length': length,
      },
    },
    onResponse,
  );
}
