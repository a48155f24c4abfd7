import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import sharp from 'sharp';
import { CASE_TYPES } from '../../src/modules/catalog/casetypes.ts';
import { loadDevices } from '../../src/modules/catalog/devices.ts';
import { materialFor, phoneColour } from '../../src/modules/rendering/materials.ts';
import { STAGES } from '../../src/modules/rendering/stage/stages.ts';
import { renderPlate, stageTemplate } from '../../src/modules/rendering/stage/template.ts';

// A glossy shell reflects the key light as a patch where the mirror angle meets it, never as a veil
// over the whole back: screened over the print, a veil washes every colour out.
describe('3D stages: a glossy case', () => {
  it('shows the key light as a bright patch on part of a clear back, in every stage and view', async () => {
    const device = loadDevices().find((d) => d.key === 'iphone-17-pro')!;
    const size = { width: 400, height: 400 };
    const clear = CASE_TYPES.clear;
    const material = materialFor(clear, phoneColour(device));
    let hottest = 0;
    for (const st of STAGES)
      for (const view of st.views) {
        const plate = await sharp(await renderPlate(st, view, size), { raw: { ...size, channels: 3 } })
          .png()
          .toBuffer();
        const t = await stageTemplate(plate, st, view, device, clear, material, size);
        const { data, info } = await sharp(t.layers).raw().toBuffer({ resolveWithObject: true });
        let back = 0;
        let bright = 0;
        for (let i = 0; i < info.width * info.height; i++) {
          if (data[i * info.channels] < 255) continue;
          back++;
          const h = data[i * info.channels + 2];
          // Squared and screened at the clear finish's 0.95: 100 whitens a colour by 15 %.
          if (h >= 100) bright++;
          hottest = Math.max(hottest, h);
        }
        assert.ok(back > 3000, `${st.key}/${view.key}: the back covers ${back} pixels`);
        assert.ok(
          bright / back < 0.5,
          `${st.key}/${view.key}: ${((bright / back) * 100).toFixed(0)} % of the back is veiled`,
        );
      }
    assert.ok(hottest > 150, `the key light's reflection shows where it meets the mirror angle (${hottest})`);
  });
});
