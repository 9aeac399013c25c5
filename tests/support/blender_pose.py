"""Blender's posed mesh of a glTF clip: what its importer and Armature modifier make of it.

    python3 tests/support/blender_pose.py MODEL CLIP TIME_S OUT.obj [--mode lbs|dqs|dm] [--slerp]
        [--dm-iterations N] [--dm-factor F]

Needs the `bpy` module (pip install bpy==5.0.1; Python 3.11). MODEL is a .gltf or .glb file,
CLIP the name of one of its animations (or its index, when no animation has that name), TIME_S
seconds into it. The script

- imports MODEL with Blender's glTF importer (default options) into an empty scene;
- puts the clip's action, with the slot the importer made for each data-block, on every
  object (armatures, animated nodes) and every shape-key set the clip animates, and leaves the
  rest at their rest values: no action of another clip, its NLA tracks stay muted;
- plays it at TIME_S at the importer's frame rate (frame = TIME_S * fps, the fraction as a
  subframe);
- evaluates each mesh object with an Armature modifier, Preserve Volume off (`lbs`, the
  default) or on (`dqs`), in world space;
- with `--mode dm`, first welds each such mesh (vertices at bit-identical positions merged,
  as dqview welds the surface Delta Mush smooths over) and adds a Corrective Smooth modifier
  after its Armature modifier (Preserve Volume off): smooth type Simple, rest source Original
  Coordinates, scale 1, the given repeat (`--dm-iterations`, default 10) and factor
  (`--dm-factor`, default 0.5), no vertex group, boundary not pinned;
- writes OUT.obj: per mesh, `o NAME` and its `v x y z` lines, converted back to glTF axes
  (Y up, metres). Meshes without an Armature modifier (rigid ones parented to bones) are left
  out: match by nearest vertex, not by index.

It reproduces the references in shared/testdata/blender (Blender 5.0.1) to their 7 printed
digits. Between keys Blender interpolates a rotation per component (then normalises) where glTF
slerps; the two differ by about the cube of the angle from key to key (5e-5 of the diagonal on
the Adventurer's Run). `--slerp` sets each linearly keyed rotation between two keys to their
slerp (shortest path) and mutes its curves, as glTF plays it; at key times it changes nothing.
"""

import argparse
import bisect
import json
import math
import struct
import sys
import types

import bpy
from bpy_extras import anim_utils
from mathutils import Quaternion


def gltf_json(path):
    """The JSON part of a .gltf or .glb file."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] == b"glTF":
        length, kind = struct.unpack_from("<II", data, 12)
        if kind != 0x4E4F534A:
            raise SystemExit(f"{path}: first GLB chunk is not JSON")
        data = data[20 : 20 + length]
    return json.loads(data.decode("utf-8"))


def track_names(doc):
    """Each animation's NLA track name, as the importer picks them (BlenderGlTF.find_unused_name)."""
    from io_scene_gltf2.blender.imp.blender_gltf import BlenderGlTF

    taken, names = set(), []
    for i, anim in enumerate(doc.get("animations", [])):
        name = BlenderGlTF.find_unused_name(taken, anim.get("name") or "Anim_%d" % i)
        taken.add(name)
        names.append(name)
    return names


def clip_index(doc, clip):
    """The index of the animation named `clip`, or `clip` read as an index."""
    anims = doc.get("animations", [])
    named = [i for i, a in enumerate(anims) if a.get("name") == clip]
    if len(named) > 1:
        raise SystemExit(f"{len(named)} animations are named {clip!r}: give an index")
    if named:
        return named[0]
    if clip.isdigit() and int(clip) < len(anims):
        return int(clip)
    have = ", ".join(repr(a.get("name", "")) for a in anims)
    raise SystemExit(f"no animation {clip!r} (the file has {have or 'none'})")


