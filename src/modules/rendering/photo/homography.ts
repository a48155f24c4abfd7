/**
 * The perspective map of a partner's photo scene: the homography that takes the unit square (the
 * case's back, u right, v down, seen from behind) onto the four corners the partner marked, and
 * the checks a set of corners must pass before a scene is made from them.
 */

export type Point = [number, number];
/** The back's top left (the camera's corner seen from behind), top right, bottom right, bottom left. */
export type Corners = [Point, Point, Point, Point];

/**
 * The 3x3 matrix (row by row) mapping (u, v, 1) of the unit square to the quad's (x, y, w), so
 * that (x/w, y/w) is (0,0) -> c0, (1,0) -> c1, (1,1) -> c2, (0,1) -> c3 (Heckbert's closed form).
 */
export function squareToQuad(c: Corners): Float64Array {
  const [[x0, y0], [x1, y1], [x2, y2], [x3, y3]] = c;
  const sx = x0 - x1 + x2 - x3;
  const sy = y0 - y1 + y2 - y3;
  if (Math.abs(sx) < 1e-9 && Math.abs(sy) < 1e-9)
    return Float64Array.from([x1 - x0, x3 - x0, x0, y1 - y0, y3 - y0, y0, 0, 0, 1]);
  const dx1 = x1 - x2;
  const dx2 = x3 - x2;
  const dy1 = y1 - y2;
  const dy2 = y3 - y2;
  const den = dx1 * dy2 - dx2 * dy1;
  const g = (sx * dy2 - dx2 * sy) / den;
  const h = (dx1 * sy - sx * dy1) / den;
  return Float64Array.from([x1 - x0 + g * x1, x3 - x0 + h * x3, x0, y1 - y0 + g * y1, y3 - y0 + h * y3, y0, g, h, 1]);
}

/** The inverse of a 3x3 matrix (row by row), by its adjugate. */
export function invert3(m: Float64Array): Float64Array {
  const [a, b, c, d, e, f, g, h, i] = m;
  const A = e * i - f * h;
  const B = -(d * i - f * g);
  const C = d * h - e * g;
  const det = a * A + b * B + c * C;
  const k = 1 / det;
  return Float64Array.from([
    A * k,
    -(b * i - c * h) * k,
    (b * f - c * e) * k,
    B * k,
    (a * i - c * g) * k,
    -(a * f - c * d) * k,
    C * k,
    -(a * h - b * g) * k,
    (a * e - b * d) * k,
  ]);
}

/** Applies a 3x3 matrix to a point, with the perspective divide. */
export function project(m: Float64Array, x: number, y: number): Point {
  const w = m[6] * x + m[7] * y + m[8];
  return [(m[0] * x + m[1] * y + m[2]) / w, (m[3] * x + m[4] * y + m[5]) / w];
}

/** The shortest side a marked back may have, in pixels of the photo: less cannot show a case. */
export const MIN_SIDE_PX = 48;

export type CornerProblem = { code: 'photo_scene_corners_outside' | 'photo_scene_corners_invalid'; message: string };

/**
 * Why these corners cannot place a case on a photo of this size, or null when they can: every
 * corner inside the photo; the four in order around a convex quadrilateral, clockwise on the
 * screen (top left, top right, bottom right, bottom left of the back seen from behind: the other
 * way round would show the back mirrored), no side shorter than MIN_SIDE_PX.
 */
export function cornerProblem(c: Corners, width: number, height: number): CornerProblem | null {
  const names = ['topLeft', 'topRight', 'bottomRight', 'bottomLeft'];
  for (const [i, [x, y]] of c.entries()) {
    if (!Number.isFinite(x) || !Number.isFinite(y) || x < 0 || y < 0 || x > width || y > height)
      return {
        code: 'photo_scene_corners_outside',
        message: `corner ${names[i]} (${x}, ${y}) lies outside the ${width}x${height} photo`,
      };
  }
  let sign = 0;
  for (let i = 0; i < 4; i++) {
    const [ax, ay] = c[i];
    const [bx, by] = c[(i + 1) % 4];
    const [cx, cy] = c[(i + 2) % 4];
    const side = Math.hypot(bx - ax, by - ay);
    if (side < MIN_SIDE_PX)
      return {
        code: 'photo_scene_corners_invalid',
        message: `the side from ${names[i]} to ${names[(i + 1) % 4]} is ${side.toFixed(1)} px long; each side needs at least ${MIN_SIDE_PX} px`,
      };
    const cross = (bx - ax) * (cy - by) - (by - ay) * (cx - bx);
    const s = Math.sign(cross);
    if (s === 0 || (sign !== 0 && s !== sign))
      return {
        code: 'photo_scene_corners_invalid',
        message:
          'the corners must form a convex quadrilateral: sides that cross or a corner turned inwards cannot hold a case (give them as topLeft, topRight, bottomRight, bottomLeft)',
      };
    sign = s;
  }
  if (sign < 0)
    return {
      code: 'photo_scene_corners_invalid',
      message:
        'the corners run anticlockwise on the photo: give them as topLeft, topRight, bottomRight, bottomLeft of the back seen from behind (the camera at the top left)',
    };
  return null;
}
