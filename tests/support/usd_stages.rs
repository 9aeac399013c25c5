//! The test stages of `tests/usd_features.rs`, written by the tests: each spelling and prim
//! kind of the USD that Pixar's tools write, with what it exercises.

/// Every number spelling of Pixar's grammar: `.01`, `-.5`, `1.`, `1.e1`, `1e-3`, `1E+3`, `inf`,
/// `-inf`, `nan`, in metadata, arrays, tuples, time sample keys and values.
pub const NUMBERS: &str = r#"#usda 1.0
(
    metersPerUnit = .01
    startTimeCode = 0.
    endTimeCode = 1E+1
    upAxis = "Y"
)

def Xform "Tri"
{
    double3 xformOp:translate.timeSamples = {
        .5: (.25, -.5, 1.),
        1.e1: (1e-3, 1E+3, -1.5e-1),
    }
    uniform token[] xformOpOrder = ["xformOp:translate"]

    def Mesh "Shape"
    {
        int[] faceVertexCounts = [3]
        int[] faceVertexIndices = [0, 1, 2]
        point3f[] points = [(.5, -.5, 1.), (1e-3, 1E+3, -.25), (1.e1,0,.125)]
        custom float dqview:big = inf
        custom double dqview:small = -inf
        custom float dqview:none = nan
        custom float[] dqview:all = [inf, -inf, nan, -.5, 1.]
        custom string note = "kept as written: .5 1. @x@"
    }
}
"#;

/// A SkelRoot (moved by x 0.5) whose two-joint Skeleton skins a linear `BasisCurves` (two
/// curves, elementSize 2, a geomBindTransform lifting z by 0.25) and a `Points` prim; the
/// root joint turns 45 degrees about Y and the tip 90 degrees about Z over time codes 0..10.
/// `METHOD` stands for the `skinningMethod` a test writes in.
pub const CURVES: &str = r#"#usda 1.0
(
    metersPerUnit = 1
    upAxis = "Y"
    startTimeCode = 0
    endTimeCode = 10
    timeCodesPerSecond = 10
)

def SkelRoot "Root" (
    prepend apiSchemas = ["SkelBindingAPI"]
)
{
    double3 xformOp:translate = (.5, 0, 0)
    uniform token[] xformOpOrder = ["xformOp:translate"]

    def Skeleton "Skel" (
        prepend apiSchemas = ["SkelBindingAPI"]
    )
    {
        uniform token[] joints = ["a", "a/b"]
        uniform matrix4d[] bindTransforms = [((1,0,0,0),(0,1,0,0),(0,0,1,0),(0,0,0,1)), ((1,0,0,0),(0,1,0,0),(0,0,1,0),(0,1.,0,1))]
        uniform matrix4d[] restTransforms = [((1,0,0,0),(0,1,0,0),(0,0,1,0),(0,0,0,1)), ((1,0,0,0),(0,1,0,0),(0,0,1,0),(0,1,0,1))]
        rel skel:animationSource = </Root/Skel/Anim>

        def SkelAnimation "Anim"
        {
            uniform token[] joints = ["a", "a/b"]
            quatf[] rotations.timeSamples = {
                0: [(1, 0, 0, 0), (1, 0, 0, 0)],
                10: [(0.9238795, 0, 0.3826834, 0), (.70710677, 0, 0, .70710677)],
            }
            float3[] translations = [(0, 0, 0), (0, 1, 0)]
            half3[] scales = [(1, 1, 1), (1, 1, 1)]
        }
    }

    def BasisCurves "Hair" (
        prepend apiSchemas = ["SkelBindingAPI"]
    )
    {
        uniform token type = "linear"
        int[] curveVertexCounts = [3, 2]
        point3f[] points = [(0, 0, 0), (0, 1, 0), (0, 2, 0), (.5, 0, 0), (.5, 1.5, 0)]
        int[] primvars:skel:jointIndices = [0, 1, 0, 1, 1, 0, 0, 1, 1, 0] (
            elementSize = 2
            interpolation = "vertex"
        )
        float[] primvars:skel:jointWeights = [1, 0, .5, .5, 1, 0, 1, 0, .75, .25] (
            elementSize = 2
            interpolation = "vertex"
        )
        matrix4d primvars:skel:geomBindTransform = ((1,0,0,0),(0,1,0,0),(0,0,1,0),(0,0,.25,1))
        uniform token primvars:skel:skinningMethod = "METHOD"
        rel skel:skeleton = </Root/Skel>
    }

    def Points "Dots" (
        prepend apiSchemas = ["SkelBindingAPI"]
    )
    {
        point3f[] points = [(0, 2, 0), (1, 1, 0), (-1, 1.5, .5)]
        float[] widths = [.1, .1, .1]
        int[] primvars:skel:jointIndices = [1, 0, 1] (
            elementSize = 1
            interpolation = "vertex"
        )
        float[] primvars:skel:jointWeights = [1, 1, 1] (
            elementSize = 1
            interpolation = "vertex"
        )
        uniform token primvars:skel:skinningMethod = "METHOD"
        rel skel:skeleton = </Root/Skel>
    }
}
"#;

