# Bakes the 3D mockup scenes with Blender (Cycles, CPU) in background mode:
#   blender -b --factory-startup -P scripts/mockups/bake.py -- job.json outdir
# Per scene, view and device it writes 16-bit PNG passes (linear, "Raw" view transform):
# image (the background plate), uv (artwork coordinates on the case, an AOV), diffuse light,
# glossy light and the case mask. scripts/mockups-assets.ts turns them into the committed assets.
import bpy, json, math, os, sys

argv = sys.argv[sys.argv.index('--') + 1:]
job = json.load(open(argv[0]))
out_root = argv[1]
MM = 0.001


def reset():
    bpy.ops.wm.read_factory_settings(use_empty=True)
    s = bpy.context.scene
    s.render.engine = 'CYCLES'
    s.cycles.device = 'CPU'
    s.cycles.samples = job['samples']
    s.cycles.use_denoising = False
    s.cycles.use_adaptive_sampling = True
    s.cycles.max_bounces = 3
    s.cycles.adaptive_threshold = 0.03
    # No denoiser in Debian's Blender: clamp the indirect fireflies and blur glossy paths instead.
    s.cycles.sample_clamp_indirect = 2.0
    s.cycles.blur_glossy = 1.0
    s.render.resolution_x = job['size']
    s.render.resolution_y = job['size']
    s.render.resolution_percentage = 100
    s.render.film_transparent = False
    s.view_settings.view_transform = 'Raw'
    s.render.threads_mode = 'FIXED'
    s.render.threads = 2
    return s


def rounded_outline(w, h, r, n=10):
    r = min(r, w / 2, h / 2)
    pts = []
    corners = [(w / 2 - r, h / 2 - r, 0), (-w / 2 + r, h / 2 - r, 90), (-w / 2 + r, -h / 2 + r, 180), (w / 2 - r, -h / 2 + r, 270)]
    for cx, cy, a0 in corners:
        for i in range(n + 1):
            a = math.radians(a0 + 90 * i / n)
            pts.append((cx + r * math.cos(a), cy + r * math.sin(a)))
    return pts


def slab(name, w, h, r, depth, bevel):
    """A rounded rectangle extruded to `depth` with rounded edges (a curve with bevel)."""
    cu = bpy.data.curves.new(name, 'CURVE')
    cu.dimensions = '2D'
    cu.fill_mode = 'BOTH'
    sp = cu.splines.new('POLY')
    pts = rounded_outline(w - 2 * bevel, h - 2 * bevel, max(0.0001, r - bevel))
    sp.points.add(len(pts) - 1)
    for p, (x, y) in zip(sp.points, pts):
        p.co = (x, y, 0, 1)
    sp.use_cyclic_u = True
    cu.extrude = max(0.00001, depth / 2 - bevel)
    cu.bevel_depth = bevel
    cu.bevel_resolution = 4
    ob = bpy.data.objects.new(name, cu)
    bpy.context.scene.collection.objects.link(ob)
    bpy.context.view_layer.objects.active = ob
    ob.select_set(True)
    bpy.ops.object.convert(target='MESH')
    ob.select_set(False)
    return ob


def mat(name, color, rough=0.5, spec=0.5):
    m = bpy.data.materials.new(name)
    m.use_nodes = True
    b = m.node_tree.nodes['Principled BSDF']
    b.inputs['Base Color'].default_value = (*color, 1)
    b.inputs['Roughness'].default_value = rough
    b.inputs['Specular'].default_value = spec
    return m


def srgb(h):
    c = [int(h[i:i + 2], 16) / 255 for i in (1, 3, 5)]
    return tuple(x / 12.92 if x <= 0.04045 else ((x + 0.055) / 1.055) ** 2.4 for x in c)


