/**
 * The API reference page (`GET /docs`): the OpenAPI document rendered as one self-contained HTML
 * page (inline CSS, no script, no network), readable on a desktop and on a phone. Every piece of
 * text from the document is escaped; the only markup made from text is `<code>` for `backticks`.
 */

/** Text for HTML content and attribute values: `& < > " '` become entities. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Escaped text with `inline code` set as <code> (the escaped text has no `<`, so nothing else opens). */
function prose(s: string): string {
  return escapeHtml(s).replace(/`([^`]+)`/g, '<code>$1</code>');
}

/** A value safe as an `id` and a `#fragment`: letters, digits, `-` and `_`; anything else as `_xx`. */
function anchor(s: string): string {
  return s.replace(/[^A-Za-z0-9_-]/g, (c) => `_${c.codePointAt(0)!.toString(16)}`);
}

type Json = Record<string, unknown>;
const obj = (v: unknown): Json =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : {};
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const num = (v: unknown): number | null => (typeof v === 'number' && Math.abs(v) < 1e15 ? v : null);
/** A number as read: a real minus sign, thousands grouped from 10,000 on. */
const show = (n: number): string =>
  (Math.abs(n) >= 10_000 ? n.toLocaleString('en-US') : String(n)).replace(/^-/, '−');

function between(lo: number | null, hi: number | null, unit = ''): string {
  if (lo !== null && hi !== null) return `${show(lo)}${lo < 0 ? ' to ' : '–'}${show(hi)}${unit}`;
  if (hi !== null) return `≤ ${show(hi)}${unit}`;
  if (lo !== null) return `≥ ${show(lo)}${unit}`;
  return '';
}

/**
 * A JSON Schema's type in a few words: `string, 1–200 chars`, `integer 1–100`, `number > 0, ≤ 10`,
 * `"topk" | "mmr"`, `array of string, ≤ 1000 items`.
 */
export function typeLabel(schema: unknown): string {
  const s = obj(schema);
  if (Array.isArray(s.enum)) return s.enum.map((v) => JSON.stringify(v)).join(' | ');
  if (Array.isArray(s.anyOf)) return s.anyOf.map(typeLabel).join(' | ');
  const t = str(s.type) || (typeof s.$ref === 'string' ? s.$ref.split('/').pop()! : 'any');
  const format = str(s.format) === '' ? '' : ` (${str(s.format)})`;
  switch (t) {
    case 'array': {
      const items = between(num(s.minItems), num(s.maxItems), ' items');
      return `array of ${typeLabel(s.items)}${items === '' ? '' : `; ${items}`}`;
    }
    case 'string': {
      if (str(s.format) === 'binary') return 'file (binary)';
      const min = num(s.minLength);
      const chars = between(min === 0 ? null : min, num(s.maxLength), ' chars');
      return `string${format}${chars === '' ? '' : `, ${chars}`}`;
    }
    case 'number':
    case 'integer': {
      const gt = num(s.exclusiveMinimum);
      const range =
        gt !== null
          ? `> ${show(gt)}${num(s.maximum) === null ? '' : `, ≤ ${show(num(s.maximum)!)}`}`
          : between(num(s.minimum), num(s.maximum));
      return `${t}${format}${range === '' ? '' : ` ${range}`}`;
    }
    default:
      return `${t}${format}`;
  }
}

/** The rows of a body's fields, nested objects (and arrays of objects) flattened as `a.b`, `a[].b`. */
function fields(schema: unknown, prefix = ''): string[] {
  const s = obj(schema);
  const required = new Set(list(s.required).map(String));
  const rows: string[] = [];
  for (const [name, raw] of Object.entries(obj(s.properties))) {
    const sub = obj(raw);
    const full = `${prefix}${name}`;
    const about = str(sub.description);
    rows.push(
      `<tr><td class="name"><code>${escapeHtml(full)}</code>${required.has(name) ? ' <span class="req">required</span>' : ''}</td>` +
        `<td class="type">${escapeHtml(typeLabel(sub))}${about === '' ? '' : `<div class="about">${prose(about)}</div>`}</td></tr>`,
    );
    if (str(sub.type) === 'object') rows.push(...fields(sub, `${full}.`));
    const items = obj(sub.items);
    if (str(sub.type) === 'array' && str(items.type) === 'object') rows.push(...fields(items, `${full}[].`));
  }
  return rows;
}

const METHODS = new Set(['get', 'post', 'delete', 'put', 'patch']);

