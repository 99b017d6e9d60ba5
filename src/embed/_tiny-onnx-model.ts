/**
 * Test helper (internal): writes a tiny ONNX sentence-embedding model with a BERT WordPiece
 * tokenizer into a folder, so the transformers.js back end can be tested offline without Python or
 * a download. The model is `last_hidden_state[b, t] = E[input_ids[b, t]] · attention_mask[b, t]`
 * (an embedding-table Gather masked by attention), so mean and CLS pooling can be computed by hand
 * from the exported table and vocabulary.
 *
 * The vocabulary holds the BERT specials, a few whole words, every lower-case letter and digit
 * (plus their `##` continuations) and common punctuation, so any ASCII text tokenizes without
 * `[UNK]`. The ONNX file is hand-encoded protobuf (ModelProto → GraphProto), opset 13.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Embedding width of the tiny model unless asked otherwise. */
export const DEFAULT_TINY_DIMS = 16;
export const TINY_SPECIALS = ['[PAD]', '[UNK]', '[CLS]', '[SEP]'] as const;
/** Whole-word entries; a text made only of these tokenizes to `[CLS] w… [SEP]`. */
export const TINY_WORDS = ['the', 'cat', 'dog', 'sat', 'on', 'mat', 'vector', 'search', 'hello', 'world'];

export interface TinyModelOptions {
  /** Embedding width. Defaults to 16. */
  dims?: number;
  /** Seed of the embedding table. Defaults to 1. */
  seed?: number;
  /** When set, writes a sentence-transformers `modules.json` + `1_Pooling/config.json` asking for it. */
  pooling?: 'mean' | 'cls' | 'max';
}

export interface TinyModel {
  dir: string;
  dims: number;
  /** Token → id. */
  vocab: ReadonlyMap<string, number>;
  /** Row-major `vocab.size × dims` embedding table. */
  table: Float32Array;
}

// ---- a minimal protobuf writer (varints, length-delimited fields)

function varint(value: number | bigint): Buffer {
  let n = BigInt(value);
  if (n < 0n) n += 1n << 64n;
  const out: number[] = [];
  do {
    let byte = Number(n & 0x7fn);
    n >>= 7n;
    if (n !== 0n) byte |= 0x80;
    out.push(byte);
  } while (n !== 0n);
  return Buffer.from(out);
}

const tag = (field: number, wire: 0 | 2): Buffer => varint((field << 3) | wire);
const int = (field: number, v: number): Buffer => Buffer.concat([tag(field, 0), varint(v)]);
function bytes(field: number, data: Buffer | string): Buffer {
  const buf = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  return Buffer.concat([tag(field, 2), varint(buf.length), buf]);
}
const sub = (field: number, ...parts: Buffer[]): Buffer => bytes(field, Buffer.concat(parts));

const ELEM_FLOAT = 1;
const ELEM_INT64 = 7;

/** ValueInfoProto with a tensor type; string dims are symbolic. */
function valueInfo(field: number, name: string, elem: number, shape: (number | string)[]): Buffer {
  const dims = shape.map((d) => sub(1, typeof d === 'number' ? int(1, d) : bytes(2, d)));
  return sub(field, bytes(1, name), sub(2, sub(1, int(1, elem), sub(2, ...dims))));
}

/** NodeProto; attributes are INT attributes. */
function opNode(op: string, inputs: string[], outputs: string[], attrs: Record<string, number> = {}): Buffer {
  return sub(
    1,
    ...inputs.map((i) => bytes(1, i)),
    ...outputs.map((o) => bytes(2, o)),
    bytes(3, `${op}_${outputs[0] ?? ''}`),
    bytes(4, op),
    ...Object.entries(attrs).map(([k, v]) => sub(5, bytes(1, k), int(20, 2), int(3, v))),
  );
}

/** TensorProto initializer with raw little-endian data. */
function initializer(name: string, elem: number, dims: number[], raw: Buffer): Buffer {
  return sub(5, ...dims.map((d) => int(1, d)), int(2, elem), bytes(8, name), bytes(9, raw));
}

/** Park–Miller generator mapped to [−0.5, 0.5): deterministic on every machine. */
function table(rows: number, dims: number, seed: number): Float32Array {
  const out = new Float32Array(rows * dims);
  let s = seed % 2147483647 || 1;
  for (let i = 0; i < out.length; i++) {
    s = (s * 16807) % 2147483647;
    out[i] = s / 2147483647 - 0.5;
  }
  return out;
}

function vocabulary(): string[] {
  const letters = 'abcdefghijklmnopqrstuvwxyz0123456789'.split('');
  const punct = '.,:;!?-\'"()'.split('');
  return [...TINY_SPECIALS, ...TINY_WORDS, ...letters, ...letters.map((c) => `##${c}`), ...punct];
}

