/**
 * Ask: a question, the answer streaming in with a button per `[n]`, the five measurement cards,
 * the evidence table, the Dartboard plot of the candidate pool, and the cited section in a side
 * panel; up/down on each section of the answer.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { getJson } from '../api.js';
import { askStream } from '../ask-stream.js';
import { AnswerText } from '../components/answer-text.js';
import { DartboardPlot } from '../components/dartboard-plot.js';
import { ErrorNote } from '../components/error-note.js';
import { EvidenceTable } from '../components/evidence-table.js';
import { MeasurementCards } from '../components/measurement-cards.js';
import { SectionPanel, type PanelTarget } from '../components/section-panel.js';
import { msLabel } from '../format.js';
import { useRatings } from '../use-ratings.js';
import type { EvidenceHitJson } from '../wire.js';
import { afterEvent, IDLE, started, type AskState } from './ask-state.js';
import { rememberAnswer } from '../lab/last-answer.js';

const PHASE_TEXT: Record<AskState['phase'], string> = {
  idle: '',
  retrieving: 'Finding evidence…',
  writing: 'Writing the answer…',
  measuring: 'Measuring the answer…',
  done: 'Answered.',
  failed: 'The answer failed.',
};

export function AskView(props: {
  token: string;
  onBadToken: () => void;
  /** False while another view shows: the answer is kept, the side panel put away. */
  active: boolean;
}) {
  const { token, onBadToken, active } = props;
  const [question, setQuestion] = useState('');
  const [state, setState] = useState<AskState>(IDLE);
  const [panel, setPanel] = useState<PanelTarget | null>(null);
  const running = useRef<AbortController | null>(null);
  const opener = useRef<HTMLElement | null>(null);
  const ratings = useRatings(state.question, token);

  useEffect(() => () => running.current?.abort(), []);

  const ask = async (e: Event): Promise<void> => {
    e.preventDefault();
    const q = question.trim();
    if (q === '') return;
    running.current?.abort();
    const stop = new AbortController();
    running.current = stop;
    setPanel(null);
    setState(started(q));
    // The ranks behind the evidence (retrieval, legs, selection) come from the same retrieval.
    getJson<{ sections: EvidenceHitJson[] }>('/v1/context', token, {
      body: { query: q },
      signal: stop.signal,
    })
      .then((r) => {
        if (!stop.signal.aborted)
          setState((s) => ({ ...s, evidence: new Map(r.sections.map((h) => [h.section_id, h])) }));
      })
      .catch((err: unknown) => {
        if (!stop.signal.aborted)
          setState((s) => ({ ...s, evidenceError: err instanceof Error ? err.message : String(err) }));
      });
    try {
      for await (const ev of askStream(q, token, stop.signal)) {
        setState((s) => afterEvent(s, ev));
        // The lab can open this answer: its sections, claims and citations.
        if (ev.type === 'done') rememberAnswer(ev.answer);
      }
    } catch (err) {
      if (!stop.signal.aborted) setState((s) => ({ ...s, phase: 'failed', error: err }));
    }
  };

  const open = (target: PanelTarget, from: HTMLElement): void => {
    opener.current = from;
    setPanel(target);
  };
  const close = (): void => {
    setPanel(null);
    opener.current?.focus();
  };

  const busy = state.phase === 'retrieving' || state.phase === 'writing' || state.phase === 'measuring';
  const total = state.answer?.timings_ms.totalMs;
  return (
    <div class={`ask ${active && panel !== null ? 'with-panel' : ''}`}>
      <div class="ask-main">
        <form class="ask-form" onSubmit={(e) => void ask(e)} role="search" aria-label="Ask the vault">
          <label for="question">Question</label>
          <div class="row">
            <input
              id="question"
              name="question"
              type="text"
              autoComplete="off"
              placeholder="Ask something your documents answer"
              value={question}
              onInput={(e) => setQuestion(e.currentTarget.value)}
              maxLength={2000}
            />
            <button type="submit" disabled={question.trim() === ''}>
              Ask
            </button>
          </div>
        </form>
        <p class="status" role="status" aria-live="polite">
          {busy && <span class="spinner" aria-hidden="true" />}
          {state.phase === 'done' && total !== undefined ? (
            <span title={`generator ${state.answer?.generator ?? ''}`}>
              Answered in {msLabel(total)} by the {(state.answer?.generator ?? '').split(':')[0]} generator.
            </span>
          ) : (
            PHASE_TEXT[state.phase]
          )}
        </p>
        {state.error !== null && <ErrorNote error={state.error} onBadToken={onBadToken} />}
        {state.phase !== 'idle' && (state.streamed !== '' || state.claims !== null) && (
          <AnswerText state={state} onCite={open} />
        )}
        {state.answer?.grounding !== undefined && (
          <MeasurementCards grounding={state.answer.grounding} sections={state.sections} onCite={open} />
        )}
        {state.sections.length > 0 && <EvidenceTable state={state} ratings={ratings} onOpen={open} />}
        {state.sections.length > 0 && <DartboardPlot question={state.question} token={token} onOpen={open} />}
      </div>
      {active && panel !== null && (
        <SectionPanel target={panel} token={token} onClose={close} onOpen={setPanel} ratings={ratings} />
      )}
    </div>
  );
}