def case_material(w, h):
    """Neutral shell whose light passes become the shading and highlight; the AOV is the UV map."""
    m = mat('case', (0.8, 0.8, 0.8), rough=0.3, spec=0.5)
    nt = m.node_tree
    tc = nt.nodes.new('ShaderNodeTexCoord')
    sep = nt.nodes.new('ShaderNodeSeparateXYZ')
    nt.links.new(tc.outputs['Object'], sep.inputs[0])
    u = nt.nodes.new('ShaderNodeMath'); u.operation = 'MULTIPLY_ADD'
    u.inputs[1].default_value = 1 / w; u.inputs[2].default_value = 0.5
    nt.links.new(sep.outputs['X'], u.inputs[0])
    v = nt.nodes.new('ShaderNodeMath'); v.operation = 'MULTIPLY_ADD'
    v.inputs[1].default_value = -1 / h; v.inputs[2].default_value = 0.5
    nt.links.new(sep.outputs['Y'], v.inputs[0])
    comb = nt.nodes.new('ShaderNodeCombineXYZ')
    nt.links.new(u.outputs[0], comb.inputs[0]); nt.links.new(v.outputs[0], comb.inputs[1])
    aov = nt.nodes.new('ShaderNodeOutputAOV')
    aov.name = 'uv'  # Blender 3.4 matches the node's name with the view layer's AOV
    nt.links.new(comb.outputs[0], aov.inputs['Color'])
    return m


def build_case(d, ct):
    wall = ct['wallMm']
    W = (d['body']['widthMm'] + 2 * wall) * MM
    H = (d['body']['heightMm'] + 2 * wall) * MM
    D = (d['body']['depthMm'] + 2 * wall) * MM
    R = (d['body']['cornerRadiusMm'] + wall) * MM
    case = slab('case', W, H, R, D, min(2.2 * MM, D / 2.2))
    case.location.z = D / 2
    c = d['camera']
    k = 0.8 * MM
    hw, hh = c['widthMm'] * MM + 2 * k, c['heightMm'] * MM + 2 * k
    hr = hw / 2 if c['shape'] == 'circle' else min(c['cornerRadiusMm'] * MM + k, hw / 2, hh / 2)
    hx = -W / 2 + (wall + c['xMm']) * MM - k + hw / 2
    hy = H / 2 - (wall + c['yMm']) * MM + k - hh / 2
    cutter = slab('cutter', hw, hh, hr, D, 0.0002)
    cutter.location = (hx, hy, D)
    mod = case.modifiers.new('hole', 'BOOLEAN')
    mod.operation = 'DIFFERENCE'; mod.object = cutter; mod.solver = 'EXACT'
    bpy.context.view_layer.objects.active = case
    bpy.ops.object.modifier_apply(modifier='hole')
    bpy.data.objects.remove(cutter)
    for p in case.data.polygons:
        p.use_smooth = True
    case.data.materials.append(case_material(W, H))
    case.pass_index = 1
    # The phone under the cut-out: its back, the island and the lenses.
    phone = mat('phone', srgb(d['phoneHex']), rough=0.35)
    back = slab('phoneback', hw, hh, hr, 0.4 * MM, 0.0001)
    back.location = (hx, hy, D - wall * MM - 0.3 * MM)
    back.data.materials.append(phone)
    iw, ih = c['widthMm'] * MM, c['heightMm'] * MM
    island = slab('island', iw, ih, iw / 2 if c['shape'] == 'circle' else c['cornerRadiusMm'] * MM, 1.4 * MM, 0.5 * MM)
    island.location = (hx, hy, D - wall * MM + 0.5 * MM)
    island.data.materials.append(phone)
    glass = mat('lens', (0.01, 0.012, 0.02), rough=0.05, spec=0.9)
    ring = mat('ring', (0.35, 0.35, 0.37), rough=0.25, spec=0.8)
    for l in c['lenses']:
        lx = hx - iw / 2 + l['xMm'] * MM
        ly = hy + ih / 2 - l['yMm'] * MM
        r = l['diameterMm'] / 2 * MM
        bpy.ops.mesh.primitive_cylinder_add(radius=r, depth=1.2 * MM, location=(lx, ly, D - wall * MM + 1.6 * MM), vertices=48)
        o = bpy.context.active_object; o.data.materials.append(ring)
        bpy.ops.mesh.primitive_cylinder_add(radius=r * 0.72, depth=1.3 * MM, location=(lx, ly, D - wall * MM + 1.65 * MM), vertices=48)
        o = bpy.context.active_object; o.data.materials.append(glass)
    return case, W, H, D


