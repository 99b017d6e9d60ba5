/**
 * The self-contained HTML eval report: one file, inline CSS and inline SVG, no scripts and no
 * external requests (a Content-Security-Policy of `default-src 'none'` enforces it). Sections: run
 * facts, summary table, per-metric bar charts with CI whiskers, latency box plots per stage,
 * comparisons with verdicts, and per-question tables folded in `<details>`.
 */
import { percentile } from './bootstrap.js';
import type { Comparison, EvalResult, QuestionResult } from './eval-result.js';
import { metricNames, questionMetric } from './eval-result.js';
import { barChartSvg, boxPlotSvg, colorAt, escapeHtml, fmt3 } from './report-svg.js';
import type { BoxStats } from './report-svg.js';
import { latencySummary } from './summary.js';

export interface HtmlReportOptions {
  /** Page title. Defaults to "quiver eval — <dataset>". */
  title?: string;
}

const CSS = `
:root{color-scheme:light;--fg:#1d232b;--muted:#5d6875;--line:#d8dee6;--bg:#fff;--soft:#f4f6f9}
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg);margin:0;padding:24px 32px;max-width:1200px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid var(--line);padding-bottom:4px}
.meta{color:var(--muted);margin:0 0 4px}.meta span{margin-right:16px}
table{border-collapse:collapse;margin:8px 0;font-variant-numeric:tabular-nums}
th,td{border:1px solid var(--line);padding:4px 8px;text-align:right;vertical-align:top}
th{background:var(--soft);font-weight:600}td.l,th.l{text-align:left}
.undef{color:var(--muted);font-style:italic}.ci{color:var(--muted);font-size:12px}
.verdict-better{color:#1d7a3e;font-weight:600}.verdict-worse{color:#b3261e;font-weight:600}.verdict-none{color:var(--muted)}
.charts{display:flex;flex-wrap:wrap;gap:12px}.chart{background:var(--soft);border-radius:6px}
.chart-title{font-size:12px;font-weight:600;fill:var(--fg)}.tick{font-size:10px;fill:var(--muted)}.value{font-size:10px;fill:var(--fg)}
.grid{stroke:var(--line);stroke-width:1}.whisker{stroke:#1d232b;stroke-width:1.3}.median{stroke:#1d232b;stroke-width:2}
.undef-bar{fill:none;stroke:#9aa5b1;stroke-dasharray:4 3}
.legend span{display:inline-block;margin-right:14px}.swatch{display:inline-block;width:10px;height:10px;border-radius:2px;margin-right:4px;vertical-align:-1px}
details{margin:8px 0}summary{cursor:pointer;font-weight:600}
.notes li{color:var(--muted)}
@media (max-width:640px){body{padding:16px 12px}table{display:block;max-width:100%;overflow-x:auto}}
`;

/** Render the whole report. Every string from the result is HTML-escaped. */
export function renderHtmlReport(result: EvalResult, options: HtmlReportOptions = {}): string {
  const title = options.title ?? `quiver eval — ${result.meta.dataset}`;
  const metrics = orderedMetrics(result);
  const body = [
    `<h1>${escapeHtml(title)}</h1>`,
    metaHtml(result),
    legendHtml(result),
    '<h2>Summary</h2>',
    summaryTable(result, metrics),
    '<h2>Metrics</h2>',
    '<p class="meta">Mean over questions with a defined value; whiskers: bootstrap 95% interval. Undefined values are not averaged in.</p>',
    `<div class="charts">${metrics.map((m) => metricChart(result, m)).join('')}</div>`,
    '<h2>Latency</h2>',
    latencyHtml(result),
    '<h2>Comparisons</h2>',
    comparisonTable(result.comparisons),
    '<h2>Questions</h2>',
    result.configs.map((cfg) => questionTable(cfg.name, cfg.questions, metrics)).join(''),
  ].join('\n');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${CSS}</style>
</head>
<body>
${body}
</body>
</html>
`;
}

/** Metric names from the summaries and the question rows, in order of first appearance. */
function orderedMetrics(result: EvalResult): string[] {
  const names = new Set<string>();
  for (const cfg of result.configs) {
    for (const m of Object.keys(cfg.summary)) names.add(m);
    for (const m of metricNames(cfg.questions)) names.add(m);
  }
  return [...names];
}

function metaHtml(result: EvalResult): string {
  const { meta } = result;
  const machine =
    typeof meta.machine === 'string'
      ? meta.machine
      : Object.entries(meta.machine)
          .map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`)
          .join(', ');
  const questions = Math.max(0, ...result.configs.map((c) => c.questions.length));
  const facts = [
    `dataset: ${meta.dataset}`,
    `started: ${meta.startedAt}`,
    `duration: ${(meta.durationMs / 1000).toFixed(1)} s`,
    `configs: ${result.configs.length}`,
    `questions: ${questions}`,
  ];
  const notes = (meta.notes ?? []).map((n) => `<li>${escapeHtml(n)}</li>`).join('');
  return [
    `<p class="meta">${facts.map((f) => `<span>${escapeHtml(f)}</span>`).join('')}</p>`,
    `<p class="meta">machine: ${escapeHtml(machine)}</p>`,
    notes === '' ? '' : `<ul class="notes">${notes}</ul>`,
  ].join('');
}

