/**
 * The Grounding lab's controls: the retrieved context, the answer and the citation rule as labelled
 * radio groups (arrow keys move within a group), the presets as buttons, and Reset.
 */
import type { LabSelection } from '../../../src/evaluate/grounding-lab.js';
import { ANSWER_CHOICES, CONTEXT_CHOICES, PRESETS, RULE_CHOICES, type Choice } from '../lab/lab-lesson.js';
import { sameSelection } from '../lab/lab-state.js';

const GROUPS: readonly { control: keyof LabSelection; legend: string; choices: readonly Choice[] }[] = [
  { control: 'context', legend: 'Retrieved context', choices: CONTEXT_CHOICES },
  { control: 'answer', legend: 'Answer', choices: ANSWER_CHOICES },
  { control: 'citationRule', legend: 'Citations', choices: RULE_CHOICES },
];

export function LabControls(props: {
  selection: LabSelection;
  onControl: (control: keyof LabSelection, value: string) => void;
  onPreset: (selection: LabSelection) => void;
  onReset: () => void;
}) {
  const { selection } = props;
  return (
    <section class="card lab-controls" aria-labelledby="lab-controls-title">
      <h2 id="lab-controls-title">Controls</h2>
      <div class="lab-groups">
        {GROUPS.map((g) => (
          <fieldset key={g.control} class="lab-group">
            <legend>{g.legend}</legend>
            {g.choices.map((c) => (
              <label key={c.id}>
                <input
                  type="radio"
                  name={`lab-${g.control}`}
                  value={c.id}
                  checked={selection[g.control] === c.id}
                  onChange={() => props.onControl(g.control, c.id)}
                />
                {c.label}
              </label>
            ))}
          </fieldset>
        ))}
      </div>
      <div class="lab-presets" role="group" aria-labelledby="lab-presets-title">
        <h3 id="lab-presets-title">Presets</h3>
        <div class="row">
          {PRESETS.map((p) => (
            <button
              key={p.id}
              type="button"
              class="quiet"
              aria-pressed={sameSelection(p.selection, selection)}
              onClick={() => props.onPreset(p.selection)}
            >
              {p.label}
            </button>
          ))}
          <button type="button" onClick={props.onReset}>
            Reset
          </button>
        </div>
      </div>
    </section>
  );
}