def floor_material(kind):
    m = bpy.data.materials.new('floor'); m.use_nodes = True
    nt = m.node_tree; b = nt.nodes['Principled BSDF']
    tc = nt.nodes.new('ShaderNodeTexCoord')
    # Contact shadow: ambient occlusion darkens the floor where the case and props touch it.
    ao = nt.nodes.new('ShaderNodeAmbientOcclusion'); ao.inputs['Distance'].default_value = 0.012
    ao.samples = 8
    def base(color_socket):
        mix = nt.nodes.new('ShaderNodeMixRGB'); mix.blend_type = 'MULTIPLY'
        mix.inputs[0].default_value = 0.7
        nt.links.new(color_socket, mix.inputs[1]); nt.links.new(ao.outputs['AO'], mix.inputs[2])
        nt.links.new(mix.outputs[0], b.inputs['Base Color'])
    if kind == 'studio':
        # A paper sweep: a soft gradient from the lit front to a cooler, darker back.
        sep = nt.nodes.new('ShaderNodeSeparateXYZ'); nt.links.new(tc.outputs['Object'], sep.inputs[0])
        r = nt.nodes.new('ShaderNodeMapRange'); nt.links.new(sep.outputs['Y'], r.inputs[0])
        r.inputs['From Min'].default_value = -0.14; r.inputs['From Max'].default_value = 0.2
        ramp = nt.nodes.new('ShaderNodeValToRGB')
        ramp.color_ramp.elements[0].color = (0.78, 0.77, 0.75, 1)
        ramp.color_ramp.elements[1].color = (0.42, 0.45, 0.5, 1)
        nt.links.new(r.outputs[0], ramp.inputs[0])
        base(ramp.outputs[0])
        b.inputs['Roughness'].default_value = 0.85
        return m
    if kind == 'desk':
        # Oak: stretched noise rings with a fine fibre noise on top.
        # Bands about 1.5 cm apart across the board, stretched along it, so the grain reads at
        # the case's scale (a 16 cm phone spans ten of them); fine fibres darken between them.
        mp = nt.nodes.new('ShaderNodeMapping'); mp.inputs['Scale'].default_value = (26, 2.2, 1)
        nt.links.new(tc.outputs['Object'], mp.inputs[0])
        wave = nt.nodes.new('ShaderNodeTexWave'); wave.wave_type = 'BANDS'; wave.wave_profile = 'SAW'
        wave.inputs['Scale'].default_value = 2.5; wave.inputs['Distortion'].default_value = 4
        wave.inputs['Detail'].default_value = 3; wave.inputs['Detail Scale'].default_value = 1.5
        nt.links.new(mp.outputs[0], wave.inputs['Vector'])
        fib = nt.nodes.new('ShaderNodeMapping'); fib.inputs['Scale'].default_value = (400, 8, 1)
        nt.links.new(tc.outputs['Object'], fib.inputs[0])
        noise = nt.nodes.new('ShaderNodeTexNoise'); noise.inputs['Scale'].default_value = 1
        noise.inputs['Detail'].default_value = 2
        nt.links.new(fib.outputs[0], noise.inputs['Vector'])
        mixf = nt.nodes.new('ShaderNodeMath'); mixf.operation = 'MULTIPLY_ADD'
        mixf.inputs[1].default_value = 0.8; nt.links.new(wave.outputs['Fac'], mixf.inputs[0])
        fmul = nt.nodes.new('ShaderNodeMath'); fmul.operation = 'MULTIPLY'; fmul.inputs[1].default_value = 0.25
        nt.links.new(noise.outputs['Fac'], fmul.inputs[0]); nt.links.new(fmul.outputs[0], mixf.inputs[2])
        ramp = nt.nodes.new('ShaderNodeValToRGB')
        ramp.color_ramp.elements[0].color = (0.16, 0.075, 0.03, 1)
        ramp.color_ramp.elements[1].color = (0.50, 0.29, 0.14, 1)
        nt.links.new(mixf.outputs[0], ramp.inputs[0])
        base(ramp.outputs[0])
        b.inputs['Roughness'].default_value = 0.4
        return m
    # Marble: white with grey veins from distorted waves.
    # Veins a few cm apart (the view is about 25 cm wide): thin dark lines where the distorted
    # wave is near zero, a softer grey cloud around them.
    noise = nt.nodes.new('ShaderNodeTexNoise'); noise.inputs['Scale'].default_value = 9
    noise.inputs['Detail'].default_value = 8; noise.inputs['Roughness'].default_value = 0.6
    nt.links.new(tc.outputs['Object'], noise.inputs['Vector'])
    wave = nt.nodes.new('ShaderNodeTexWave'); wave.inputs['Scale'].default_value = 5
    wave.inputs['Distortion'].default_value = 14; wave.inputs['Detail'].default_value = 6
    nt.links.new(noise.outputs['Color'], wave.inputs['Vector'])
    ramp = nt.nodes.new('ShaderNodeValToRGB')
    ramp.color_ramp.elements[0].position = 0.0; ramp.color_ramp.elements[0].color = (0.18, 0.19, 0.21, 1)
    ramp.color_ramp.elements[1].position = 0.1; ramp.color_ramp.elements[1].color = (0.93, 0.93, 0.91, 1)
    mid = ramp.color_ramp.elements.new(0.04); mid.color = (0.55, 0.56, 0.58, 1)
    nt.links.new(wave.outputs['Fac'], ramp.inputs[0])
    base(ramp.outputs[0])
    b.inputs['Roughness'].default_value = 0.2
    return m


