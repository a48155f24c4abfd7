import { Open, Reference, Strict, Timestamp, Type } from '../../../platform/http/schemas.ts';

const Point = (which: string) =>
  Strict(
    { x: Type.Number(), y: Type.Number() },
    { description: `The ${which} corner of the case's back, in pixels of the photo as stored (0..width, 0..height)` },
  );

const Corners = Strict(
  {
    topLeft: Point('top left (the camera corner, the back seen from behind)'),
    topRight: Point('top right'),
    bottomRight: Point('bottom right'),
    bottomLeft: Point('bottom left'),
  },
  {
    description:
      "Where the case's back sits on the photo: a convex quadrilateral, clockwise on the photo; the back of every product fills it",
  },
);

export const CreatePhotoScene = Strict({
  photoScene: Strict({
    name: Type.String({ minLength: 1, maxLength: 100 }),
    imageReference: Type.String({
      maxLength: 200,
      description: 'The photo, uploaded with `POST /images` (at least 1000 px on its long edge)',
    }),
    corners: Corners,
  }),
});

export const PhotoScene = Open({
  reference: Reference('Scene'),
  name: Type.String(),
  imageReference: Reference('Image'),
  photo: Open({ widthPx: Type.Integer(), heightPx: Type.Integer() }),
  corners: Corners,
  perspectives: Type.Array(
    Open({
      reference: Reference('Perspective'),
      output: Open({
        widthPx: Type.Integer(),
        heightPx: Type.Integer(),
        format: Type.String({ description: '`png`, `jpeg` or `webp`' }),
      }),
    }),
    {
      description:
        "The scene's perspectives: the photo's aspect at 1000 px on the long edge, and at 2000 px when the photo is that large",
    },
  ),
  created: Timestamp,
});

export const DeletedPhotoScene = Open({ reference: Reference('Scene'), deleted: Type.Literal(true) });
