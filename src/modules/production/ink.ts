/** Points per millimetre. */
export const MM = 72 / 25.4;

/** Black or white, whichever reads better on `hex` (WCAG relative luminance). */
export function inkOn(hex: string): string {
  const n = Number.parseInt(hex.slice(1), 16);
  const lin = (c: number) => {
    const v = c / 255;
    return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  };
  const l = 0.2126 * lin(n >> 16) + 0.7152 * lin((n >> 8) & 255) + 0.0722 * lin(n & 255);
  return l > 0.179 ? '#000000' : '#ffffff';
}