/** The ONNX ModelProto bytes for an embedding table `emb` of shape [rows, dims]. */
function onnxModel(emb: Float32Array, rows: number, dims: number): Buffer {
  const axes = Buffer.from(new BigInt64Array([-1n]).buffer);
  const graph = Buffer.concat([
    opNode('Gather', ['emb', 'input_ids'], ['gathered'], { axis: 0 }),
    opNode('Cast', ['attention_mask'], ['mask_f'], { to: ELEM_FLOAT }),
    opNode('Unsqueeze', ['mask_f', 'axes'], ['mask_3d']),
    opNode('Mul', ['gathered', 'mask_3d'], ['last_hidden_state']),
    bytes(2, 'quiver-tiny'),
    initializer('emb', ELEM_FLOAT, [rows, dims], Buffer.from(emb.buffer, emb.byteOffset, emb.byteLength)),
    initializer('axes', ELEM_INT64, [1], axes),
    valueInfo(11, 'input_ids', ELEM_INT64, ['batch', 'seq']),
    valueInfo(11, 'attention_mask', ELEM_INT64, ['batch', 'seq']),
    valueInfo(12, 'last_hidden_state', ELEM_FLOAT, ['batch', 'seq', dims]),
  ]);
  // ir_version 8, producer, opset_import { domain "", version 13 }, graph
  return Buffer.concat([int(1, 8), bytes(2, 'quiver-test'), sub(8, bytes(1, ''), int(2, 13)), sub(7, graph)]);
}

function tokenizerJson(vocab: Record<string, number>): unknown {
  const special = (content: string, id: number): Record<string, unknown> => ({
    id,
    content,
    single_word: false,
    lstrip: false,
    rstrip: false,
    normalized: false,
    special: true,
  });
  const cls = { SpecialToken: { id: '[CLS]', type_id: 0 } };
  const sep = { SpecialToken: { id: '[SEP]', type_id: 0 } };
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: TINY_SPECIALS.map((t, i) => special(t, i)),
    normalizer: {
      type: 'BertNormalizer',
      clean_text: true,
      handle_chinese_chars: true,
      strip_accents: null,
      lowercase: true,
    },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [cls, { Sequence: { id: 'A', type_id: 0 } }, sep],
      pair: [cls, { Sequence: { id: 'A', type_id: 0 } }, sep, { Sequence: { id: 'B', type_id: 1 } }, sep],
      special_tokens: {
        '[CLS]': { id: '[CLS]', ids: [2], tokens: ['[CLS]'] },
        '[SEP]': { id: '[SEP]', ids: [3], tokens: ['[SEP]'] },
      },
    },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: {
      type: 'WordPiece',
      unk_token: '[UNK]',
      continuing_subword_prefix: '##',
      max_input_chars_per_word: 100,
      vocab,
    },
  };
}

/**
 * Writes `config.json`, `tokenizer.json`, `tokenizer_config.json` and `onnx/model.onnx` (and the
 * sentence-transformers pooling files when `pooling` is set) into `dir`, creating it.
 */
export function writeTinyOnnxModel(dir: string, options: TinyModelOptions = {}): TinyModel {
  const dims = options.dims ?? DEFAULT_TINY_DIMS;
  const words = vocabulary();
  const vocab = new Map(words.map((w, i) => [w, i] as const));
  const emb = table(words.length, dims, options.seed ?? 1);
  mkdirSync(join(dir, 'onnx'), { recursive: true });
  writeFileSync(join(dir, 'onnx', 'model.onnx'), onnxModel(emb, words.length, dims));
  writeFileSync(join(dir, 'tokenizer.json'), JSON.stringify(tokenizerJson(Object.fromEntries(vocab))));
  writeFileSync(
    join(dir, 'tokenizer_config.json'),
    JSON.stringify({
      tokenizer_class: 'BertTokenizer',
      do_lower_case: true,
      model_max_length: 512,
      cls_token: '[CLS]',
      sep_token: '[SEP]',
      pad_token: '[PAD]',
      unk_token: '[UNK]',
    }),
  );
  writeFileSync(
    join(dir, 'config.json'),
    JSON.stringify({
      model_type: 'bert',
      architectures: ['BertModel'],
      hidden_size: dims,
      vocab_size: words.length,
      max_position_embeddings: 512,
    }),
  );
  if (options.pooling !== undefined) {
    writeFileSync(
      join(dir, 'modules.json'),
      JSON.stringify([
        { idx: 0, name: '0', path: '', type: 'sentence_transformers.models.Transformer' },
        { idx: 1, name: '1', path: '1_Pooling', type: 'sentence_transformers.models.Pooling' },
      ]),
    );
    mkdirSync(join(dir, '1_Pooling'), { recursive: true });
    writeFileSync(
      join(dir, '1_Pooling', 'config.json'),
      JSON.stringify({
        word_embedding_dimension: dims,
        pooling_mode_cls_token: options.pooling === 'cls',
        pooling_mode_mean_tokens: options.pooling === 'mean',
        pooling_mode_max_tokens: options.pooling === 'max',
        pooling_mode_mean_sqrt_len_tokens: false,
      }),
    );
  }
  return { dir, dims, vocab, table: emb };
}

/** Row `id` of the table. */
export function tinyRow(model: TinyModel, id: number): Float32Array {
  return model.table.subarray(id * model.dims, (id + 1) * model.dims);
}

/** Token ids `[CLS] w… [SEP]` for a text made only of whole vocabulary words (throws otherwise). */
export function tinyWordIds(model: TinyModel, text: string): number[] {
  const ids = text
    .toLowerCase()
    .split(/\s+/)
    .filter((w) => w !== '')
    .map((w) => {
      const id = model.vocab.get(w);
      if (id === undefined) throw new Error(`tiny model: "${w}" is not a whole word in the vocabulary`);
      return id;
    });
  return [model.vocab.get('[CLS]')!, ...ids, model.vocab.get('[SEP]')!];
}
