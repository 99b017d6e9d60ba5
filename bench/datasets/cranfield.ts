// Cranfield 1400 → a BEIR-shaped folder under bench/out (derived data, never committed).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Fields of the SMART format: `.I n`, then `.T` title, `.A`, `.B`, `.W` text. */
function parseSmart(raw: string): { id: string; fields: Record<string, string> }[] {
  const text = raw.replace(/\r\n?/g, '\n');
  const out: { id: string; fields: Record<string, string> }[] = [];
  let cur: { id: string; fields: Record<string, string> } | null = null;
  let field = '';
  for (const line of text.split('\n')) {
    const m = /^\.([ITABW])\s*(.*)$/.exec(line);
    if (m !== null) {
      if (m[1] === 'I') {
        cur = { id: (m[2] ?? '').trim(), fields: {} };
        out.push(cur);
        field = '';
      } else field = m[1]!;
      continue;
    }
    if (cur !== null && field !== '') cur.fields[field] = `${cur.fields[field] ?? ''}${line}\n`;
  }
  return out;
}

/**
 * Write corpus.jsonl, queries.jsonl and qrels/test.tsv for Cranfield. Query ids in `cranqrel` are
 * positions (1-based) in `cran.qry`, not its `.I` numbers. Gains: 5 − code (code 1 = complete
 * answer → 4; codes −1 and 5 are not relevant).
 */
export function cranfieldAsBeir(dataDir: string, outDir: string): string | null {
  const src = join(dataDir, 'cranfield');
  if (!existsSync(join(src, 'cran.all.1400'))) return null;
  mkdirSync(join(outDir, 'qrels'), { recursive: true });
  const docs = parseSmart(readFileSync(join(src, 'cran.all.1400'), 'utf8'));
  writeFileSync(
    join(outDir, 'corpus.jsonl'),
    docs
      .map((d) =>
        JSON.stringify({
          _id: d.id,
          title: (d.fields.T ?? '').replace(/\s+/g, ' ').trim(),
          text: (d.fields.W ?? '').replace(/\s+/g, ' ').trim(),
        }),
      )
      .join('\n') + '\n',
  );
  const queries = parseSmart(readFileSync(join(src, 'cran.qry'), 'utf8'));
  writeFileSync(
    join(outDir, 'queries.jsonl'),
    queries
      .map((q, i) =>
        JSON.stringify({ _id: String(i + 1), text: (q.fields.W ?? '').replace(/\s+/g, ' ').trim() }),
      )
      .join('\n') + '\n',
  );
  const rel = readFileSync(join(src, 'cranqrel'), 'utf8')
    .split('\n')
    .map((l) => l.trim().split(/\s+/))
    .filter((p) => p.length === 3)
    .map(([q, d, c]) => ({ q: q!, d: d!, gain: 5 - Number(c) }))
    .filter((r) => r.gain >= 1 && r.gain <= 4);
  writeFileSync(
    join(outDir, 'qrels', 'test.tsv'),
    'query-id\tcorpus-id\tscore\n' + rel.map((r) => `${r.q}\t${r.d}\t${r.gain}`).join('\n') + '\n',
  );
  return outDir;
}
