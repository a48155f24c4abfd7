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
    # Light bounces off the floor onto the case and props once or twice; more costs time unseen.
    s.cycles.max_bounces = 3
    s.cycles.diffuse_bounces = 2
    s.cycles.glossy_bounces = 1
    s.cycles.transmission_bounces = 0
    s.cycles.transparent_max_bounces = 0
    s.cycles.adaptive_threshold = 0.04
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


def node(nt, kind, inputs=None, **props):
    """A shader node with its properties and input defaults set (keeps the recipes short)."""
    n = nt.nodes.new(kind)
    for k, v in props.items():
        setattr(n, k, v)
    for k, v in (inputs or {}).items():
        n.inputs[k].default_value = v
    return n


def ramp(nt, fac, stops):
    """A colour ramp fed by `fac` with (position, linear RGB) stops."""
    r = nt.nodes.new('ShaderNodeValToRGB')
    els = r.color_ramp.elements
    while len(els) < len(stops):
        els.new(0.5)
    for e, (pos, col) in zip(els, stops):
        e.position = pos
        e.color = (*col, 1)
    nt.links.new(fac, r.inputs['Fac'])
    return r.outputs['Color']


def multiply(nt, *colors):
    """The product of colour sockets (layers of a procedural texture)."""
    out = colors[0]
    for c in colors[1:]:
        mix = node(nt, 'ShaderNodeMixRGB', {0: 1}, blend_type='MULTIPLY')
        nt.links.new(out, mix.inputs[1]); nt.links.new(c, mix.inputs[2])
        out = mix.outputs[0]
    return out


def stretched(nt, tc, scale):
    """Object coordinates scaled per axis: noise stretched along the wood's grain or a vein."""
    m = node(nt, 'ShaderNodeMapping', {'Scale': scale})
    nt.links.new(tc.outputs['Object'], m.inputs['Vector'])
    return m.outputs['Vector']