def import_at_rest(path):
    """Imports `path` with no clip applied, so channels a clip leaves out keep their rest values.

    The importer would put its first clip on every object and evaluate it, writing that clip's
    values into the data; its `gather_import_animations` hook, registered through a stand-in
    add-on, turns that off.
    """
    called = []

    class glTF2ImportUserExtension:  # the class name the importer looks for in add-ons
        def gather_import_animations(self, _animations, options, _gltf):
            options.restore_first_anim = False
            called.append(True)

    name = "dqview_blender_pose_hook"
    module = types.ModuleType(name)
    module.glTF2ImportUserExtension = glTF2ImportUserExtension
    sys.modules[name] = module
    addon = bpy.context.preferences.addons.new()
    addon.module = name
    try:
        result = bpy.ops.import_scene.gltf(filepath=path)
    finally:
        bpy.context.preferences.addons.remove(addon)
        del sys.modules[name]
    if result != {"FINISHED"}:
        raise SystemExit(f"{path}: the glTF importer says {result}")
    if not called:
        raise SystemExit("the glTF importer did not call its gather_import_animations hook")


def apply_clip(track):
    """Puts the action and slot of NLA track `track` on every data-block that has one."""
    blocks = []
    for ob in bpy.data.objects:
        blocks.append(ob)
        keys = getattr(ob.data, "shape_keys", None)
        if keys is not None:
            blocks.append(keys)
    applied = 0
    for block in blocks:
        ad = block.animation_data
        if ad is None:
            continue
        strip = next(
            (t.strips[0] for t in ad.nla_tracks if t.name == track and len(t.strips) > 0), None
        )
        for t in ad.nla_tracks:
            t.mute = True
        if ad.action is not None:
            ad.action_slot = None
        ad.action = None
        if strip is None or strip.action is None:
            continue
        ad.action = strip.action
        ad.action_slot = strip.action_slot
        if ad.action_slot != strip.action_slot:
            raise SystemExit(f"{block.name}: slot {strip.action_slot.identifier} did not take")
        applied += 1
    return applied


def slerp_rotations(frame):
    """Sets every linearly keyed quaternion of the active actions to glTF's slerp at `frame`."""
    done = 0
    for ob in bpy.context.scene.objects:
        ad = ob.animation_data
        if ad is None or ad.action is None:
            continue
        bag = anim_utils.action_get_channelbag_for_slot(ad.action, ad.action_slot)
        curves = {}
        for fc in bag.fcurves if bag is not None else []:
            if fc.data_path.endswith("rotation_quaternion"):
                curves.setdefault(fc.data_path, [None] * 4)[fc.array_index] = fc
        for path, fcs in curves.items():
            if None in fcs:
                continue
            keys = [k.co[0] for k in fcs[0].keyframe_points]
            if any([k.co[0] for k in fc.keyframe_points] != keys for fc in fcs[1:]):
                raise SystemExit(f"{ob.name} {path}: components keyed at different frames")
            i = bisect.bisect_right(keys, frame) - 1
            if i < 0 or i + 1 >= len(keys) or keys[i] == frame:
                continue  # at or outside the keys: Blender's value is glTF's
            if any(fc.keyframe_points[i].interpolation != "LINEAR" for fc in fcs):
                continue
            u = (frame - keys[i]) / (keys[i + 1] - keys[i])
            q0 = Quaternion([fc.keyframe_points[i].co[1] for fc in fcs])
            q1 = Quaternion([fc.keyframe_points[i + 1].co[1] for fc in fcs])
            for fc in fcs:
                fc.mute = True
            owner, prop = path.rsplit(".", 1) if "." in path else ("", path)
            setattr(ob.path_resolve(owner) if owner else ob, prop, q0.slerp(q1, u))
            done += 1
    return done


