/**
 * A path on the server, typed by a person, with its submit button, the problem found with it (if
 * any) and a line of help, the input described by both: the folder ingest and the BEIR evaluation.
 */
import type { ComponentChildren } from 'preact';

export function ServerPathField(props: {
  id: string;
  label: string;
  placeholder: string;
  value: string;
  onInput: (value: string) => void;
  problem: string;
  busy: boolean;
  action: string;
  help: ComponentChildren;
}) {
  const { id, problem } = props;
  const help = `${id}-help`;
  const problemId = `${id}-problem`;
  return (
    <>
      <label for={id}>{props.label}</label>
      <div class="row">
        <input
          id={id}
          type="text"
          autoComplete="off"
          spellcheck={false}
          placeholder={props.placeholder}
          value={props.value}
          aria-describedby={problem === '' ? help : `${help} ${problemId}`}
          aria-invalid={problem !== ''}
          onInput={(e) => props.onInput(e.currentTarget.value)}
        />
        <button type="submit" disabled={props.busy}>
          {props.action}
        </button>
      </div>
      {problem !== '' && (
        <p id={problemId} class="field-error small">
          {problem}
        </p>
      )}
      <p id={help} class="muted small">
        {props.help}
      </p>
    </>
  );
}