/** Who may call an operation: its `x-quiver-role`, or `public` when it needs no token. */
function roleOf(op: Json): string {
  if (Array.isArray(op.security) && op.security.length === 0) return 'public';
  return str(op['x-quiver-role']) || 'token';
}

function table(caption: string, head: string[], rows: string[]): string {
  if (rows.length === 0) return '';
  return `<div class="block"><h4>${caption}</h4><table><thead><tr>${head.map((h) => `<th>${h}</th>`).join('')}</tr></thead><tbody>${rows.join('')}</tbody></table></div>`;
}

function operationHtml(method: string, path: string, op: Json): string {
  const m = METHODS.has(method) ? method : 'other';
  const role = roleOf(op);
  const params = list(op.parameters)
    .map(obj)
    .map(
      (p) =>
        `<tr><td class="name"><code>${escapeHtml(str(p.name))}</code> <span class="in">${escapeHtml(str(p.in))}</span>${p.required === true ? ' <span class="req">required</span>' : ''}</td>` +
        `<td class="type">${escapeHtml(typeLabel(p.schema))}</td><td>${prose(str(p.description))}</td></tr>`,
    );
  const bodies = Object.entries(obj(obj(op.requestBody).content)).map(([type, content]) => {
    const rows = fields(obj(content).schema);
    return table(
      `Body <span class="ct">${escapeHtml(type)}</span>`,
      ['field', 'type'],
      rows.length > 0 ? rows : ['<tr><td colspan="2">any</td></tr>'],
    );
  });
  const responses = Object.entries(obj(op.responses));
  const ok = responses.filter(([s]) => s.startsWith('2'));
  const failures = responses.filter(([s]) => !s.startsWith('2')).map(([s]) => s);
  const okHtml = ok
    .map(
      ([s, r]) =>
        `<span class="ok">${escapeHtml(s)}</span> ${escapeHtml(str(obj(r).description))}` +
        Object.keys(obj(obj(r).content))
          .map((t) => ` <span class="ct">${escapeHtml(t)}</span>`)
          .join(''),
    )
    .join('<br>');
  const pathHtml = escapeHtml(path).replace(/\{([^}]*)\}/g, '<span class="param">{$1}</span>');
  return `<article class="op" id="${anchor(str(op.operationId) || `${method}-${path}`)}">
<div class="op-head"><span class="m m-${m}">${escapeHtml(method.toUpperCase())}</span><code class="path">${pathHtml}</code><span class="role role-${anchor(role)}">${escapeHtml(role)}</span></div>
<p class="summary">${prose(str(op.summary))}</p>
${str(op.description) === '' ? '' : `<p class="needs">${prose(str(op.description))}</p>`}
${table('Parameters', ['name', 'type', 'about'], params)}
${bodies.join('\n')}
<div class="resp"><div>${okHtml}</div>${failures.length === 0 ? '' : `<div class="errs">errors ${failures.map((s) => `<span>${escapeHtml(s)}</span>`).join(' ')}</div>`}</div>
</article>`;
}

