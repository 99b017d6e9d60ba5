/**
 * The Grounding lab (seed 000): the fixture's four authored sources, five context bundles, six
 * answer bundles and four citation rules as controls and presets; the five measurements computed by
 * `measureGrounding` with the fact-id judge as the controls change; the sources and claims tables;
 * Reset and the experiments, whose explanation answers a real change of state clears.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { LabSelection } from '../../../src/evaluate/grounding-lab.js';
import type { Measurement } from '../../../src/evaluate/measurement.js';
import { ErrorNote } from '../components/error-note.js';
import { LabAnswer } from '../components/lab-answer.js';
import { LabCards } from '../components/lab-cards.js';
import { LabControls } from '../components/lab-controls.js';
import { LabExperiments } from '../components/lab-experiment.js';
import { LabClaims, LabSources } from '../components/lab-tables.js';
import { FULLY_SUPPORTED, QUESTION, REFERENCE, type MetricKey } from '../lab/lab-lesson.js';
import { useLastAnswer } from '../lab/last-answer.js';
import { byMetric, measureLab, type LabMeasured } from '../lab/lab-model.js';
import {
  applySelection,
  exploreFreely,
  explain,
  INITIAL_LAB,
  predict,
  resetLab,
  selectionKey,
  setControl,
  startExperiment,
  type LabState,
} from '../lab/lab-state.js';

type Measures = Record<MetricKey, Measurement>;

export function LabView({ token }: { token: string }) {
  const [lab, setLab] = useState<LabState>(INITIAL_LAB);
  const [measured, setMeasured] = useState<LabMeasured | null>(null);
  const [baseline, setBaseline] = useState<Measures | null>(null);
  const [error, setError] = useState<unknown>(null);
  const last = useLastAnswer();
  const [openAnswer, setOpenAnswer] = useState(false);
  // Back from the answer, focus returns to the button that opened it.
  const openButton = useRef<HTMLButtonElement>(null);
  const wasOpen = useRef(false);
  useEffect(() => {
    if (wasOpen.current && !openAnswer) openButton.current?.focus();
    wasOpen.current = openAnswer;
  }, [openAnswer]);
  const key = selectionKey(lab.selection);
  useEffect(() => {
    let live = true;
    measureLab(lab.selection).then(
      (m) => live && setMeasured(m),
      (e: unknown) => live && setError(e),
    );
    return () => {
      live = false;
    };
    // The state's key names the selection: a new object for the same state measures nothing new.
  }, [key]);
  useEffect(() => {
    measureLab(FULLY_SUPPORTED).then(
      (m) => setBaseline(byMetric(m.result)),
      () => undefined,
    );
  }, []);
  const now = measured === null ? null : byMetric(measured.result);
  const apply = (s: LabSelection): void => setLab((l) => applySelection(l, s));
  const answerOpen = openAnswer && last !== null;
  if (answerOpen)
    return (
      <div class="lab">
        <h1>Grounding lab</h1>
        <LabAnswer
          key={last.question + last.answer}
          answer={last}
          token={token}
          onClose={() => setOpenAnswer(false)}
        />
      </div>
    );
  return (
    <div class="lab">
      <h1>Grounding lab</h1>
      <p class="muted lab-intro">
        Separate evidence, citations and coverage. Four authored sources disclose their fact ids; a claim is
        supported when a retrieved source lists its fact id (the fact-id judge). No retriever, language model
        or entailment model runs here, and the museum and its credits are fictional.
      </p>
      <p class="lab-question">
        <strong>Fictional question:</strong> {QUESTION}
        <br />
        <strong>Current reference:</strong> {REFERENCE}
      </p>
      {error !== null && <ErrorNote error={error} />}
      <p class="lab-open">
        {last === null ? (
          <span class="muted small">
            Ask a question on the Ask view, then open its answer here to switch its sources off one by one.
          </span>
        ) : (
          <button type="button" class="quiet" ref={openButton} onClick={() => setOpenAnswer(true)}>
            Open my last answer in the lab
          </button>
        )}
      </p>
      <div class="lab-grid">
        <div class="lab-side">
          <LabControls
            selection={lab.selection}
            onControl={(c, v) => setLab((l) => setControl(l, c, v))}
            onPreset={apply}
            onReset={() => setLab(resetLab)}
          />
          <LabExperiments
            state={lab}
            before={baseline}
            now={measured !== null && selectionKey(measured.selection) === key ? now : null}
            onStart={(id) => setLab((l) => startExperiment(l, id))}
            onFree={() => setLab(exploreFreely)}
            onPredict={(m, on) => setLab((l) => predict(l, m, on))}
            onApply={apply}
            onExplain={(c) => setLab((l) => explain(l, c))}
          />
        </div>
        <div class="lab-main">
          <section class="lab-measures" aria-labelledby="lab-measures-title">
            <h2 id="lab-measures-title">Measurements</h2>
            <p class="small" role="status" data-testid="lab-summary">
              {measured === null ? 'Measuring…' : summary(measured)}
            </p>
            {measured !== null && now !== null && (
              <LabCards state={selectionKey(measured.selection)} measures={now} />
            )}
          </section>
          <section class="lab-sources" aria-labelledby="lab-sources-title">
            <h2 id="lab-sources-title">Sources</h2>
            <LabSources context={lab.selection.context} />
          </section>
          <section class="lab-claims" aria-labelledby="lab-claims-title">
            <h2 id="lab-claims-title">Claims and citations</h2>
            {measured !== null && <LabClaims measured={measured} />}
          </section>
        </div>
      </div>
    </div>
  );
}

/** The seed's one-line count: retrieved, relevant, claims, supported, citations, valid, facts covered. */
function summary(m: LabMeasured): string {
  const r = m.result;
  return [
    `Retrieved ${r.contextRelevance.den}`,
    `Relevant ${r.contextRelevance.num}`,
    `Answer claims ${r.faithfulness.den}`,
    `Supported ${r.faithfulness.num}`,
    `Present citations ${r.citationPrecision.den}`,
    `Valid citations ${r.citationPrecision.num}`,
    `Covered required facts ${r.completeness.num}/${r.completeness.den}`,
  ].join(' · ');
}