function legendHtml(result: EvalResult): string {
  const items = result.configs.map((cfg, i) => {
    const settings = escapeHtml(JSON.stringify(cfg.settings));
    return `<span title="${settings}"><span class="swatch" style="background:${colorAt(i)}"></span>${escapeHtml(cfg.name)}</span>`;
  });
  return `<p class="legend">${items.join('')}</p>`;
}

function undefinedCell(reason?: string): string {
  const t = reason === undefined ? '' : ` title="${escapeHtml(reason)}"`;
  return `<td class="undef"${t}>Undefined</td>`;
}

function summaryTable(result: EvalResult, metrics: readonly string[]): string {
  const head = result.configs.map((c) => `<th>${escapeHtml(c.name)}</th>`).join('');
  const rows = metrics.map((m) => {
    const cells = result.configs.map((cfg) => {
      const s = cfg.summary[m];
      if (s === undefined) return '<td class="undef">—</td>';
      if (s.mean === null) return undefinedCell(`all ${s.undefined} questions Undefined`);
      const ci = s.ci === null ? '' : `<div class="ci">[${fmt3(s.ci[0])}, ${fmt3(s.ci[1])}]</div>`;
      const counts = `<div class="ci">n=${s.n}${s.undefined > 0 ? `, Undefined ${s.undefined}` : ''}</div>`;
      return `<td>${fmt3(s.mean)}${ci}${counts}</td>`;
    });
    return `<tr><th class="l">${escapeHtml(m)}</th>${cells.join('')}</tr>`;
  });
  return `<table class="summary"><thead><tr><th class="l">metric</th>${head}</tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

function metricChart(result: EvalResult, metric: string): string {
  return barChartSvg(
    metric,
    result.configs.map((cfg, i) => {
      const s = cfg.summary[metric];
      return { label: cfg.name, value: s?.mean ?? null, ci: s?.ci ?? null, color: colorAt(i) };
    }),
  );
}

function boxStats(values: readonly number[]): BoxStats | null {
  if (values.length === 0) return null;
  const s = [...values].sort((a, b) => a - b);
  return {
    min: s[0]!,
    q1: percentile(s, 0.25),
    median: percentile(s, 0.5),
    q3: percentile(s, 0.75),
    max: s[s.length - 1]!,
    n: s.length,
  };
}

function latencyHtml(result: EvalResult): string {
  const stages: string[] = [];
  for (const cfg of result.configs) {
    for (const q of cfg.questions)
      for (const st of Object.keys(q.latency_ms ?? {})) if (!stages.includes(st)) stages.push(st);
  }
  if (stages.length === 0) return '<p class="meta">No latency recorded.</p>';
  const charts = stages.map((stage) =>
    boxPlotSvg(
      `${stage} (ms)`,
      result.configs.map((cfg, i) => ({
        label: cfg.name,
        color: colorAt(i),
        stats: boxStats(
          cfg.questions
            .map((q) => q.latency_ms?.[stage])
            .filter((v): v is number => v !== undefined && Number.isFinite(v)),
        ),
      })),
    ),
  );
  const rows = result.configs.flatMap((cfg) => {
    const sum = latencySummary(cfg.questions);
    return stages.map((stage) => {
      const s = sum[stage];
      const cells =
        s === undefined
          ? '<td class="undef" colspan="4">no data</td>'
          : `<td>${s.n}</td><td>${s.p50.toFixed(1)}</td><td>${s.p95.toFixed(1)}</td><td>${s.mean.toFixed(1)}</td>`;
      return `<tr><td class="l">${escapeHtml(cfg.name)}</td><td class="l">${escapeHtml(stage)}</td>${cells}</tr>`;
    });
  });
  const table = `<table><thead><tr><th class="l">config</th><th class="l">stage</th><th>n</th><th>p50 ms</th><th>p95 ms</th><th>mean ms</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
  return `<div class="charts">${charts.join('')}</div>${table}`;
}