def floor_material(kind):
    m = bpy.data.materials.new('floor'); m.use_nodes = True
    nt = m.node_tree; b = nt.nodes['Principled BSDF']
    tc = nt.nodes.new('ShaderNodeTexCoord')
    # Contact shadow: ambient occlusion darkens the floor where the case and props touch it.
    ao = node(nt, 'ShaderNodeAmbientOcclusion', {'Distance': 0.02}, samples=2)

    def base(color_socket, strength=0.75):
        mix = node(nt, 'ShaderNodeMixRGB', {0: strength}, blend_type='MULTIPLY')
        nt.links.new(color_socket, mix.inputs[1]); nt.links.new(ao.outputs['AO'], mix.inputs[2])
        nt.links.new(mix.outputs[0], b.inputs['Base Color'])

    if kind == 'studio':
        # Warm white paper, a touch darker and cooler up the back wall (object Y/Z of the sweep).
        sep = nt.nodes.new('ShaderNodeSeparateXYZ'); nt.links.new(tc.outputs['Object'], sep.inputs[0])
        r = node(nt, 'ShaderNodeMapRange', {'From Min': -0.1, 'From Max': 0.45})
        nt.links.new(sep.outputs['Y'], r.inputs[0])
        base(ramp(nt, r.outputs[0], [(0, (0.86, 0.80, 0.72)), (1, (0.78, 0.76, 0.74))]))
        b.inputs['Roughness'].default_value = 0.9
        b.inputs['Specular'].default_value = 0.2
        return m
    if kind == 'desk':
        # Oak, flat sawn: the growth rings are cylinders around the trunk's axis (along X, a few cm
        # under the board and slightly tilted to it), so the board cuts them into the arches and
        # straight stretches of real oak with uneven spacing. Their radius wobbles with a noise
        # stretched along the grain; fine fibre streaks and a slow colour drift go on top.
        flat = node(nt, 'ShaderNodeMapping', {'Scale': (1, 1, 0), 'Rotation': (0, math.radians(9), 0),
                                               'Location': (0, -0.03, 0.045)})
        nt.links.new(tc.outputs['Object'], flat.inputs['Vector'])
        axis = node(nt, 'ShaderNodeMapping', {'Scale': (0.08, 1, 1)})
        nt.links.new(flat.outputs[0], axis.inputs['Vector'])
        rings = node(nt, 'ShaderNodeTexWave', {'Scale': 60, 'Distortion': 4, 'Detail': 3, 'Detail Scale': 0.12,
                                               'Detail Roughness': 0.5}, wave_type='RINGS', wave_profile='SAW')
        nt.links.new(axis.outputs[0], rings.inputs['Vector'])
        fibre = node(nt, 'ShaderNodeTexNoise', {'Scale': 1, 'Detail': 6, 'Roughness': 0.6})
        nt.links.new(stretched(nt, tc, (6, 500, 1)), fibre.inputs['Vector'])
        drift = node(nt, 'ShaderNodeTexNoise', {'Scale': 1, 'Detail': 2})
        nt.links.new(stretched(nt, tc, (1.5, 9, 1)), drift.inputs['Vector'])
        ring = ramp(nt, rings.outputs['Fac'], [(0, (0.58, 0.37, 0.18)), (0.6, (0.52, 0.32, 0.15)),
                                               (0.88, (0.36, 0.20, 0.08)), (1, (0.46, 0.27, 0.12))])
        grain = ramp(nt, fibre.outputs['Fac'], [(0.3, (0.72, 0.68, 0.64)), (0.7, (1, 1, 1))])
        tone = ramp(nt, drift.outputs['Fac'], [(0.3, (0.82, 0.80, 0.78)), (0.7, (1.08, 1.05, 1.0))])
        base(multiply(nt, ring, grain, tone))
        bump = node(nt, 'ShaderNodeBump', {'Strength': 0.08, 'Distance': 0.0005})
        nt.links.new(fibre.outputs['Fac'], bump.inputs['Height'])
        nt.links.new(bump.outputs['Normal'], b.inputs['Normal'])
        b.inputs['Roughness'].default_value = 0.42
        b.inputs['Specular'].default_value = 0.4
        return m
    # Marble: white stone with soft grey veins (a distorted diagonal wave through a wide ramp band)
    # and a second, finer and fainter vein family at another angle, over a faint cloudy drift.
    veins = node(nt, 'ShaderNodeTexWave', {'Scale': 3.2, 'Distortion': 5, 'Detail': 8, 'Detail Scale': 1.4,
                                           'Detail Roughness': 0.6}, wave_type='BANDS',
                 bands_direction='DIAGONAL')
    nt.links.new(tc.outputs['Object'], veins.inputs['Vector'])
    fine = node(nt, 'ShaderNodeTexWave', {'Scale': 3, 'Distortion': 10, 'Detail': 8, 'Detail Scale': 0.9,
                                          'Detail Roughness': 0.6}, wave_type='BANDS', bands_direction='X')
    rot = node(nt, 'ShaderNodeMapping', {'Rotation': (0, 0, math.radians(62)), 'Location': (0.3, 0.1, 0)})
    nt.links.new(tc.outputs['Object'], rot.inputs['Vector']); nt.links.new(rot.outputs[0], fine.inputs['Vector'])
    cloud = node(nt, 'ShaderNodeTexNoise', {'Scale': 14, 'Detail': 6, 'Roughness': 0.55})
    nt.links.new(tc.outputs['Object'], cloud.inputs['Vector'])
    white = (0.86, 0.86, 0.84)
    v1 = ramp(nt, veins.outputs['Fac'], [(0, (0.40, 0.41, 0.43)), (0.07, (0.60, 0.61, 0.62)), (0.3, white)])
    v2 = ramp(nt, fine.outputs['Fac'], [(0, (0.70, 0.71, 0.73)), (0.03, (0.88, 0.88, 0.89)), (0.09, (1, 1, 1))])
    cl = ramp(nt, cloud.outputs['Fac'], [(0.35, (0.93, 0.93, 0.94)), (0.65, (1, 1, 1))])
    base(multiply(nt, v1, v2, cl))
    b.inputs['Roughness'].default_value = 0.16
    b.inputs['Specular'].default_value = 0.5
    return m


