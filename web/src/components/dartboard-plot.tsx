/**
 * The Dartboard plot of a question's candidate pool (`POST /v1/selection-map`): the query at the
 * centre, each candidate at a radius in proportion to its cosine distance to the query (the
 * farthest near the edge) and at the angle the server projected from the pool's vectors, so
 * near-copies sit together. A switch chooses the method whose picks are filled and numbered in
 * pick order; the others are hollow. Hovering or focusing a mark shows its title and snippet
 * under the plot; clicking it (or Enter) opens the section in the side panel.
 */
import { useEffect, useState } from 'preact/hooks';
import { getJson } from '../api.js';
import type { MapCandidateJson, SelectionMapJson, SelectionMethod } from '../wire.js';
import { ErrorNote } from './error-note.js';
import { Inline } from './inline.js';
import type { PanelTarget } from './section-panel.js';

const METHODS: readonly { id: SelectionMethod; label: string; about: string }[] = [
  { id: 'topk', label: 'Top-k', about: 'the k closest by score, near-copies and all' },
  { id: 'mmr', label: 'MMR', about: 'close to the query, each unlike those picked before it' },
  { id: 'dartboard', label: 'Dartboard', about: 'the picks that together cover the query best' },
];

/** Half the plot's width in SVG units; marks stay inside `EDGE` of it. */
const HALF = 160;
const EDGE = 140;
const RINGS = [0.25, 0.5, 0.75, 1] as const;

type Loaded =
  { state: 'loading' } | { state: 'ok'; map: SelectionMapJson } | { state: 'failed'; error: unknown };

/** Where candidate `c` sits, with `far` the pool's largest distance. */
export function placeOf(c: MapCandidateJson, far: number): { x: number; y: number } {
  const r = far > 0 ? (Math.max(0, c.distance) / far) * EDGE : 0;
  return { x: r * Math.cos(c.angle), y: r * Math.sin(c.angle) };
}

export function DartboardPlot(props: {
  question: string;
  token: string;
  onOpen: (target: PanelTarget, from: HTMLElement) => void;
}) {
  const { question, token, onOpen } = props;
  const [loaded, setLoaded] = useState<Loaded>({ state: 'loading' });
  const [method, setMethod] = useState<SelectionMethod>('dartboard');
  const [shown, setShown] = useState<number | null>(null);
  useEffect(() => {
    const stop = new AbortController();
    setLoaded({ state: 'loading' });
    setShown(null);
    getJson<SelectionMapJson>('/v1/selection-map', token, {
      body: { query: question },
      signal: stop.signal,
    }).then(
      (map) => setLoaded({ state: 'ok', map }),
      (error: unknown) => {
        if (!stop.signal.aborted) setLoaded({ state: 'failed', error });
      },
    );
    return () => stop.abort();
  }, [question, token]);

  return (
    <section class="card" aria-labelledby="plot-title">
      <h2 id="plot-title">How the evidence was chosen</h2>
      {loaded.state === 'loading' && <p class="muted">Loading the candidates…</p>}
      {loaded.state === 'failed' && <ErrorNote error={loaded.error} />}
      {loaded.state === 'ok' && (
        <Plot
          map={loaded.map}
          method={method}
          onMethod={setMethod}
          shown={shown}
          onShow={setShown}
          onOpen={onOpen}
        />
      )}
    </section>
  );
}