const CSS = `
:root{--ink:#1b2130;--muted:#5d6678;--line:#e4e7ee;--bg:#f5f6f9;--card:#fff;--accent:#3451c7;--code-bg:#f0f2f7;
--get:#237a3b;--post:#1f5fbf;--delete:#b3261e;--other:#6b6b6b;--read:#0b7285;--write:#a15c00;--admin:#6741d9;--public:#5d6678}
@media (prefers-color-scheme:dark){:root{--ink:#e6e9f0;--muted:#9aa3b5;--line:#2c3342;--bg:#12161f;--card:#1a1f2b;--accent:#8ea6ff;--code-bg:#242b3a;
--get:#3fb163;--post:#4d8fe8;--delete:#e5534b;--read:#3bc9db;--write:#f0a64a;--admin:#a58bff;--public:#9aa3b5}}
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%;scroll-behavior:smooth}
body{margin:0;font:16px/1.55 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--ink);background:var(--bg)}
a{color:var(--accent)}
code{font:0.88em/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
p code,li code,td .about code{background:var(--code-bg);padding:1px 5px;border-radius:4px}
.top{background:#161b27;color:#f3f5fa;padding:28px 0 24px}
.top .wrap,.layout{max-width:1200px;margin:0 auto;padding:0 24px}
.top h1{margin:0;font-size:26px;letter-spacing:-0.01em}
.top .ver{font-size:14px;font-weight:500;color:#aab3c5;border:1px solid #3a4356;border-radius:999px;padding:2px 10px;margin-left:8px;vertical-align:middle}
.top p{margin:10px 0 0;color:#c9d0dd;max-width:75ch}
.top a{color:#fff}
.top code{background:#262e3f;color:#f3f5fa}
.layout{display:grid;grid-template-columns:250px minmax(0,1fr);gap:32px;align-items:start}
.side{position:sticky;top:0;max-height:100vh;overflow:auto;padding:20px 0 32px;font-size:14px}
.side h3{margin:16px 0 4px;font-size:12px;text-transform:uppercase;letter-spacing:.06em;color:var(--muted)}
.side ul{list-style:none;margin:0;padding:0}
.side li a{display:flex;gap:8px;align-items:baseline;padding:3px 6px;border-radius:6px;text-decoration:none;color:var(--ink)}
.side li a:hover{background:var(--code-bg)}
.side .m{font-size:10px;min-width:54px;text-align:center;flex:none}
.side code{font-size:12.5px;word-break:break-all;background:none;padding:0}
.chips{display:none}
main{padding:8px 0 64px;min-width:0}
.intro{background:var(--card);border:1px solid var(--line);border-radius:12px;padding:18px 20px;margin:20px 0 8px}
.intro h2{margin:0 0 6px;font-size:18px}
.intro p{margin:8px 0}
.statuses{display:grid;grid-template-columns:max-content 1fr;gap:4px 14px;margin:10px 0 0;font-size:14px}
.statuses dt{font:600 13px/1.55 ui-monospace,monospace;color:var(--muted)}
.statuses dd{margin:0}
.tag{scroll-margin-top:12px}
.tag > h2{margin:36px 0 2px;font-size:22px;text-transform:capitalize}
.tag > p{margin:0 0 12px;color:var(--muted)}
.op{scroll-margin-top:12px;background:var(--card);border:1px solid var(--line);border-radius:12px;padding:16px 20px;margin:12px 0}
.op:target{border-color:var(--accent);box-shadow:0 0 0 3px color-mix(in srgb,var(--accent) 25%,transparent)}
.op-head{display:flex;gap:10px;align-items:center;flex-wrap:wrap}
.path{font-size:16px;font-weight:600;word-break:break-all}
.path .param{color:var(--accent)}
.m{font:700 12px/1 ui-monospace,monospace;padding:5px 8px;border-radius:6px;color:#fff;letter-spacing:.03em}
.m-get{background:var(--get)}.m-post{background:var(--post)}.m-delete{background:var(--delete)}.m-other,.m-put,.m-patch{background:var(--other)}
.role{margin-left:auto;font:600 12px/1 system-ui,sans-serif;padding:4px 10px;border-radius:999px;border:1px solid currentColor;color:var(--public)}
.role-read{color:var(--read)}.role-write{color:var(--write)}.role-admin{color:var(--admin)}
.summary{margin:10px 0 2px}
.needs{margin:0;color:var(--muted);font-size:14px}
.block{margin-top:14px}
h4{margin:0 0 4px;font-size:13px;text-transform:uppercase;letter-spacing:.05em;color:var(--muted)}
h4 .ct{text-transform:none;letter-spacing:0}
.ct{white-space:nowrap;font:12px ui-monospace,monospace;color:var(--muted);background:var(--code-bg);padding:1px 6px;border-radius:4px}
table{border-collapse:collapse;width:100%;font-size:14px}
th{font-weight:600;color:var(--muted);font-size:12.5px;text-align:left;padding:4px 10px 4px 0;border-bottom:1px solid var(--line)}
td{padding:6px 10px 6px 0;border-bottom:1px solid var(--line);vertical-align:top}
tr:last-child td{border-bottom:0}
td.name{width:38%;white-space:nowrap}
td.name code{font-weight:600}
td.type{color:var(--ink)}
.about{color:var(--muted);font-size:13px}
.in{font:11px ui-monospace,monospace;color:var(--muted);border:1px solid var(--line);border-radius:4px;padding:0 4px;margin-left:4px}
.req{font-size:11px;font-weight:600;color:var(--delete);margin-left:4px}
.resp{display:flex;justify-content:space-between;gap:8px 16px;flex-wrap:wrap;margin-top:14px;padding-top:10px;border-top:1px dashed var(--line);font-size:14px}
.ok{font:700 13px ui-monospace,monospace;color:var(--get)}
.errs{color:var(--muted);font:12px ui-monospace,monospace}
.errs span{padding:1px 5px;border-radius:4px;background:var(--code-bg)}
@media (max-width:860px){
.layout{display:block;padding:0}
.side{display:none}
.chips{display:flex;gap:8px;overflow-x:auto;position:sticky;top:0;z-index:1;padding:10px 14px;background:var(--card);border-bottom:1px solid var(--line);scrollbar-width:none}
.chips a{flex:none;text-decoration:none;font-size:14px;padding:4px 12px;border:1px solid var(--line);border-radius:999px;text-transform:capitalize}
main{padding:0 12px 48px}
.top{padding:20px 0 18px}.top .wrap{padding:0 16px}.top h1{font-size:22px}
.tag,.op{scroll-margin-top:60px}
.op{padding:14px 14px}
.path{font-size:15px}
table,tbody,tr,td{display:block;width:auto}
thead{display:none}
tr{padding:8px 0;border-bottom:1px solid var(--line)}
tr:last-child{border-bottom:0}
td,td.name{border:0;padding:0;white-space:normal;overflow-wrap:anywhere;width:auto}
td.type{color:var(--muted);font-size:13.5px}
}
`;