function comparisonTable(comparisons: readonly Comparison[]): string {
  if (comparisons.length === 0) return '<p class="meta">Only one config: nothing to compare.</p>';
  const rows = comparisons.map((c) => {
    const cls =
      c.verdict === 'better' ? 'verdict-better' : c.verdict === 'worse' ? 'verdict-worse' : 'verdict-none';
    const diff = c.meanDiff === null ? 'Undefined' : `${c.meanDiff >= 0 ? '+' : ''}${fmt3(c.meanDiff)}`;
    const ci = c.ci === null ? 'Undefined' : `[${fmt3(c.ci[0])}, ${fmt3(c.ci[1])}]`;
    return (
      `<tr><td class="l">${escapeHtml(c.a)}</td><td class="l">${escapeHtml(c.b)}</td><td class="l">${escapeHtml(c.metric)}</td>` +
      `<td>${diff}</td><td>${ci}</td><td>${fmt3(c.p)}</td><td>${c.n}</td><td class="l ${cls}">${escapeHtml(c.verdict)}</td></tr>`
    );
  });
  return (
    '<p class="meta">Paired bootstrap over questions (a − b); an interval containing 0 is "no difference", not a small win.</p>' +
    `<table class="comparisons"><thead><tr><th class="l">a</th><th class="l">b</th><th class="l">metric</th><th>mean diff</th><th>95% CI</th><th>p</th><th>n</th><th class="l">verdict</th></tr></thead><tbody>${rows.join('')}</tbody></table>`
  );
}

function questionTable(
  name: string,
  questions: readonly QuestionResult[],
  metrics: readonly string[],
): string {
  const stages = [...new Set(questions.flatMap((q) => Object.keys(q.latency_ms ?? {})))];
  const head = [
    '<th class="l">id</th>',
    ...metrics.map((m) => `<th>${escapeHtml(m)}</th>`),
    ...stages.map((s) => `<th>${escapeHtml(s)} ms</th>`),
    '<th>tokens</th>',
  ].join('');
  const rows = questions.map((q) => {
    const cells = metrics.map((m) => {
      const v = questionMetric(q, m);
      if (v === undefined) return '<td class="undef">—</td>';
      if (v.value === null) return undefinedCell(v.undefinedReason);
      return `<td title="${escapeHtml(`${v.num}/${v.den}`)}">${fmt3(v.value)}</td>`;
    });
    const lat = stages.map((s) => {
      const ms = q.latency_ms?.[s];
      return ms === undefined ? '<td class="undef">—</td>' : `<td>${ms.toFixed(1)}</td>`;
    });
    const tokens = q.tokens === undefined ? '—' : `${q.tokens.prompt} + ${q.tokens.completion}`;
    return `<tr><td class="l">${escapeHtml(q.id)}</td>${cells.join('')}${lat.join('')}<td>${escapeHtml(tokens)}</td></tr>`;
  });
  return (
    `<details><summary>${escapeHtml(name)}: ${questions.length} questions</summary>` +
    `<table class="questions"><thead><tr>${head}</tr></thead><tbody>${rows.join('')}</tbody></table></details>`
  );
}