/// A Mesh with two blend shapes bound rigidly to a still one-joint Skeleton: "bulge" with
/// inbetweens at 0.25 ("low") and -0.5 ("neg"), "plain" without; the animation's weights go
/// -1 -> 0.6 -> 1.25 and 0 -> 0.5 -> 1 over time codes 0, 4, 10 (so both ends extrapolate).
pub const INBETWEENS: &str = r#"#usda 1.0
(
    upAxis = "Y"
    startTimeCode = 0
    endTimeCode = 10
    timeCodesPerSecond = 10
)

def SkelRoot "Root" (
    prepend apiSchemas = ["SkelBindingAPI"]
)
{
    def Skeleton "Skel" (
        prepend apiSchemas = ["SkelBindingAPI"]
    )
    {
        uniform token[] joints = ["a"]
        uniform matrix4d[] bindTransforms = [((1,0,0,0),(0,1,0,0),(0,0,1,0),(0,0,0,1))]
        uniform matrix4d[] restTransforms = [((1,0,0,0),(0,1,0,0),(0,0,1,0),(0,0,0,1))]
        rel skel:animationSource = </Root/Skel/Anim>

        def SkelAnimation "Anim"
        {
            uniform token[] joints = ["a"]
            quatf[] rotations = [(1, 0, 0, 0)]
            float3[] translations = [(0, 0, 0)]
            half3[] scales = [(1, 1, 1)]
            uniform token[] blendShapes = ["bulge", "plain"]
            float[] blendShapeWeights.timeSamples = {
                0: [-1, 0],
                4: [.6, .5],
                10: [1.25, 1],
            }
        }
    }

    def Mesh "Quad" (
        prepend apiSchemas = ["SkelBindingAPI"]
    )
    {
        int[] faceVertexCounts = [4, 4]
        int[] faceVertexIndices = [0, 1, 4, 3, 1, 2, 5, 4]
        point3f[] points = [(0, 0, 0), (1, 0, 0), (2, 0, 0), (0, 1, 0), (1, 1, 0), (2, 1, 0)]
        int[] primvars:skel:jointIndices = [0] (
            elementSize = 1
            interpolation = "constant"
        )
        float[] primvars:skel:jointWeights = [1] (
            elementSize = 1
            interpolation = "constant"
        )
        uniform token[] skel:blendShapes = ["bulge", "plain"]
        rel skel:blendShapeTargets = [</Root/Quad/bulge>, </Root/Quad/plain>]
        rel skel:skeleton = </Root/Skel>

        def BlendShape "bulge"
        {
            uniform int[] pointIndices = [1, 4]
            uniform vector3f[] offsets = [(0, 0, 1), (0, 0, 2)]
            uniform vector3f[] inbetweens:low = [(.5, 0, 0), (0, .5, .25)] (
                weight = 0.25
            )
            uniform vector3f[] inbetweens:neg = [(0, -1, 0), (1, 0, 0)] (
                weight = -.5
            )
        }

        def BlendShape "plain"
        {
            uniform int[] pointIndices = [5]
            uniform vector3f[] offsets = [(0, 0, -1)]
        }
    }
}
"#;

/// Two quads sharing the edge of points 1 and 4, skinned by two joints (the tip turns 90
/// degrees about X), with face-varying normals (each face its own) and indexed face-varying
/// coordinates with a seam on the shared edge, and a blend shape moving point 4.
pub const FACE_VARYING: &str = r#"#usda 1.0
(
    upAxis = "Y"
    startTimeCode = 0
    endTimeCode = 10
    timeCodesPerSecond = 10
)

