// `npm run bench [-- name …]`: run the benchmarks and assemble bench/RESULTS.md from their sections.
// Every number in RESULTS.md is printed by a benchmark in this folder; none is typed by hand.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { machine, readSection } from './lib.js';

/** `optIn` benches run only when named (`npm run bench -- scale`). */
const BENCHES: { name: string; optIn?: boolean; run: () => Promise<unknown> }[] = [
  {
    name: 'retrieval-quality',
    run: async () => (await import('./retrieval-quality.js')).benchRetrievalQuality(),
  },
  { name: 'peers', run: async () => (await import('./peers.js')).benchPeers() },
  {
    name: 'search-defaults',
    run: async () => (await import('./search-defaults.js')).benchSearchDefaults(),
  },
  { name: 'lexical-design', run: async () => (await import('./lexical-design.js')).benchLexicalDesign() },
  { name: 'ingest-latency', run: async () => (await import('./ingest-latency.js')).benchIngestLatency() },
  {
    name: 'html-extraction',
    run: async () => (await import('./html-extraction.js')).benchHtmlExtraction(),
  },
  { name: 'embedders', run: async () => (await import('./embedders.js')).benchEmbedders() },
  {
    name: 'embedder-candidates',
    run: async () => (await import('./embedder-candidates.js')).benchEmbedderCandidates(),
  },
  { name: 'selection', run: async () => (await import('./selection.js')).benchSelection() },
  { name: 'answers', run: async () => (await import('./answers.js')).benchAnswers() },
  { name: 'conflicts', run: async () => (await import('./conflicts.js')).benchConflicts() },
  { name: 'abstention', run: async () => (await import('./abstention.js')).benchAbstention() },
  { name: 'eval', run: async () => (await import('./eval.js')).benchEval() },
  { name: 'noise', run: async () => (await import('./noise.js')).benchNoise() },
  { name: 'ranker-ladder', run: async () => (await import('./ranker-ladder.js')).benchRankerLadder() },
  { name: 'ann', run: async () => (await import('./ann.js')).benchAnn() },
  { name: 'vault-size', run: async () => (await import('./vault-size.js')).benchVaultSize() },
  { name: 'scale', optIn: true, run: async () => (await import('./scale.js')).benchScale() },
  { name: 'cli-start', optIn: true, run: async () => (await import('./cli-start.js')).benchCliStart() },
  { name: 'faults', optIn: true, run: async () => (await import('./faults.js')).benchFaults() },
  { name: 'serve', optIn: true, run: async () => (await import('./serve.js')).benchServe() },
  {
    name: 'serve-cluster',
    optIn: true,
    run: async () => (await import('./serve-cluster.js')).benchServeCluster(),
  },
  { name: 'mcp', optIn: true, run: async () => (await import('./mcp.js')).benchMcp() },
  { name: 'web', optIn: true, run: async () => (await import('./web.js')).benchWeb() },
  { name: 'postgres', optIn: true, run: async () => (await import('./postgres.js')).benchPostgres() },
];

/** Sections in the order they appear in RESULTS.md (some are written by other bench scripts). */
const ORDER = [
  'retrieval-quality',
  'peers',
  'search-defaults',
  'lexical-design',
  'ingest-latency',
  'html-extraction',
  'embedders',
  'embedder-candidates',
  'ann',
  'vault-size',
  'scale',
  'postgres',
  'selection',
  'answers',
  'conflicts',
  'abstention',
  'eval',
  'noise',
  'ranker-ladder',
  'cli-start',
  'faults',
  'serve',
  'serve-cluster',
  'mcp',
  'web',
];

/**
 * The heading each section starts with, so a section not re-run on this machine (bench/out is not
 * committed) is kept from the current RESULTS.md instead of dropped.
 */
const HEADINGS: Record<string, string> = {
  'retrieval-quality': '## Retrieval quality',
  peers: '## Peers',
  'search-defaults': '## Selection per command',
  'lexical-design': '## Lexical leg design',
  'ingest-latency': '## Ingest throughput',
  'html-extraction': '## HTML extraction',
  embedders: '## Built-in embedder variants',
  'embedder-candidates': '## Built-in embedder candidates',
  ann: '## ANN (HNSW)',
  'vault-size': '## Vault size',
  scale: '## A 1M-chunk vault',
  postgres: '## PostgreSQL and SQLite',
  selection: '## Selection',
  answers: '## Answers',
  conflicts: '## Conflicting sources',
  abstention: '## Abstaining',
  eval: '## Evaluation',
  noise: '## Noise score',
  'ranker-ladder': '## Ranker ladder',
  'cli-start': '## CLI cold start',
  faults: '## Faults',
  serve: '## HTTP server load',
  'serve-cluster': '## Several servers on one PostgreSQL',
  mcp: '## MCP tool calls',
  web: '## Web page',
};

/** The current RESULTS.md cut into sections by {@link HEADINGS} (a `##` not in it stays with the one before). */
function previousSections(): Map<string, string> {
  const out = new Map<string, string[]>();
  if (!existsSync('bench/RESULTS.md')) return new Map();
  const blocks = readFileSync('bench/RESULTS.md', 'utf8')
    .split(/\n(?=## )/)
    .slice(1);
  let current: string | null = null;
  for (const b of blocks) {
    const name = Object.keys(HEADINGS).find((n) => b.startsWith(HEADINGS[n]!));
    if (name !== undefined) current = name;
    if (current !== null) out.set(current, [...(out.get(current) ?? []), b.trimEnd()]);
  }
  return new Map([...out].map(([n, bs]) => [n, `${bs.join('\n\n')}\n`]));
}

const wanted = process.argv.slice(2).filter((a) => !a.startsWith('-'));
for (const b of BENCHES) {
  if (wanted.length > 0 ? !wanted.includes(b.name) : b.optIn === true) continue;
  const t = performance.now();
  process.stderr.write(`bench: ${b.name}…\n`);
  try {
    await b.run();
  } catch (e) {
    process.stderr.write(`bench ${b.name} failed: ${(e as Error).stack ?? String(e)}\n`);
    process.exitCode = 1;
  }
  process.stderr.write(`bench: ${b.name} took ${((performance.now() - t) / 1000).toFixed(1)} s\n`);
}

const previous = previousSections();
const parts = ORDER.map((n) => readSection(n) ?? previous.get(n) ?? null).filter(
  (s): s is string => s !== null,
);
writeFileSync(
  'bench/RESULTS.md',
  `# quiver benchmark results\n\nProduced by \`npm run bench\` (sections can be re-run alone: \`npm run bench -- retrieval-quality\`; other sections come from the scripts named in them). Machine: ${machine()}. Assembled ${new Date().toISOString().slice(0, 10)}.\n\n${parts.join('\n')}`,
);
process.stderr.write('bench: wrote bench/RESULTS.md\n');