def props(kind):
    if kind == 'studio':
        # The floor curves up into the back wall (a seamless sweep, radius 25 cm, 30 cm behind).
        prof = [(y / 10, 0.0) for y in range(-10, 4)]
        prof += [(0.3 + 0.25 * math.sin(math.radians(a)), 0.25 - 0.25 * math.cos(math.radians(a))) for a in range(0, 91, 6)]
        prof += [(0.55, 0.25 + z / 10) for z in range(1, 8)]
        verts = [(x, y, z) for x in (-1, 1) for (y, z) in prof]
        n = len(prof)
        faces = [(i, i + 1, n + i + 1, n + i) for i in range(n - 1)]
        me = bpy.data.meshes.new('sweep'); me.from_pydata(verts, [], faces)
        for p in me.polygons:
            p.use_smooth = True
        ob = bpy.data.objects.new('sweep', me); bpy.context.scene.collection.objects.link(ob)
        me.materials.append(bpy.data.materials['floor'])
        bpy.ops.mesh.primitive_uv_sphere_add(radius=0.03, location=(0.13, 0.09, 0.03))
        bpy.context.active_object.data.materials.append(mat('ball', srgb('#e8b4a0'), rough=0.6))
        bpy.ops.mesh.primitive_cylinder_add(radius=0.035, depth=0.05, location=(-0.14, 0.12, 0.025), vertices=64)
        bpy.context.active_object.data.materials.append(mat('plinth', (0.8, 0.8, 0.78), rough=0.7))
    elif kind == 'desk':
        bpy.ops.mesh.primitive_cylinder_add(radius=0.04, depth=0.09, location=(0.16, 0.12, 0.045), vertices=64)
        bpy.context.active_object.data.materials.append(mat('mug', srgb('#f1ede4'), rough=0.2))
        bpy.ops.mesh.primitive_torus_add(major_radius=0.022, minor_radius=0.006, location=(0.205, 0.12, 0.05), rotation=(math.radians(90), 0, 0))
        bpy.context.active_object.data.materials.append(bpy.data.materials['mug'])
        bpy.ops.mesh.primitive_cube_add(size=1, location=(-0.17, 0.02, 0.006), rotation=(0, 0, math.radians(12)))
        nb = bpy.context.active_object; nb.scale = (0.15, 0.21, 0.012)
        nb.data.materials.append(mat('notebook', srgb('#3d5a80'), rough=0.8))
        bpy.ops.mesh.primitive_cylinder_add(radius=0.0035, depth=0.17, location=(0.12, -0.1, 0.0035), rotation=(0, math.radians(90), math.radians(25)), vertices=6)
        bpy.context.active_object.data.materials.append(mat('pencil', srgb('#e9c46a'), rough=0.5))
    else:
        bpy.ops.mesh.primitive_cylinder_add(radius=0.035, depth=0.06, location=(0.14, 0.13, 0.03), vertices=64)
        bpy.context.active_object.data.materials.append(mat('pot', srgb('#d9a88a'), rough=0.8))
        for i, (x, y) in enumerate([(0.14, 0.13), (0.125, 0.14), (0.155, 0.12), (0.135, 0.115)]):
            bpy.ops.mesh.primitive_uv_sphere_add(radius=0.016, location=(x, y, 0.066 + 0.004 * i))
            o = bpy.context.active_object; o.scale = (1, 0.6, 0.8)
            o.data.materials.append(mat(f'leaf{i}', srgb('#5a7d4f'), rough=0.5))
        bpy.ops.mesh.primitive_torus_add(major_radius=0.024, minor_radius=0.003, location=(-0.15, -0.08, 0.003))
        bpy.context.active_object.data.materials.append(mat('gold', srgb('#c9a227'), rough=0.2, spec=1))


