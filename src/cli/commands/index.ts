import type { Command } from '../command.js';
import { addCommand } from './add.js';
import { backupCommand } from './backup.js';
import { reindexCommand } from './reindex.js';
import { askCommand } from './ask.js';
import { batchesCommand, compactCommand, rmCommand, undoCommand } from './batches.js';
import { evalCommand } from './eval.js';
import { doctorCommand, initCommand } from './init-doctor.js';
import { docsCommand, readCommand } from './read.js';
import {
  learnCommand,
  noiseCommand,
  rankerCommand,
  ratingsCommand,
  rateCommand,
  transcriptsCommand,
} from './quality.js';
import { contextCommand, searchCommand, sectionsCommand } from './search.js';

/** Every command, in the order `quiver --help` lists them. */
export const COMMANDS: readonly Command[] = [
  initCommand,
  addCommand,
  searchCommand,
  sectionsCommand,
  contextCommand,
  askCommand,
  evalCommand,
  readCommand,
  docsCommand,
  batchesCommand,
  undoCommand,
  rmCommand,
  reindexCommand,
  compactCommand,
  backupCommand,
  rateCommand,
  ratingsCommand,
  learnCommand,
  noiseCommand,
  rankerCommand,
  transcriptsCommand,
  doctorCommand,
];
