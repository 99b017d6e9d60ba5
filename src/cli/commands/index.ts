import type { Command } from '../command.js';

/** A command as `quiver --help` lists it; its module is loaded only when it runs (a fast start). */
export interface CommandEntry {
  name: string;
  summary: string;
  load: () => Promise<Command>;
}

/** Every command, in the order `quiver --help` lists them. */
export const COMMANDS: readonly CommandEntry[] = [
  {
    name: 'init',
    summary: 'create an empty vault (or check an existing one)',
    load: async () => (await import('./init-doctor.js')).initCommand,
  },
  {
    name: 'add',
    summary: 'ingest files, folders, text or stdin (-) as one batch',
    load: async () => (await import('./add.js')).addCommand,
  },
  {
    name: 'search',
    summary: 'search the vault (chunk hits merged per section); --queries FILE.jsonl for many',
    load: async () => (await import('./search.js')).searchCommand,
  },
  {
    name: 'sections',
    summary: 'the best sections for a query, with their text',
    load: async () => (await import('./search.js')).sectionsCommand,
  },
  {
    name: 'context',
    summary: 'numbered sections for a prompt (after selection, repeats skipped)',
    load: async () => (await import('./search.js')).contextCommand,
  },
  {
    name: 'ask',
    summary: 'answer a question from the vault, citing the sections it rests on',
    load: async () => (await import('./ask.js')).askCommand,
  },
  {
    name: 'eval',
    summary: 'evaluate retrieval and answers on a question set (JSONL) or a BEIR folder; compare configs',
    load: async () => (await import('./eval.js')).evalCommand,
  },
  {
    name: 'read',
    summary: 'print a section (with its subsections) or, given a document id, its outline',
    load: async () => (await import('./read.js')).readCommand,
  },
  {
    name: 'docs',
    summary: 'list the documents in the vault',
    load: async () => (await import('./read.js')).docsCommand,
  },
  {
    name: 'batches',
    summary: 'list ingest batches, newest first',
    load: async () => (await import('./batches.js')).batchesCommand,
  },
  {
    name: 'undo',
    summary: 'roll back the last batch exactly (an update restores the previous version)',
    load: async () => (await import('./batches.js')).undoCommand,
  },
  {
    name: 'rm',
    summary: 'take documents out of the vault as one batch (undo brings them back)',
    load: async () => (await import('./batches.js')).rmCommand,
  },
  {
    name: 'reindex',
    summary: 're-embed every chunk with the configured embedder (resumable); --refit refits the built-in IDF',
    load: async () => (await import('./reindex.js')).reindexCommand,
  },
  {
    name: 'compact',
    summary: "give free space back, drop other embedders' vectors and orphaned index files",
    load: async () => (await import('./batches.js')).compactCommand,
  },
  {
    name: 'serve',
    summary: 'serve the vault over HTTP on 127.0.0.1 (bearer tokens; prints an admin token on first start)',
    load: async () => (await import('./serve.js')).serveCommand,
  },
  {
    name: 'mcp',
    summary:
      'serve the vault to an agent over MCP on stdio (tools, resources, prompts; quiver serve has it at /mcp)',
    load: async () => (await import('./mcp.js')).mcpCommand,
  },
  {
    name: 'queue',
    summary: 'background jobs: list, drain (run what is due), work, retry a dead job, purge-dead',
    load: async () => (await import('./queue.js')).queueCommand,
  },
  {
    name: 'token',
    summary: 'create, list or revoke the bearer tokens quiver serve accepts',
    load: async () => (await import('./token.js')).tokenCommand,
  },
  {
    name: 'backup',
    summary: 'write a consistent copy of the vault to FILE while it stays in use',
    load: async () => (await import('./backup.js')).backupCommand,
  },
  {
    name: 'export',
    summary:
      'write the whole vault (every document version, vectors, batches, feedback, marks) as JSONL; .gz gzips',
    load: async () => (await import('./transfer.js')).exportCommand,
  },
  {
    name: 'import',
    summary: 'fill an empty vault from an export (any backend); a malformed file changes nothing',
    load: async () => (await import('./transfer.js')).importCommand,
  },
  {
    name: 'rate',
    summary: 'record feedback on a section (up, down, good, bad, read, cited, shown)',
    load: async () => (await import('./quality.js')).rateCommand,
  },
  {
    name: 'ratings',
    summary: 'the feedback log, newest first',
    load: async () => (await import('./quality.js')).ratingsCommand,
  },
  {
    name: 'learn',
    summary: 'log every answer as feedback for the ranker (on/off; off by default)',
    load: async () => (await import('./quality.js')).learnCommand,
  },
  {
    name: 'noise',
    summary: 'noise scores, suggestions and marks (suggest, mark, keep, accept, fit, use, marks)',
    load: async () => (await import('./quality.js')).noiseCommand,
  },
  {
    name: 'ranker',
    summary: 'the learned ranker (fit, use, show); off by default',
    load: async () => (await import('./quality.js')).rankerCommand,
  },
  {
    name: 'transcripts',
    summary: 'past answers: list them, or show one in full',
    load: async () => (await import('./quality.js')).transcriptsCommand,
  },
  {
    name: 'doctor',
    summary: 'show the effective config (and where each value came from), the store and the embedder',
    load: async () => (await import('./init-doctor.js')).doctorCommand,
  },
  {
    name: 'completion',
    summary: 'print a shell completion script (bash or zsh)',
    load: async () => (await import('./completion.js')).completionCommand,
  },
];
