/**
 * The noise figure of a plate: the standard deviation, in levels of 255, of a high-pass-filtered
 * patch (each pixel's luminance less the mean of its 3x3 neighbourhood). A flat area of a clean
 * plate scores well under 1.5; render noise (a Cycles plate without denoising) scores several.
 * For the contact sheet and the tests, not the service.
 */
export function highPassStd(
  rgb: Uint8Array,
  width: number,
  patch: { left: number; top: number; size: number },
): number {
  const lum = (x: number, y: number) => {
    const i = (y * width + x) * 3;
    return 0.2126 * rgb[i] + 0.7152 * rgb[i + 1] + 0.0722 * rgb[i + 2];
  };
  const values: number[] = [];
  for (let y = patch.top + 1; y < patch.top + patch.size - 1; y++)
    for (let x = patch.left + 1; x < patch.left + patch.size - 1; x++) {
      let mean = 0;
      for (let dy = -1; dy <= 1; dy++) for (let dx = -1; dx <= 1; dx++) mean += lum(x + dx, y + dy);
      values.push(lum(x, y) - mean / 9);
    }
  const m = values.reduce((a, b) => a + b, 0) / values.length;
  return Math.sqrt(values.reduce((a, b) => a + (b - m) ** 2, 0) / values.length);
}

/** A floor patch clear of the case and the props in every stage: low in the frame, centred. */
export const FLAT_PATCH = (size: number) => ({
  left: Math.round(size * 0.45),
  top: Math.round(size * 0.86),
  size: Math.round(size * 0.06),
});
