/**
 * The features behind a noise score as small labelled bars: each rank-normalised value (−1.73 to
 * 1.73, larger: noisier) drawn from a centre line, right and warm when it points to junk, left and
 * cool when it points away. The strongest few show; the rest fold under "All features".
 */

/** What each feature measures, in a person's words (src/quality/noise/features.ts, intrinsic.ts). */
const LABELS: Record<string, string> = {
  hub: 'Near many other chunks',
  dup_out: 'Copies elsewhere',
  off_centre: 'Off the vault’s topics',
  spread_chunk: 'Chunks without a topic',
  spread_doc: 'Document without a topic',
  low_idf: 'Common words only',
  redundancy: 'Repeats itself',
  short: 'Short chunks',
  promiscuity: 'Retrieved for anything',
  stop_density: 'Few function words',
  sentence_share: 'Few full sentences',
  mean_sentence_len: 'Short sentences',
  link_like: 'Navigation-like lines',
  boiler_lexicon: 'Boilerplate phrases',
};
const MAX = 1.73;
const SHOWN = 4;
const W = 96;
const H = 10;

export function FeatureBars({ features }: { features: Record<string, number> }) {
  const rows = Object.entries(features).sort((a, b) => b[1] - a[1]);
  return (
    <div class="features">
      <ul class="feature-list" aria-label="Strongest features">
        {rows.slice(0, SHOWN).map(([name, v]) => (
          <FeatureRow key={name} name={name} value={v} />
        ))}
      </ul>
      {rows.length > SHOWN && (
        <details>
          <summary class="small">All {rows.length} features</summary>
          <ul class="feature-list" aria-label="The other features">
            {rows.slice(SHOWN).map(([name, v]) => (
              <FeatureRow key={name} name={name} value={v} />
            ))}
          </ul>
        </details>
      )}
    </div>
  );
}

function FeatureRow({ name, value }: { name: string; value: number }) {
  const half = W / 2;
  const len = (Math.min(Math.abs(value), MAX) / MAX) * half;
  return (
    <li>
      <span class="feature-name">{LABELS[name] ?? name}</span>
      <svg class="feature-bar" width={W} height={H} viewBox={`0 0 ${W} ${H}`} aria-hidden="true">
        <rect class="track" x={0} y={3} width={W} height={4} rx={2} />
        <rect
          class={value > 0 ? 'up' : 'down'}
          x={value > 0 ? half : half - len}
          y={1}
          width={len}
          height={8}
          rx={2}
        />
        <line class="centre" x1={half} x2={half} y1={0} y2={H} />
      </svg>
      <span class="feature-value">
        {value > 0 ? '+' : value < 0 ? '−' : ''}
        {Math.abs(value).toFixed(2)}
      </span>
    </li>
  );
}
