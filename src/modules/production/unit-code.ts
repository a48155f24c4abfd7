/**
 * A case's barcode carries its unit's reference, `Unit_<26 characters>` (Code 128 per slot on the
 * batch sheet's case-codes pages). Reads a scan as a keyboard-wedge scanner types it: surrounding blanks
 * dropped, letters in either case (a scanner with caps lock on). Null when it is no unit's code.
 */
export function parseUnitScan(raw: string): string | null {
  const m = /^unit_([0-9a-hjkmnp-tv-z]{26})$/i.exec(raw.trim());
  return m && /^[0-9a-hjkmnp-tv-z]{26}$/.test(m[1].toLowerCase()) ? `Unit_${m[1].toLowerCase()}` : null;
}