/** The page for an OpenAPI document (as `openApiDocument` builds it). */
export function referencePage(doc: Json): string {
  const info = obj(doc.info);
  const about = new Map(list(doc.tags).map((t) => [str(obj(t).name), str(obj(t).description)] as const));
  const byTag = new Map<string, { method: string; path: string; op: Json }[]>();
  const statuses = new Map<string, string>();
  for (const [path, item] of Object.entries(obj(doc.paths)))
    for (const [method, raw] of Object.entries(obj(item))) {
      const op = obj(raw);
      const tag = str(list(op.tags)[0]) || 'other';
      (byTag.get(tag) ?? byTag.set(tag, []).get(tag)!).push({ method, path, op });
      for (const [s, r] of Object.entries(obj(op.responses)))
        if (!s.startsWith('2') && !statuses.has(s)) statuses.set(s, str(obj(r).description));
    }
  const tags = [...byTag.keys()];
  const title = `${str(info.title)} API ${str(info.version)}`.trim();
  const paragraphs = str(info.description)
    .split(/\n\s*\n/)
    .filter((p) => p.trim() !== '');
  const side = tags
    .map(
      (t) =>
        `<h3>${escapeHtml(t)}</h3><ul>${byTag
          .get(t)!
          .map(
            ({ method, path, op }) =>
              `<li><a href="#${anchor(str(op.operationId) || `${method}-${path}`)}"><span class="m m-${METHODS.has(method) ? method : 'other'}">${escapeHtml(method.toUpperCase())}</span><code>${escapeHtml(path)}</code></a></li>`,
          )
          .join('')}</ul>`,
    )
    .join('');
  const errorList = [...statuses]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([s, d]) => `<dt>${escapeHtml(s)}</dt><dd>${prose(d)}</dd>`)
    .join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>${escapeHtml(title)}</title>
<style>${CSS}</style></head><body>
<header class="top"><div class="wrap"><h1>${escapeHtml(str(info.title))} API<span class="ver">${escapeHtml(str(info.version))}</span></h1>
<p>${prose(paragraphs[0] ?? '')}</p>
<p>OpenAPI ${escapeHtml(str(doc.openapi))} · machine-readable at <a href="openapi.json">openapi.json</a></p></div></header>
<nav class="chips" aria-label="Sections">${tags.map((t) => `<a href="#tag-${anchor(t)}">${escapeHtml(t)}</a>`).join('')}</nav>
<div class="layout">
<nav class="side" aria-label="Endpoints">${side}</nav>
<main>
<section class="intro"><h2>Using the API</h2>${paragraphs
    .slice(1)
    .map((p) => `<p>${prose(p)}</p>`)
    .join('')}${errorList === '' ? '' : `<dl class="statuses">${errorList}</dl>`}</section>
${tags
  .map(
    (t) =>
      `<section class="tag" id="tag-${anchor(t)}"><h2>${escapeHtml(t)}</h2>${about.get(t) ? `<p>${prose(about.get(t)!)}</p>` : ''}
${byTag
  .get(t)!
  .map(({ method, path, op }) => operationHtml(method, path, op))
  .join('\n')}</section>`,
  )
  .join('\n')}
</main></div>
</body></html>`;
}
