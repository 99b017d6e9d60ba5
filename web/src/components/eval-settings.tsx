/**
 * What an evaluation compares: the selection methods (one config each; the first is the baseline
 * the others are compared with) and the judge of answer support. Shared by both ways to start one.
 */
export const EVAL_METHODS = [
  { id: 'topk', label: 'Top-k' },
  { id: 'mmr', label: 'MMR' },
  { id: 'dartboard', label: 'Dartboard' },
] as const;

export const EVAL_JUDGES = [
  { id: 'lexical', label: 'Lexical proxy (offline)' },
  { id: 'fact-id', label: 'Fact ids of the set' },
  { id: 'llm', label: 'LLM judge (when configured)' },
] as const;

export interface EvalChoice {
  select: string[];
  judge: string;
}

export const DEFAULT_EVAL_CHOICE: EvalChoice = { select: ['topk'], judge: 'lexical' };

export function EvalSettings(props: { value: EvalChoice; onChange: (v: EvalChoice) => void }) {
  const { value, onChange } = props;
  const toggle = (id: string, on: boolean): void => {
    const select = EVAL_METHODS.map((m) => m.id).filter((m) => (m === id ? on : value.select.includes(m)));
    onChange({ ...value, select });
  };
  return (
    <div class="eval-settings">
      <fieldset class="switch">
        <legend>Selection methods to compare</legend>
        {EVAL_METHODS.map((m) => (
          <label key={m.id}>
            <input
              type="checkbox"
              checked={value.select.includes(m.id)}
              onChange={(e) => toggle(m.id, e.currentTarget.checked)}
            />
            {m.label}
          </label>
        ))}
      </fieldset>
      <label for="eval-judge">Judge of answer support</label>
      <select
        id="eval-judge"
        value={value.judge}
        onChange={(e) => onChange({ ...value, judge: e.currentTarget.value })}
      >
        {EVAL_JUDGES.map((j) => (
          <option key={j.id} value={j.id}>
            {j.label}
          </option>
        ))}
      </select>
      {value.select.length === 0 && (
        <p class="muted small">No method ticked: the vault’s own selection is measured.</p>
      )}
    </div>
  );
}