def weld(mesh):
    """Merges the vertices of `mesh` at bit-identical positions (the first keeps its data)."""
    import bmesh

    bm = bmesh.new()
    bm.from_mesh(mesh)
    first = {}
    targets = {}
    for v in bm.verts:
        key = tuple(v.co)
        if key in first:
            targets[v] = first[key]
        else:
            first[key] = v
    if targets:
        bmesh.ops.weld_verts(bm, targetmap=targets)
    bm.to_mesh(mesh)
    bm.free()
    mesh.update()


def add_corrective_smooth(ob, iterations, factor):
    """Blender's Delta Mush on `ob`, after its Armature modifier."""
    m = ob.modifiers.new("dqview_dm", "CORRECTIVE_SMOOTH")
    m.smooth_type = "SIMPLE"
    m.rest_source = "ORCO"
    m.iterations = iterations
    m.factor = factor
    m.scale = 1.0
    m.use_only_smooth = False
    m.use_pin_boundary = False


def main(argv):
    parser = argparse.ArgumentParser(description="Blender's posed mesh of a glTF clip, as OBJ.")
    parser.add_argument("model")
    parser.add_argument("clip")
    parser.add_argument("time_s", type=float)
    parser.add_argument("out")
    parser.add_argument("--mode", choices=["lbs", "dqs", "dm"], default="lbs")
    parser.add_argument("--dm-iterations", type=int, default=10)
    parser.add_argument("--dm-factor", type=float, default=0.5)
    parser.add_argument("--slerp", action="store_true", help="slerp rotations between keys")
    args = parser.parse_args(argv)
    model, clip, time_s, out, mode = args.model, args.clip, args.time_s, args.out, args.mode

    doc = gltf_json(model)
    index = clip_index(doc, clip)
    track = track_names(doc)[index]

    bpy.ops.wm.read_factory_settings(use_empty=True)
    scene = bpy.context.scene
    import_at_rest(model)
    if apply_clip(track) == 0:
        raise SystemExit(f"no data-block has a track {track!r}")

    # The importer's keyframe times are seconds * fps * fps_base (animation_node.py).
    frame = time_s * scene.render.fps * scene.render.fps_base
    # A time given in single precision lands within 1e-5 of its frame: play that frame.
    if abs(frame - round(frame)) < 1e-5:
        frame = float(round(frame))
    whole = math.floor(frame)
    sub = frame - whole
    slerped = slerp_rotations(frame) if args.slerp else 0
    scene.frame_set(int(whole), subframe=sub)

    meshes = []
    for ob in sorted(scene.objects, key=lambda o: o.name):
        if ob.type != "MESH":
            continue
        arm = [m for m in ob.modifiers if m.type == "ARMATURE"]
        if not arm:
            continue
        for m in arm:
            m.use_deform_preserve_volume = mode == "dqs"
        if mode == "dm":
            weld(ob.data)
            add_corrective_smooth(ob, args.dm_iterations, args.dm_factor)
        meshes.append(ob)
    if not meshes:
        raise SystemExit(f"{model}: no mesh has an Armature modifier")
    bpy.context.view_layer.update()
    depsgraph = bpy.context.evaluated_depsgraph_get()

    with open(out, "w") as f:
        f.write(f"# blender_pose.py: Blender {bpy.app.version_string}, {clip!r} at {time_s} s, {mode}\n")
        for ob in meshes:
            ev = ob.evaluated_get(depsgraph)
            mesh = ev.to_mesh()
            world = ev.matrix_world.copy()
            f.write(f"o {ob.name}\n")
            for v in mesh.vertices:
                x, y, z = world @ v.co
                # Blender Z up to glTF Y up: (x, y, z) -> (x, z, -y).
                f.write(f"v {x:.9g} {z:.9g} {-y:.9g}\n")
            ev.to_mesh_clear()
    print(
        f"blender_pose: {len(meshes)} meshes, frame {whole} + {sub:.6f}, track {track!r}, "
        f"{slerped} rotations slerped"
    )


if __name__ == "__main__":
    main(sys.argv[1:])
