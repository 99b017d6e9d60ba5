/**
 * The Grounding lab's experiments: pick one, predict which measurements will change, make the one
 * change from Fully supported, see what changed, and answer why. The explanation answer belongs to
 * the state it explained: a real change of state clears it, reapplying the same state keeps it.
 */
import type { LabSelection } from '../../../src/evaluate/grounding-lab.js';
import type { Measurement } from '../../../src/evaluate/measurement.js';
import { EXPERIMENTS, METRICS, type Experiment, type MetricKey } from '../lab/lab-lesson.js';
import { changedMetrics, sameSelection, type LabState } from '../lab/lab-state.js';
import { labValue } from './lab-cards.js';

type Measures = Readonly<Record<MetricKey, Measurement>>;

export interface ExperimentHandlers {
  onStart: (id: string) => void;
  onFree: () => void;
  onPredict: (metric: MetricKey, on: boolean) => void;
  onApply: (selection: LabSelection) => void;
  onExplain: (choice: string) => void;
}

const shown = (m: Measurement): string => (m.value === null ? 'Undefined' : labValue(m.value));

export function LabExperiments(
  props: { state: LabState; before: Measures | null; now: Measures | null } & ExperimentHandlers,
) {
  const { state } = props;
  const current = EXPERIMENTS.find((e) => e.id === state.experiment) ?? null;
  return (
    <section class="card lab-experiments" aria-labelledby="lab-exp-title" data-testid="lab-experiments">
      <h2 id="lab-exp-title">Experiments</h2>
      <ol class="lab-exp-list">
        {EXPERIMENTS.map((e, i) => (
          <li key={e.id}>
            <button
              type="button"
              class="quiet"
              aria-pressed={e.id === state.experiment}
              onClick={() => props.onStart(e.id)}
            >
              Experiment {i + 1}: {e.title}
            </button>
          </li>
        ))}
        <li>
          <button type="button" class="quiet" aria-pressed={current === null} onClick={props.onFree}>
            Explore freely
          </button>
        </li>
      </ol>
      {current === null ? (
        <p class="muted">
          Change the controls freely, or pick an experiment. Reset restores Fully supported and starts
          Experiment 1.
        </p>
      ) : (
        <ExperimentSteps {...props} experiment={current} />
      )}
    </section>
  );
}

function ExperimentSteps(
  props: {
    experiment: Experiment;
    state: LabState;
    before: Measures | null;
    now: Measures | null;
  } & ExperimentHandlers,
) {
  const { experiment: e, state, before, now } = props;
  const predicted = state.predictions[e.id] ?? [];
  const atTarget = sameSelection(state.selection, e.target);
  const changed = atTarget && before !== null && now !== null ? changedMetrics(before, now) : null;
  const answer = state.explanations[e.id];
  const chosen = e.choices.find((c) => c.id === answer);
  return (
    <div class="lab-steps" data-testid="lab-experiment" data-experiment={e.id}>
      <h3>{e.title}</h3>
      <fieldset class="switch">
        <legend>1. Predict: which measurements will change?</legend>
        {METRICS.map((m) => (
          <label key={m.key}>
            <input
              type="checkbox"
              checked={predicted.includes(m.key)}
              onChange={(ev) => props.onPredict(m.key, ev.currentTarget.checked)}
            />
            {m.name}
          </label>
        ))}
      </fieldset>
      <p class="small muted">A prediction restores Fully supported, the state the change starts from.</p>
      <p>
        <strong>2. Change:</strong> {e.task}{' '}
        <button type="button" class="quiet" onClick={() => props.onApply(e.target)}>
          Make the change
        </button>
      </p>
      {!atTarget && <p class="muted small">Make the change to see what it does and answer why.</p>}
      {changed !== null && before !== null && now !== null && (
        <div data-testid="lab-changed">
          <p>
            <strong>3. What changed</strong> (from Fully supported): {changed.length === 0 ? 'nothing.' : ''}
          </p>
          {changed.length > 0 && (
            <ul class="small">
              {changed.map((k) => (
                <li key={k}>
                  {METRICS.find((m) => m.key === k)?.name}: {shown(before[k])} → {shown(now[k])}
                </li>
              ))}
            </ul>
          )}
          {predicted.length > 0 && (
            <p class="small">
              {sameSet(predicted, changed)
                ? 'Your prediction was right.'
                : `You predicted ${names(predicted)}; what changed was ${changed.length === 0 ? 'nothing' : names(changed)}.`}
            </p>
          )}
          <fieldset class="lab-explain">
            <legend>4. Explain: {e.question}</legend>
            {e.choices.map((c) => (
              <label key={c.id}>
                <input
                  type="radio"
                  name={`lab-explain-${e.id}`}
                  value={c.id}
                  checked={answer === c.id}
                  onChange={() => props.onExplain(c.id)}
                />
                {c.text}
              </label>
            ))}
          </fieldset>
          <p class="small" aria-live="polite" data-testid="lab-feedback">
            {chosen === undefined
              ? ''
              : chosen.correct
                ? 'Right.'
                : 'Not quite: look at the cards and tables again.'}
          </p>
        </div>
      )}
    </div>
  );
}

function sameSet(a: readonly MetricKey[], b: readonly MetricKey[]): boolean {
  return a.length === b.length && a.every((k) => b.includes(k));
}

function names(keys: readonly MetricKey[]): string {
  return METRICS.filter((m) => keys.includes(m.key))
    .map((m) => m.name.toLowerCase())
    .join(', ');
}
