/**
 * The Grounding lab's five measurement cards: value, numerator/denominator, the formula in the
 * seed's words, and Undefined with its reason. `data-state` names the state they show, so a reader
 * (or a test) knows the numbers are current.
 */
import type { Measurement } from '../../../src/evaluate/measurement.js';
import { METRICS, type MetricKey } from '../lab/lab-lesson.js';

/** A value as the seed writes it: `1`, `0`, `0.67`. */
export function labValue(value: number): string {
  return String(Math.round(value * 100) / 100);
}

export function LabCards(props: { state: string; measures: Readonly<Record<MetricKey, Measurement>> }) {
  return (
    <ul class="cards lab-cards" data-testid="lab-cards" data-state={props.state}>
      {METRICS.map((c) => {
        const m = props.measures[c.key];
        return (
          <li key={c.key}>
            <article
              class={`card measure ${m.value === null ? 'undefined' : ''}`}
              data-testid="lab-card"
              data-metric={c.key}
              data-value={m.value ?? ''}
              aria-labelledby={`lab-card-${c.key}`}
            >
              <h3 id={`lab-card-${c.key}`}>{c.name}</h3>
              <p class="value" data-testid="lab-value">
                {m.value === null ? 'Undefined' : labValue(m.value)}
              </p>
              <p class="fraction">
                <span data-testid="lab-num">{m.num}</span> / <span data-testid="lab-den">{m.den}</span>
                <span class="muted"> · {c.formula}</span>
              </p>
              {m.value === null && (
                <p class="reason" data-testid="lab-reason">
                  Undefined: {m.undefinedReason}
                </p>
              )}
              <p class="small muted">{c.note}</p>
            </article>
          </li>
        );
      })}
    </ul>
  );
}