function Plot(props: {
  map: SelectionMapJson;
  method: SelectionMethod;
  onMethod: (m: SelectionMethod) => void;
  shown: number | null;
  onShow: (i: number | null) => void;
  onOpen: (target: PanelTarget, from: HTMLElement) => void;
}) {
  const { map, method, onMethod, shown, onShow, onOpen } = props;
  const { candidates } = map;
  if (candidates.length === 0) return <p class="muted">No section was a candidate for this question.</p>;
  const far = Math.max(...candidates.map((c) => c.distance));
  const order = new Map(map.picks[method].map((i, n) => [i, n + 1]));
  // Hollow marks first, so the picks are drawn on top of them.
  const drawn = candidates.map((_, i) => i).sort((a, b) => Number(order.has(a)) - Number(order.has(b)));
  const about = METHODS.find((m) => m.id === method)?.about ?? '';
  const current = shown === null ? undefined : candidates[shown];
  const open = (i: number, from: Element): void => {
    const c = candidates[i];
    if (c !== undefined) onOpen({ kind: 'section', sectionId: c.section_id }, from as HTMLElement);
  };
  return (
    <>
      <p class="muted">
        The {candidates.length} sections retrieval offered for the question. Distance from the centre is how
        unlike the question a section is (1 − cosine similarity; the outer ring is the farthest,{' '}
        {far.toFixed(3)}); the angle comes from the sections’ own vectors, so near-copies sit side by side.
      </p>
      <fieldset class="switch">
        <legend>Picks of</legend>
        {METHODS.map((m) => (
          <label key={m.id}>
            <input
              type="radio"
              name="plot-method"
              value={m.id}
              checked={m.id === method}
              onChange={() => onMethod(m.id)}
            />
            {m.label}
          </label>
        ))}
      </fieldset>
      <p class="small">
        <strong>{METHODS.find((m) => m.id === method)?.label}</strong> picks {order.size} of{' '}
        {candidates.length}: {about}. Filled and numbered marks are its picks in order; hollow ones were left
        out.
      </p>
      <div class="plot-wrap">
        <svg
          class="dartboard"
          viewBox={`${-HALF} ${-HALF} ${2 * HALF} ${2 * HALF}`}
          role="group"
          aria-label={`Candidate sections by distance to the query; ${method} picks filled`}
          data-testid="plot"
        >
          {RINGS.map((f) => (
            <circle key={f} class="ring" cx="0" cy="0" r={f * EDGE} />
          ))}
          {RINGS.map((f) => (
            <text key={`l${f}`} class="ring-label" x="3" y={-f * EDGE - 3} aria-hidden="true">
              {(f * far).toFixed(2)}
            </text>
          ))}
          <path class="query" d="M-7 0H7M0 -7V7" aria-hidden="true" />
          {drawn.map((i) => {
            const c = candidates[i] as MapCandidateJson;
            const { x, y } = placeOf(c, far);
            const n = order.get(i);
            const name = c.title === '' ? c.breadcrumb : c.title;
            return (
              <g
                key={c.section_id}
                class={`mark ${n === undefined ? 'hollow' : 'picked'} ${i === shown ? 'shown' : ''}`}
                transform={`translate(${x.toFixed(1)} ${y.toFixed(1)})`}
                tabIndex={0}
                role="button"
                aria-label={`${name}: distance ${c.distance.toFixed(3)}, ${
                  n === undefined ? `not picked by ${method}` : `pick ${n} of ${method}`
                }. Open the section.`}
                data-testid="plot-mark"
                data-section={c.section_id}
                data-picked={n === undefined ? 'false' : 'true'}
                onMouseEnter={() => onShow(i)}
                onFocus={() => onShow(i)}
                onClick={(e) => open(i, e.currentTarget)}
                onKeyDown={(e) => {
                  if (e.key === 'Enter' || e.key === ' ') {
                    e.preventDefault();
                    open(i, e.currentTarget);
                  }
                }}
              >
                <circle r={n === undefined ? 6 : 9} />
                {n !== undefined && (
                  <text class="pick-n" y="0.5" aria-hidden="true">
                    {n}
                  </text>
                )}
              </g>
            );
          })}
        </svg>
        <div class="plot-caption" aria-live="polite" data-testid="plot-caption">
          {current === undefined ? (
            <p class="muted small">
              Hover over or focus a mark to read its passage; click it to open the section.
            </p>
          ) : (
            <>
              <p class="crumb">{current.title === '' ? current.breadcrumb : current.title}</p>
              <p class="muted small">
                {current.source} · distance {current.distance.toFixed(3)} · retrieval rank{' '}
                {current.retrieval_rank + 1}
                {order.has(shown ?? -1) ? ` · ${method} pick ${order.get(shown ?? -1)}` : ''}
              </p>
              <p class="small snippet">
                <Inline text={current.snippet} />
              </p>
            </>
          )}
        </div>
      </div>
    </>
  );
}
