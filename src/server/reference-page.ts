/**
 * The API reference page (`GET /docs`): the OpenAPI document rendered as one self-contained HTML
 * page (inline CSS, no script, no network), readable on a desktop and on a phone.
 */

/** Text for HTML content and attribute values: `& < > " '` become entities. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

type Json = Record<string, unknown>;
const obj = (v: unknown): Json =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : {};
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** A JSON Schema's type in a few words: `string ≤ 10000`, `integer 1–100`, `"topk" | "mmr"`, `array of string`. */
export function typeLabel(schema: unknown): string {
  const s = obj(schema);
  if (Array.isArray(s.enum)) return s.enum.map((v) => JSON.stringify(v)).join(' | ');
  if (Array.isArray(s.anyOf)) return s.anyOf.map(typeLabel).join(' | ');
  const t = str(s.type) || (typeof s.$ref === 'string' ? s.$ref.split('/').pop()! : 'any');
  if (t === 'array') return `array of ${typeLabel(s.items)}`;
  const lo =
    typeof s.minimum === 'number' && s.minimum > -1e15
      ? s.minimum
      : typeof s.minLength === 'number'
        ? s.minLength
        : null;
  const hi =
    typeof s.maximum === 'number' && s.maximum < 1e15
      ? s.maximum
      : typeof s.maxLength === 'number'
        ? s.maxLength
        : null;
  const range =
    lo !== null && hi !== null ? ` ${lo}–${hi}` : hi !== null ? ` ≤ ${hi}` : lo !== null ? ` ≥ ${lo}` : '';
  return `${t}${range}${str(s.format) === '' ? '' : ` (${str(s.format)})`}`;
}

function fields(schema: unknown, prefix = ''): string[] {
  const s = obj(schema);
  const required = new Set(list(s.required).map(String));
  const rows: string[] = [];
  for (const [name, sub] of Object.entries(obj(s.properties))) {
    const full = `${prefix}${name}`;
    rows.push(
      `<tr><td><code>${escapeHtml(full)}</code>${required.has(name) ? ' <span class="req">required</span>' : ''}</td><td>${escapeHtml(typeLabel(sub))}</td></tr>`,
    );
    if (str(obj(sub).type) === 'object') rows.push(...fields(sub, `${full}.`));
  }
  return rows;
}

function operationHtml(method: string, path: string, op: Json): string {
  const params = list(op.parameters).map(obj);
  const body = obj(obj(op.requestBody).content);
  const [bodyType, bodyContent] = Object.entries(body)[0] ?? [];
  const bodyRows = bodyContent === undefined ? [] : fields(obj(bodyContent).schema);
  const statuses = Object.keys(obj(op.responses));
  return `<section class="op" id="${escapeHtml(str(op.operationId))}">
  <h3><span class="m m-${escapeHtml(method)}">${escapeHtml(method.toUpperCase())}</span> <code class="path">${escapeHtml(path)}</code></h3>
  <p>${escapeHtml(str(op.summary))}</p>
  <p class="role">${escapeHtml(str(op.description))}</p>
  ${
    params.length === 0
      ? ''
      : `<table><caption>Parameters</caption><tr><th>name</th><th>in</th><th>about</th></tr>${params
          .map(
            (p) =>
              `<tr><td><code>${escapeHtml(str(p.name))}</code></td><td>${escapeHtml(str(p.in))}</td><td>${escapeHtml(str(p.description))}</td></tr>`,
          )
          .join('')}</table>`
  }
  ${
    bodyType === undefined
      ? ''
      : `<table><caption>Body (${escapeHtml(bodyType)})</caption><tr><th>field</th><th>type</th></tr>${bodyRows.join('')}</table>`
  }
  <p class="statuses">${statuses.map((s) => `<span class="st st-${escapeHtml(s[0] ?? '')}">${escapeHtml(s)}</span>`).join(' ')}</p>
</section>`;
}

/** The page for an OpenAPI document (as `openApiDocument` builds it). */
export function referencePage(doc: Json): string {
  const info = obj(doc.info);
  const byTag = new Map<string, string[]>();
  for (const [path, item] of Object.entries(obj(doc.paths)))
    for (const [method, raw] of Object.entries(obj(item))) {
      const op = obj(raw);
      const tag = str(list(op.tags)[0]) || 'other';
      (byTag.get(tag) ?? byTag.set(tag, []).get(tag)!).push(operationHtml(method, path, op));
    }
  const tags = [...byTag.keys()];
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(str(info.title))} API ${escapeHtml(str(info.version))}</title>
<style>
:root{--ink:#1d2330;--muted:#5b6475;--line:#e3e6ec;--bg:#f7f8fa;--card:#fff;--accent:#3b5bdb}
*{box-sizing:border-box}body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--ink);background:var(--bg)}
header{background:var(--ink);color:#fff;padding:20px 24px}header h1{margin:0;font-size:22px}header p{margin:6px 0 0;color:#c9cfdb;max-width:70ch}
nav{display:flex;flex-wrap:wrap;gap:8px;padding:12px 24px;background:#fff;border-bottom:1px solid var(--line);position:sticky;top:0}
nav a{color:var(--accent);text-decoration:none;padding:2px 10px;border:1px solid var(--line);border-radius:999px;font-size:14px}
main{max-width:980px;margin:0 auto;padding:8px 16px 48px}h2{margin:28px 0 8px;font-size:18px;text-transform:capitalize}
.op{scroll-margin-top:64px;background:var(--card);border:1px solid var(--line);border-radius:10px;padding:14px 16px;margin:10px 0}
.op h3{margin:0;font-size:15px;display:flex;gap:10px;align-items:center;flex-wrap:wrap}.path{font-size:15px;word-break:break-all}
.op p{margin:6px 0}.role{color:var(--muted);font-size:13px}
.m{font:600 12px/1 ui-monospace,monospace;padding:5px 8px;border-radius:6px;color:#fff}.m-get{background:#2f9e44}.m-post{background:#1971c2}.m-delete{background:#c92a2a}
table{border-collapse:collapse;width:100%;margin:8px 0;font-size:13px}caption{text-align:left;font-weight:600;padding:4px 0;color:var(--muted)}
td,th{border-top:1px solid var(--line);padding:5px 8px;text-align:left;vertical-align:top}th{font-weight:600;color:var(--muted)}
td:first-child{white-space:nowrap}code{font:13px ui-monospace,SFMono-Regular,Menlo,monospace}
.req{font-size:11px;color:#c92a2a}.statuses{display:flex;gap:6px;flex-wrap:wrap}
.st{font:12px ui-monospace,monospace;padding:1px 6px;border-radius:4px;background:#eef1f6}.st-2{background:#d3f9d8}
@media (max-width:600px){header,nav{padding-left:14px;padding-right:14px}main{padding:4px 8px 32px}td:first-child{white-space:normal}}
</style></head><body>
<header><h1>${escapeHtml(str(info.title))} API <small>${escapeHtml(str(info.version))}</small></h1><p>${escapeHtml(str(info.description))} Send <code>Authorization: Bearer &lt;token&gt;</code>; the machine-readable description is <a style="color:#fff" href="openapi.json">openapi.json</a>.</p></header>
<nav>${tags.map((t) => `<a href="#tag-${escapeHtml(t)}">${escapeHtml(t)}</a>`).join('')}</nav>
<main>${tags.map((t) => `<h2 id="tag-${escapeHtml(t)}">${escapeHtml(t)}</h2>${byTag.get(t)!.join('\n')}`).join('\n')}</main>
</body></html>`;
}
