/**
 * The side panel: a cited section with the sentence its claim rests on highlighted and scrolled
 * to, its breadcrumb, source and pages; or a document's outline; or why a citation is invalid.
 * Escape or the close button closes it (focus goes back to what opened it). With `ratings` (an
 * answer's sections), a section has up/down.
 */
import { useEffect, useRef } from 'preact/hooks';
import { pagesLabel } from '../format.js';
import { claimSentence, reflow } from '../highlight.js';
import { Inline } from './inline.js';
import type { ContextSectionJson, OutlineJson, SectionJson } from '../wire.js';
import { useJson } from '../use-json.js';
import type { Ratings } from '../use-ratings.js';
import { ErrorNote } from './error-note.js';
import { RateButtons } from './rate-buttons.js';

export type PanelTarget =
  | { kind: 'cite'; n: number; claim: string; section: ContextSectionJson }
  | { kind: 'invalid'; n: number; count: number }
  | { kind: 'section'; sectionId: string }
  | { kind: 'outline'; docId: string; from?: string };

export function SectionPanel(props: {
  target: PanelTarget;
  token: string;
  onClose: () => void;
  onOpen: (t: PanelTarget) => void;
  ratings?: Ratings;
}) {
  const { target, token, onClose, onOpen, ratings } = props;
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    heading.current?.focus();
  }, [target]);
  useEffect(() => {
    const onKey = (e: KeyboardEvent): void => {
      if (e.key === 'Escape') onClose();
    };
    addEventListener('keydown', onKey);
    return () => removeEventListener('keydown', onKey);
  }, [onClose]);
  const title =
    target.kind === 'cite'
      ? `Source [${target.n}]`
      : target.kind === 'invalid'
        ? `Citation [${target.n}]`
        : target.kind === 'outline'
          ? 'Document outline'
          : 'Section';
  return (
    <aside class="panel" aria-labelledby="panel-title" data-testid="panel">
      <div class="panel-head">
        <h2 id="panel-title" ref={heading} tabIndex={-1}>
          {title}
        </h2>
        <button type="button" class="quiet close" onClick={onClose} aria-label="Close the panel">
          ✕
        </button>
      </div>
      <div class="panel-body">
        {target.kind === 'invalid' ? (
          <p class="note warn">
            This citation is invalid: [{target.n}] names no context section. The answer was given{' '}
            {target.count} sections, numbered 1 to {target.count}.
          </p>
        ) : target.kind === 'outline' ? (
          <Outline docId={target.docId} current={target.from ?? null} token={token} onOpen={onOpen} />
        ) : (
          <Section
            sectionId={target.kind === 'cite' ? target.section.section_id : target.sectionId}
            claim={target.kind === 'cite' ? target.claim : null}
            token={token}
            onOpen={onOpen}
            {...(ratings === undefined
              ? {}
              : { ratings, label: target.kind === 'cite' ? `source ${target.n}` : 'this section' })}
          />
        )}
      </div>
    </aside>
  );
}

function Section(props: {
  sectionId: string;
  claim: string | null;
  token: string;
  onOpen: (t: PanelTarget) => void;
  ratings?: Ratings;
  label?: string;
}) {
  const { sectionId, claim, token, onOpen, ratings, label } = props;
  const loaded = useJson<SectionJson>(`/v1/sections/${encodeURIComponent(sectionId)}`, token);
  const mark = useRef<HTMLElement>(null);
  useEffect(() => {
    mark.current?.scrollIntoView({ block: 'center' });
  }, [loaded]);
  if (loaded.state === 'loading') return <p class="muted">Loading the section…</p>;
  if (loaded.state === 'failed') return <ErrorNote error={loaded.error} />;
  const s = loaded.value;
  const span = claim === null ? null : claimSentence(s.text, claim);
  const text = reflow(s.text);
  const pages = pagesLabel(s.pages);
  return (
    <article class="section">
      <p class="crumb">{s.breadcrumb}</p>
      <dl class="facts">
        <dt>Source</dt>
        <dd>
          <code>{s.source}</code>
        </dd>
        {pages !== '' && (
          <>
            <dt>Page</dt>
            <dd>{pages}</dd>
          </>
        )}
      </dl>
      <button
        type="button"
        class="link"
        onClick={() => onOpen({ kind: 'outline', docId: s.doc_id, from: s.id })}
      >
        Document outline
      </button>
      {ratings !== undefined && (
        <RateButtons sectionId={s.id} label={label ?? 'this section'} ratings={ratings} />
      )}
      {claim !== null && (
        <p class={span === null ? 'note warn' : 'claim-line'}>
          {span === null
            ? 'No sentence of this section holds most of the claim’s words; read the section to check it.'
            : 'Highlighted: the sentence the claim rests on.'}
        </p>
      )}
      <div class="section-text" data-testid="section-text">
        {span === null ? (
          <Inline text={text} />
        ) : (
          <>
            <Inline text={text.slice(0, span.start)} />
            <mark ref={mark} data-testid="highlight">
              <Inline text={text.slice(span.start, span.end)} />
            </mark>
            <Inline text={text.slice(span.end)} />
          </>
        )}
      </div>
    </article>
  );
}

function Outline(props: {
  docId: string;
  current: string | null;
  token: string;
  onOpen: (t: PanelTarget) => void;
}) {
  const { docId, current, token, onOpen } = props;
  const loaded = useJson<OutlineJson>(`/v1/documents/${encodeURIComponent(docId)}/outline`, token);
  if (loaded.state === 'loading') return <p class="muted">Loading the outline…</p>;
  if (loaded.state === 'failed') return <ErrorNote error={loaded.error} />;
  const o = loaded.value;
  const top = Math.min(...o.sections.map((s) => s.level));
  return (
    <nav aria-label={`Outline of ${o.document.title}`}>
      <p class="crumb">{o.document.title}</p>
      <p class="muted">
        <code>{o.document.source}</code>
      </p>
      <ol class="outline">
        {o.sections.map((s) => (
          <li key={s.id} style={{ paddingInlineStart: `${(s.level - top) * 1}rem` }}>
            <button
              type="button"
              class="link"
              aria-current={s.id === current ? 'true' : undefined}
              onClick={() => onOpen({ kind: 'section', sectionId: s.id })}
            >
              {s.title === '' ? '(untitled)' : s.title}
            </button>
            {s.pages !== null && <span class="muted"> {pagesLabel(s.pages)}</span>}
          </li>
        ))}
      </ol>
    </nav>
  );
}
