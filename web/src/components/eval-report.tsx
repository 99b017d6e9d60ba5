/**
 * One run's HTML report (the page `quiver eval --html` writes), in a sandboxed frame: the server
 * serves it under a policy of its own (no script, sandboxed), and a frame cannot send the token,
 * so the page first asks for a short-lived link to it (`/v1/evals/:job/report-link`).
 */
import { useJson } from '../use-json.js';
import { ErrorNote } from './error-note.js';

export function EvalReport(props: { token: string; job: string; title: string; onBadToken: () => void }) {
  const { token, job, title, onBadToken } = props;
  const link = useJson<{ url: string; expiresAt: string }>(
    `/v1/evals/${encodeURIComponent(job)}/report-link`,
    token,
  );
  if (link.state === 'loading') return <p class="muted">Loading the report…</p>;
  if (link.state === 'failed') return <ErrorNote error={link.error} onBadToken={onBadToken} />;
  return (
    <div class="eval-report">
      <p class="small">
        <a href={link.value.url} target="_blank" rel="noopener noreferrer">
          Open the report on its own page
        </a>{' '}
        <span class="muted">(the link works for ten minutes)</span>
      </p>
      <iframe
        key={link.value.url}
        src={link.value.url}
        sandbox=""
        referrerpolicy="no-referrer"
        title={`Evaluation report: ${title}`}
        data-testid="eval-report"
      />
    </div>
  );
}