def SkelRoot "Root" (
    prepend apiSchemas = ["SkelBindingAPI"]
)
{
    def Skeleton "Skel" (
        prepend apiSchemas = ["SkelBindingAPI"]
    )
    {
        uniform token[] joints = ["a", "a/b"]
        uniform matrix4d[] bindTransforms = [((1,0,0,0),(0,1,0,0),(0,0,1,0),(0,0,0,1)), ((1,0,0,0),(0,1,0,0),(0,0,1,0),(1,0,0,1))]
        uniform matrix4d[] restTransforms = [((1,0,0,0),(0,1,0,0),(0,0,1,0),(0,0,0,1)), ((1,0,0,0),(0,1,0,0),(0,0,1,0),(1,0,0,1))]
        rel skel:animationSource = </Root/Skel/Anim>

        def SkelAnimation "Anim"
        {
            uniform token[] joints = ["a", "a/b"]
            quatf[] rotations.timeSamples = {
                0: [(1, 0, 0, 0), (1, 0, 0, 0)],
                10: [(1, 0, 0, 0), (.70710677, .70710677, 0, 0)],
            }
            float3[] translations = [(0, 0, 0), (1, 0, 0)]
            half3[] scales = [(1, 1, 1), (1, 1, 1)]
            uniform token[] blendShapes = ["lift"]
            float[] blendShapeWeights.timeSamples = {
                0: [0],
                10: [1],
            }
        }
    }

    def Mesh "Strip" (
        prepend apiSchemas = ["SkelBindingAPI"]
    )
    {
        int[] faceVertexCounts = [4, 4]
        int[] faceVertexIndices = [0, 1, 4, 3, 1, 2, 5, 4]
        point3f[] points = [(0, 0, 0), (1, 0, 0), (2, 0, 0), (0, 1, 0), (1, 1, 0), (2, 1, 0)]
        normal3f[] primvars:normals = [(0, 0, 1), (0, 0, 1), (0, 0, 1), (0, 0, 1), (1, 0, 0), (1, 0, 0), (1, 0, 0), (1, 0, 0)] (
            interpolation = "faceVarying"
        )
        texCoord2f[] primvars:st = [(0, 0), (.5, 0), (.5, 1), (0, 1), (.6, 0), (1, 0), (1, 1), (.6, 1)] (
            interpolation = "faceVarying"
        )
        int[] primvars:st:indices = [0, 1, 2, 3, 4, 5, 6, 7]
        int[] primvars:skel:jointIndices = [0, 1, 0, 1, 1, 0, 0, 1, 0, 1, 1, 0] (
            elementSize = 2
            interpolation = "vertex"
        )
        float[] primvars:skel:jointWeights = [1, 0, .5, .5, 1, 0, 1, 0, .5, .5, 1, 0] (
            elementSize = 2
            interpolation = "vertex"
        )
        uniform token[] skel:blendShapes = ["lift"]
        rel skel:blendShapeTargets = [</Root/Strip/lift>]
        uniform token primvars:skel:skinningMethod = "dualQuaternion"
        rel skel:skeleton = </Root/Skel>

        def BlendShape "lift"
        {
            uniform int[] pointIndices = [4]
            uniform vector3f[] offsets = [(0, 0, .5)]
        }
    }
}
"#;

/// A stage with what dqview does not read: a camera, a light, a NURBS curve, a cube gprim, a
/// mesh of the fallback (catmullClark) scheme with a GeomSubset and a textured material, and a
/// cubic curve with widths.
pub const NOT_READ: &str = r#"#usda 1.0
(
    upAxis = "Y"
)

def Xform "World"
{
    def Camera "Cam"
    {
    }

    def SphereLight "Lamp"
    {
    }

    def NurbsCurves "Nurbs"
    {
        int[] curveVertexCounts = [2]
        point3f[] points = [(0, 0, 0), (1, 0, 0)]
    }

    def Cube "Box"
    {
    }

    def Mesh "Smooth"
    {
        int[] faceVertexCounts = [3]
        int[] faceVertexIndices = [0, 1, 2]
        point3f[] points = [(0, 0, 0), (1, 0, 0), (0, 1, 0)]
        rel material:binding = </World/Look>

        def GeomSubset "Part"
        {
            uniform token elementType = "face"
            int[] indices = [0]
        }
    }

    def Material "Look"
    {
        def Shader "Surface"
        {
            uniform token info:id = "UsdPreviewSurface"
            color3f inputs:diffuseColor = (1, .5, 0)
        }

        def Shader "Image"
        {
            uniform token info:id = "UsdUVTexture"
            asset inputs:file = @skin.png@
        }
    }

    def BasisCurves "Guides"
    {
        uniform token type = "cubic"
        int[] curveVertexCounts = [4]
        point3f[] points = [(0, 0, 0), (0, 1, 0), (0, 2, 0), (0, 3, 0)]
        float[] widths = [.1, .1, .1, .1]
    }
}
"#;