def add(obj_op, material, **kw):
    """Adds a primitive with one material; returns the object."""
    obj_op(**kw)
    o = bpy.context.active_object
    o.data.materials.append(material)
    for p in o.data.polygons:
        p.use_smooth = True
    return o


def vessel(r, h, at, shell, fill, wall=0.004):
    """A hollow cylinder (mug, pot) with its contents a little below the rim: seen from above a
    solid cylinder reads as a puck."""
    o = add(bpy.ops.mesh.primitive_cylinder_add, shell, radius=r, depth=h, location=(at[0], at[1], h / 2),
            vertices=64, end_fill_type='NOTHING')
    sol = o.modifiers.new('wall', 'SOLIDIFY'); sol.thickness = wall; sol.offset = -1
    bev = o.modifiers.new('round', 'BEVEL'); bev.width = wall / 3; bev.segments = 2
    add(bpy.ops.mesh.primitive_cylinder_add, shell, radius=r, depth=0.004, location=(at[0], at[1], 0.002), vertices=64)
    add(bpy.ops.mesh.primitive_cylinder_add, fill, radius=r - wall, depth=0.002, location=(at[0], at[1], h * 0.82),
        vertices=64)


def props(kind):
    add_sphere = bpy.ops.mesh.primitive_uv_sphere_add
    add_cyl = bpy.ops.mesh.primitive_cylinder_add
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
        # Soft-coloured geometric props: a sage plinth with a small sphere on it, a peach ball.
        sage = mat('plinth', srgb('#b9c4ad'), rough=0.8, spec=0.3)
        add(add_cyl, sage, radius=0.04, depth=0.06, location=(-0.105, 0.08, 0.03), vertices=96)
        add(add_sphere, mat('pearl', srgb('#f3ece4'), rough=0.35), radius=0.016, location=(-0.105, 0.08, 0.076),
            segments=48, ring_count=24)
        add(add_sphere, mat('ball', srgb('#e9b49a'), rough=0.65, spec=0.3), radius=0.028, location=(0.11, 0.1, 0.028),
            segments=64, ring_count=32)
    elif kind == 'desk':
        mug = mat('mug', srgb('#f3efe6'), rough=0.15)
        vessel(0.04, 0.09, (0.125, 0.105), mug, mat('coffee', (0.05, 0.025, 0.012), rough=0.1, spec=0.6))
        add(bpy.ops.mesh.primitive_torus_add, mug, major_radius=0.022, minor_radius=0.006,
            location=(0.17, 0.105, 0.05), rotation=(math.radians(90), 0, 0))
        # A notebook: paper block under a linen cover.
        rotz = math.radians(12)
        pages = add(bpy.ops.mesh.primitive_cube_add, mat('pages', srgb('#f2eee3'), rough=0.9), size=1,
                    location=(-0.16, 0.02, 0.006), rotation=(0, 0, rotz))
        pages.scale = (0.145, 0.205, 0.01)
        cover = add(bpy.ops.mesh.primitive_cube_add, mat('notebook', srgb('#3d5a80'), rough=0.85), size=1,
                    location=(-0.161, 0.02, 0.0115), rotation=(0, 0, rotz))
        cover.scale = (0.15, 0.21, 0.0015)
        # A hexagonal yellow pencil with a sharpened tip.
        rot = (0, math.radians(90), math.radians(25))
        add(add_cyl, mat('pencil', srgb('#e9c46a'), rough=0.45), radius=0.0035, depth=0.15,
            location=(0.1, -0.095, 0.0035), rotation=rot, vertices=6)
        tip = add(bpy.ops.mesh.primitive_cone_add, mat('wood', srgb('#e2c49b'), rough=0.8), radius1=0.0035,
                  depth=0.018, location=(0.1 - 0.084 * math.cos(math.radians(25)), -0.095 - 0.084 * math.sin(math.radians(25)), 0.0035),
                  rotation=(0, math.radians(-90), math.radians(25)), vertices=6)
        tip.data.polygons.foreach_set('use_smooth', [False] * len(tip.data.polygons))
    else:
        # A succulent (a rosette of fleshy leaves) in a terracotta pot, and a gold ring.
        vessel(0.034, 0.055, (0.115, 0.1), mat('pot', srgb('#d49a7a'), rough=0.85),
               mat('soil', (0.06, 0.04, 0.03), rough=1))
        leaf = mat('leaf', srgb('#7f9c78'), rough=0.45)
        for ring_i, (count, reach, tilt, size) in enumerate([(9, 0.018, 70, 0.016), (7, 0.01, 50, 0.012), (5, 0.004, 25, 0.008)]):
            for i in range(count):
                a = 2 * math.pi * (i + 0.5 * ring_i) / count
                o = add(add_sphere, leaf, radius=size, segments=24, ring_count=12,
                        location=(0.115 + reach * math.cos(a), 0.1 + reach * math.sin(a), 0.05 + 0.004 * ring_i),
                        rotation=(0, math.radians(tilt), a))
                o.scale = (0.42, 0.42, 1)
        gold = bpy.data.materials.new('gold'); gold.use_nodes = True
        g = gold.node_tree.nodes['Principled BSDF']
        g.inputs['Base Color'].default_value = (1.0, 0.74, 0.32, 1)
        g.inputs['Metallic'].default_value = 1; g.inputs['Roughness'].default_value = 0.18
        add(bpy.ops.mesh.primitive_torus_add, gold, major_radius=0.011, minor_radius=0.0017,
            location=(-0.1, -0.075, 0.0017), major_segments=64, minor_segments=16)