def lights(kind):
    w = bpy.data.worlds.new('w'); bpy.context.scene.world = w
    w.use_nodes = True
    w.node_tree.nodes['Background'].inputs['Color'].default_value = (0.55, 0.56, 0.6, 1) if kind == 'studio' else (0.5, 0.48, 0.44, 1)
    w.node_tree.nodes['Background'].inputs['Strength'].default_value = 0.2
    key = bpy.data.lights.new('key', 'AREA'); key.size = 0.18
    key.energy = 22 if kind != 'desk' else 26
    if kind == 'desk':
        key.color = (1.0, 0.9, 0.78)
    o = bpy.data.objects.new('key', key); bpy.context.scene.collection.objects.link(o)
    o.location = (-0.35, -0.25, 0.6)
    o.rotation_euler = (math.radians(35), 0, math.radians(-50))
    fill = bpy.data.lights.new('fill', 'AREA'); fill.size = 0.8; fill.energy = 5
    o = bpy.data.objects.new('fill', fill); bpy.context.scene.collection.objects.link(o)
    o.location = (0.5, 0.1, 0.5); o.rotation_euler = (math.radians(40), 0, math.radians(80))


def camera(view, H):
    cam = bpy.data.cameras.new('cam'); cam.lens = 70
    o = bpy.data.objects.new('cam', cam); bpy.context.scene.collection.objects.link(o)
    bpy.context.scene.camera = o
    dist = H * view['distance']
    el = math.radians(view['elevation']); az = math.radians(view['azimuth'])
    o.location = (dist * math.cos(el) * math.sin(az), -dist * math.cos(el) * math.cos(az), dist * math.sin(el))
    target = bpy.data.objects.new('target', None); bpy.context.scene.collection.objects.link(target)
    target.location = (0, 0, 0.004)
    c = o.constraints.new('TRACK_TO'); c.target = target
    c.track_axis = 'TRACK_NEGATIVE_Z'; c.up_axis = 'UP_Y'


def compositor(out_dir):
    s = bpy.context.scene
    vl = s.view_layers[0]
    vl.use_pass_diffuse_direct = True; vl.use_pass_diffuse_indirect = True
    vl.use_pass_glossy_direct = True; vl.use_pass_glossy_indirect = True
    vl.use_pass_object_index = True
    a = vl.aovs.add(); a.name = 'uv'; a.type = 'COLOR'
    s.use_nodes = True
    nt = s.node_tree
    for n in list(nt.nodes):
        nt.nodes.remove(n)
    rl = nt.nodes.new('CompositorNodeRLayers')
    fo = nt.nodes.new('CompositorNodeOutputFile')
    fo.base_path = out_dir
    fo.format.file_format = 'PNG'; fo.format.color_depth = '16'; fo.format.color_mode = 'RGB'
    fo.file_slots.clear()
    for name in ['image', 'uv', 'diffuse', 'glossy', 'mask']:
        fo.file_slots.new(name + '_')
    def add(a_, b_):
        m = nt.nodes.new('CompositorNodeMixRGB'); m.blend_type = 'ADD'; m.inputs[0].default_value = 1
        nt.links.new(rl.outputs[a_], m.inputs[1]); nt.links.new(rl.outputs[b_], m.inputs[2])
        return m.outputs[0]
    nt.links.new(rl.outputs['Image'], fo.inputs[0])
    nt.links.new(rl.outputs['uv'], fo.inputs[1])
    nt.links.new(add('DiffDir', 'DiffInd'), fo.inputs[2])
    nt.links.new(add('GlossDir', 'GlossInd'), fo.inputs[3])
    idm = nt.nodes.new('CompositorNodeIDMask'); idm.index = 1; idm.use_antialiasing = True
    nt.links.new(rl.outputs['IndexOB'], idm.inputs[0])
    nt.links.new(idm.outputs[0], fo.inputs[4])


for scene in job['scenes']:
    for view in scene['views']:
        for d in job['devices']:
            out_dir = os.path.join(out_root, scene['key'], view['key'], d['key'])
            s = reset()
            fm = floor_material(scene['key'])
            if scene['key'] != 'studio':  # the studio's sweep is its floor
                bpy.ops.mesh.primitive_plane_add(size=2, location=(0, 0, 0))
                bpy.context.active_object.data.materials.append(fm)
            case, W, H, D = build_case(d, job['caseType'])
            props(scene['key'])
            lights(scene['key'])
            camera(view, H)
            compositor(out_dir)
            bpy.ops.render.render(write_still=False)
            print('baked', out_dir, flush=True)
