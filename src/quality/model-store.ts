/**
 * Where the quality loop keeps its switches (store meta) and its two fitted models (store blobs):
 * the pairwise ranker and the noise blend. A model is saved by a fit, switched on by a person, and
 * loaded only when its feature names match this quiver's.
 */

import { QuiverError } from '../errors.js';
import type { Store } from '../store/store.js';
import { Ranker } from './ranker.js';

/** Where the switches (meta) and fitted models (blobs) live in the store. */
export const QUALITY_KEYS = {
  learn: 'quality.learn',
  rankerOn: 'quality.ranker.on',
  noiseOn: 'quality.noise.on',
  ranker: 'quality.ranker',
  noise: 'quality.noise',
  rankerAt: 'quality.ranker.at',
  noiseAt: 'quality.noise.at',
} as const;

/** Each fitted model's blob key, switch key, fit-time key, and its name in messages. */
const MODELS = {
  ranker: { blob: QUALITY_KEYS.ranker, on: QUALITY_KEYS.rankerOn, at: QUALITY_KEYS.rankerAt, what: 'ranker' },
  noise: {
    blob: QUALITY_KEYS.noise,
    on: QUALITY_KEYS.noiseOn,
    at: QUALITY_KEYS.noiseAt,
    what: 'noise blend',
  },
} as const;

/** Which fitted model: the pairwise ranker or the noise blend. */
export type QualityModel = keyof typeof MODELS;

export interface FitResult {
  model: Ranker;
  /** True when the model was fitted and written to the store. */
  saved: boolean;
}

/** A stored model's switch, fit time, fit size and weights (largest first); nulls when none is stored. */
export interface ModelInfo {
  on: boolean;
  fittedAt: string | null;
  meta: Ranker['meta'] | null;
  weights: [string, number][];
}

/**
 * The stored model, or null when none is. A model fitted on other feature `names` (another quiver
 * version) → QuiverError('SCHEMA') asking to fit it again.
 */
export async function loadModel(
  store: Store,
  which: QualityModel,
  names: readonly string[],
): Promise<Ranker | null> {
  const key = MODELS[which].blob;
  const blob = await store.getBlob(key);
  if (blob === null) return null;
  const model = Ranker.fromJSON(JSON.parse(Buffer.from(blob).toString('utf8')));
  if (model.names.join(',') !== names.join(',')) {
    throw new QuiverError(
      'SCHEMA',
      `quiver: the stored ${key} model has other features than this quiver; fit it again`,
    );
  }
  return model;
}

/** Write the model and its fit time (`now()`, ms since the epoch, stored as ISO-8601). */
export async function saveModel(
  store: Store,
  which: QualityModel,
  model: Ranker,
  now: () => number,
): Promise<void> {
  await store.putBlob(MODELS[which].blob, Buffer.from(JSON.stringify(model.toJSON()), 'utf8'));
  await store.setMeta(MODELS[which].at, new Date(now()).toISOString());
}

/** Switch a model on (no stored fit → NOT_FOUND) or off. */
export async function setModelOn(store: Store, which: QualityModel, on: boolean): Promise<void> {
  const m = MODELS[which];
  if (on && (await store.getBlob(m.blob)) === null) {
    throw new QuiverError(
      'NOT_FOUND',
      `quiver: no fitted ${m.what} is stored; fit and save one first (quiver ${which === 'ranker' ? 'ranker' : 'noise'} fit --save)`,
    );
  }
  await store.setMeta(m.on, on ? '1' : '0');
}

export async function isModelOn(store: Store, which: QualityModel): Promise<boolean> {
  return (await store.getMeta(MODELS[which].on)) === '1';
}

/** The model's switch, fit time, fit size and weights (see `ModelInfo`). */
export async function modelInfo(
  store: Store,
  which: QualityModel,
  names: readonly string[],
): Promise<ModelInfo> {
  const model = await loadModel(store, which, names);
  return {
    on: await isModelOn(store, which),
    fittedAt: await store.getMeta(MODELS[which].at),
    meta: model?.meta ?? null,
    weights: model?.weights() ?? [],
  };
}