LIGHT = {
    # world colour, world strength, key colour, key power (W), key size (m), key position
    'studio': ((0.97, 0.97, 1.0), 0.3, (1.0, 0.97, 0.93), 55, 0.35, (-0.5, -0.3, 0.48)),
    'desk': ((1.0, 0.93, 0.84), 0.55, (1.0, 0.86, 0.70), 16, 0.4, (-0.65, 0.05, 0.45)),
    'marble': ((0.96, 0.97, 1.0), 0.9, (1.0, 0.98, 0.95), 12, 0.6, (-0.4, 0.25, 0.6)),
}


# The passes are 16-bit PNG, which clamps at 1: the light is scaled down so nothing clips, and
# mockups-assets.ts sets the exposure (only the ratios between the lights matter).
LIGHT_SCALE = 0.1


def lights(kind):
    """Soft daylight: a bright ambient world and one large key aimed at the case."""
    world_col, world_k, key_col, power, size, at = LIGHT[kind]
    world_k *= LIGHT_SCALE; power *= LIGHT_SCALE
    w = bpy.data.worlds.new('w'); bpy.context.scene.world = w
    w.use_nodes = True
    w.node_tree.nodes['Background'].inputs['Color'].default_value = (*world_col, 1)
    w.node_tree.nodes['Background'].inputs['Strength'].default_value = world_k
    key = bpy.data.lights.new('key', 'AREA'); key.size = size; key.energy = power; key.color = key_col
    o = bpy.data.objects.new('key', key); bpy.context.scene.collection.objects.link(o)
    o.location = at
    aim = bpy.data.objects.new('aim', None); bpy.context.scene.collection.objects.link(aim)
    c = o.constraints.new('TRACK_TO'); c.target = aim
    c.track_axis = 'TRACK_NEGATIVE_Z'; c.up_axis = 'UP_Y'


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
