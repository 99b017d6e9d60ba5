/** One `[n]`: opens the cited section in the side panel, or says the citation is invalid. */
import type { ContextSectionJson } from '../wire.js';
import type { PanelTarget } from './section-panel.js';

export function CiteButton(props: {
  n: number;
  claim: string;
  sections: readonly ContextSectionJson[];
  invalid: readonly number[];
  onCite: (target: PanelTarget, from: HTMLElement) => void;
}) {
  const { n, claim, sections, invalid, onCite } = props;
  const section = sections.find((s) => s.n === n);
  if (section === undefined || invalid.includes(n))
    return (
      <button
        type="button"
        class="cite invalid"
        aria-label={`Citation ${n} is invalid: the context has ${sections.length} sections`}
        title="Invalid citation: no such context section"
        onClick={(e) => onCite({ kind: 'invalid', n, count: sections.length }, e.currentTarget)}
      >
        [{n}]
      </button>
    );
  return (
    <button
      type="button"
      class="cite"
      aria-label={`Source ${n}: ${section.breadcrumb}`}
      onClick={(e) => onCite({ kind: 'cite', n, claim, section }, e.currentTarget)}
    >
      [{n}]
    </button>
  );
}
