/** Text with Markdown's `**bold**` shown bold (answers quote Markdown sources); the rest as written. */
export function Inline({ text }: { text: string }) {
  const parts = text.split(/\*\*(?=\S)(.+?)(?<=\S)\*\*/su);
  return <>{parts.map((t, i) => (i % 2 === 1 ? <strong key={i}>{t}</strong> : t))}</>;
}
