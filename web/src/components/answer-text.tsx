/** The answer: streamed text while it is written, then the claims' text with a button per `[n]`. */
import { answerParts, claimFor } from '../answer-parts.js';
import type { AskState } from '../views/ask-state.js';
import { CiteButton } from './cite-button.js';
import { Inline } from './inline.js';
import type { PanelTarget } from './section-panel.js';

export function AnswerText({
  state,
  onCite,
}: {
  state: AskState;
  onCite: (target: PanelTarget, from: HTMLElement) => void;
}) {
  const text = state.claims?.answer ?? state.streamed;
  const claims = state.claims?.claims ?? [];
  const invalid = state.claims?.invalid_citations ?? [];
  const abstained = state.claims?.abstained ?? null;
  const paragraphs = text.split(/\n{2,}/);
  return (
    <section class="card answer" aria-labelledby="answer-title" aria-busy={state.claims === null}>
      <h2 id="answer-title">Answer</h2>
      <div class="answer-text" data-testid="answer">
        {paragraphs.map((para, i) => (
          <p key={i}>
            {answerParts(para).map((p, j) =>
              p.kind === 'text' ? (
                <Inline key={j} text={p.text} />
              ) : (
                <span key={j} class="cites">
                  {p.numbers.map((n) => (
                    <CiteButton
                      key={n}
                      n={n}
                      claim={claimFor(p.claim, n, claims)}
                      sections={state.sections}
                      invalid={invalid}
                      onCite={onCite}
                    />
                  ))}
                </span>
              ),
            )}
          </p>
        ))}
      </div>
      {abstained !== null && (
        <p class="note">
          The answer abstains: the evidence covers {Math.round(abstained.coverage * 100)}% of the question,
          below {Math.round(abstained.threshold * 100)}%.
          {abstained.missing.length > 0 && ` Not found in the sources: ${abstained.missing.join(', ')}.`}
        </p>
      )}
      {invalid.length > 0 && (
        <p class="note warn">
          Invalid citations: {invalid.map((n) => `[${n}]`).join(' ')}. The context has {state.sections.length}{' '}
          sections; these numbers name none of them.
        </p>
      )}
    </section>
  );
}
