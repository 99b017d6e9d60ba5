/**
 * A form for a path on the server, typed by a person: its heading, the field with its submit button,
 * the problem found with it (an empty path is refused here, with `empty`) and a line of help, the
 * input described by both; then what the submit started (`children`: a job's progress). The folder
 * ingest and the BEIR evaluation.
 */
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';

export function ServerPathForm(props: {
  id: string;
  title: string;
  label: string;
  placeholder: string;
  /** Said when the path is empty. */
  empty: string;
  busy: boolean;
  action: string;
  help: ComponentChildren;
  /** A non-empty path, trimmed. */
  onPath: (path: string) => void;
  children?: ComponentChildren;
}) {
  const { id } = props;
  const [path, setPath] = useState('');
  const [problem, setProblem] = useState('');
  const help = `${id}-help`;
  const problemId = `${id}-problem`;
  const submit = (e: Event): void => {
    e.preventDefault();
    const p = path.trim();
    setProblem(p === '' ? props.empty : '');
    if (p !== '') props.onPath(p);
  };
  return (
    <form class="add-part" onSubmit={submit} noValidate>
      <h3>{props.title}</h3>
      <label for={id}>{props.label}</label>
      <div class="row">
        <input
          id={id}
          type="text"
          autoComplete="off"
          spellcheck={false}
          placeholder={props.placeholder}
          value={path}
          aria-describedby={problem === '' ? help : `${help} ${problemId}`}
          aria-invalid={problem !== ''}
          onInput={(e) => setPath(e.currentTarget.value)}
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
      {props.children}
    </form>
  );
}
