/**
 * `quiver/transformers`: local ONNX embedding models through transformers.js. A subpath of its own
 * so the core package neither depends on nor loads `@huggingface/transformers` (an optional peer:
 * install it yourself, with `ONNXRUNTIME_NODE_INSTALL=skip` where its native runtime cannot be
 * fetched). `createEmbedder({ provider: 'transformers', … })` in the core uses the same code.
 */
export { createTransformersEmbedder, type TransformersEmbedderOptions } from './embed/transformers.js';
export type { TransformersDtype, TransformersPooling } from './embed/transformers-model.js';
