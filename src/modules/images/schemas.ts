import { Open, Reference, Timestamp, Type } from '../../platform/http/schemas.ts';

export const Image = Open({
  reference: Reference('Image'),
  width: Type.Integer({ description: 'Pixels, after any automatic downsizing' }),
  height: Type.Integer({ description: 'Pixels, after any automatic downsizing' }),
  format: Type.Union([Type.Literal('jpeg'), Type.Literal('png')]),
  size: Type.Integer({ description: 'Bytes of the stored image (after any downsizing)' }),
  created: Timestamp,
  originalWidth: Type.Optional(Type.Integer({ description: 'Only when the upload was downsized: its width' })),
  originalHeight: Type.Optional(Type.Integer({ description: 'Only when the upload was downsized: its height' })),
});
