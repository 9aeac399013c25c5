// Type declarations of dqview-three (index.js).
import type { BufferGeometry, DataTexture, Object3D, Skeleton, SkinnedMesh, Sphere } from "three";

/**
 * A skinning method: dqview's LBS, DQS, hybrid or CoR (which reads the `_COR_CENTER` attribute
 * `dqview cor` writes), or three.js's own ("stock").
 */
export type SkinningMethod = "lbs" | "dqs" | "hybrid" | "cor" | "stock";
/** The methods dqview's chunk is written for. */
export type PatchMethod = "lbs" | "dqs" | "hybrid" | "cor";

/** Options of {@link applyDqviewSkinning}. */
export interface DqviewSkinningOptions {
    /** The method (default "dqs"). */
    method?: SkinningMethod;
    /** Hybrid's blend for meshes without a `_DQS_BLEND` map: 0 is LBS, 1 is DQS (default 1). */
    beta?: number;
}

/** What {@link applyDqviewSkinning} returns. */
export interface DqviewSkinning {
    /** The skinned meshes it patched. */
    readonly meshes: SkinnedMesh[];
    /** The current method. */
    readonly method: SkinningMethod;
    /** The current hybrid beta. */
    readonly beta: number;
    /** Switches every mesh to `method`; each program compiles once per method and material. */
    setMethod(method: SkinningMethod): void;
    /** Sets hybrid's blend for meshes without a `_DQS_BLEND` map (0 to 1). */
    setBeta(beta: number): void;
    /** Gives every mesh three.js's own skinning back and frees the palettes. */
    dispose(): void;
}

/**
 * Makes every SkinnedMesh under `root` skin with dqview's `method` in its own material (and its
 * shadows); throws on an unknown method, a beta outside [0, 1], or CoR asked of a mesh without
 * `_COR_CENTER` (the error names `dqview cor`).
 */
export function applyDqviewSkinning(root: Object3D, options?: DqviewSkinningOptions): DqviewSkinning;
/** Every method `applyDqviewSkinning` takes. */
export const SKINNING_METHODS: readonly SkinningMethod[];
/** Hybrid's per-vertex blends from `_DQS_BLEND` (clamped to [0, 1], NaN as 1), or null without one. */
export function blendMapOf(geometry: BufferGeometry): Float32Array | null;

/** The vertex attributes the patched shaders read. */
export const ATTRIBUTES: {
    readonly joints0: "dqviewJoints0";
    readonly joints1: "dqviewJoints1";
    readonly weights0: "dqviewWeights0";
    readonly weights1: "dqviewWeights1";
    readonly blend: "dqviewBlend";
    readonly corCenter: "dqviewCorCenter";
};
/** The glTF attribute CoR's centres are read from, as GLTFLoader names `_COR_CENTER`. */
export const COR_CENTER_ATTRIBUTE: "_cor_center";
/** The methods the patch skins with. */
export const PATCH_METHODS: readonly PatchMethod[];
/** A material's vertex shader (includes unresolved) skinned by `method`; `morphChunk` is `ShaderChunk.morphtarget_vertex`. */
export function patchVertexShader(vertexShader: string, method: PatchMethod, morphChunk: string): string;
/** Each method's GLSL ES 3.00 chunk, as `dqview shader --target three` writes it. */
export const DQVIEW_CHUNKS: Readonly<Record<PatchMethod, string>>;

/** Texels in a joint's row of the palette texture. */
export const TEXELS_PER_JOINT: 9;
/** Rows a palette texture may have (joints + 1). */
export const MAX_ROWS: 2048;
/** One skeleton's palette as a float texture, refilled from its bone matrices. */
export class PaletteTexture {
    constructor(skeleton: Skeleton);
    readonly texture: DataTexture;
    /** Whether some joint has scale, shear or a mirror. */
    readonly nonRigid: boolean;
    /** Refills the texture from `skeleton.boneMatrices`. */
    refill(): void;
    dispose(): void;
}

/** Pose-following bounds of a skinned mesh. */
export class JointBounds {
    constructor(
        skeleton: Skeleton,
        positions: Float32Array,
        influences: { joints: Uint16Array[]; weights: Float32Array[] },
        morphReach: number,
    );
    /** The sphere holding every vertex at the current pose; `turning` for DQS and hybrid. */
    update(turning: boolean): Sphere;
}
