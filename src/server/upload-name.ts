import { QuiverError } from '../errors.js';

/**
 * The file name an upload arrives with is a request value, so it never reaches the file system
 * unchecked (operations.md, "Server security"). `safeUploadName` accepts only a bare base name that
 * is the same file on Linux, macOS and Windows, and rejects everything else with BAD_INPUT.
 */

/** Longest accepted name in UTF-8 bytes: the usual file-system limit (ext4, APFS, NTFS's 255 UTF-16 units are more). */
export const MAX_UPLOAD_NAME_BYTES = 255;

/** C0 controls, DEL and C1 controls. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
/** Bidirectional embedding, override and isolate controls: `a\u202Efdp.exe` shows as `aexe.pdf`. */
const BIDI = /[\u202a-\u202e\u2066-\u2069]/;
/** Characters Windows does not allow in a name, besides `/`, `\` and `:` (checked on their own). */
const WINDOWS_RESERVED = /[<>"|?*]/;
/** Windows device names; Windows also treats `CON.txt` and `con .tar.gz` as the device. */
const DEVICE =
  /^(?:CON|PRN|AUX|NUL|CONIN\$|CONOUT\$|COM[0-9\u00b9\u00b2\u00b3]|LPT[0-9\u00b9\u00b2\u00b3])$/i;

/** The name as it appears in a message: JSON-quoted (controls and lone surrogates escaped), cut at 60 characters. */
function shown(name: string): string {
  return JSON.stringify(name.length > 60 ? `${name.slice(0, 60)}…` : name);
}

function reject(reason: string, name: string): never {
  throw new QuiverError('BAD_INPUT', `quiver: an upload's file name ${reason}, got ${shown(name)}`, {
    details: { field: 'name', name },
  });
}

/** Index of the first lone surrogate (a UTF-16 half with no partner) in `s`, or -1. */
function loneSurrogate(s: string): number {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const next = s.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
      else return i;
    } else if (c >= 0xdc00 && c <= 0xdfff) return i;
  }
  return -1;
}

const hex = (c: number): string => `U+${c.toString(16).toUpperCase().padStart(4, '0')}`;

/**
 * A safe base file name for an uploaded file: `name` in Unicode NFC, or a BAD_INPUT QuiverError
 * whose message says which rule it broke. Rejected, in this order:
 * - not valid Unicode (a lone surrogate);
 * - empty or only whitespace;
 * - a control character: C0 (U+0000–U+001F, NUL included), DEL, C1 (U+0080–U+009F);
 * - `/` or `\` anywhere: any path (`../x`, `..\x`, `/etc/passwd`, `C:\x`), never only its last part;
 * - `.` and `..`, and any name starting with `..` (`..notes.md`): `path.relative(dir, file)` then
 *   starts with `..` too, and checks such as `rel.startsWith('..')` would take the file for one
 *   outside the folder;
 * - `:` (a Windows drive-relative path `C:x`, or an NTFS stream `a.txt:hidden`), and the other
 *   characters Windows forbids in a name: `< > " | ? *`;
 * - bidirectional control characters (U+202A–U+202E, U+2066–U+2069), which make a listing show
 *   another extension than the real one;
 * - more than {@link MAX_UPLOAD_NAME_BYTES} bytes in UTF-8 (after NFC);
 * - a Windows device name, case-insensitive, alone or before any extension, with or without
 *   trailing spaces: CON, PRN, AUX, NUL, CONIN$, CONOUT$, COM0–COM9, LPT0–LPT9 (and COM¹²³, LPT¹²³);
 * - a trailing dot or space (Windows drops them, so `a.md.` and `a.md` would be one file);
 * - a leading `-`: allowed by every file system, but an operator running `rm *` or `ls *` in the
 *   upload folder would have it read as an option. Rejecting it costs the sender a rename.
 *
 * Everything else is accepted and returned unchanged apart from NFC: leading spaces, dot files such
 * as `.env`, and any extension (which file types may be ingested is `uploadKind`'s decision). The
 * result joined to a folder (`path.join(dir, name)`, POSIX or Windows) is always a direct child of
 * that folder.
 *
 * @example safeUploadName('Cafe\u0301.md') // 'Café.md' (NFC)
 * @example safeUploadName('../etc/passwd') // throws BAD_INPUT: not a path
 */
export function safeUploadName(name: string): string {
  const lone = loneSurrogate(name);
  if (lone >= 0)
    reject(`must be valid Unicode (a lone surrogate ${hex(name.charCodeAt(lone))} at index ${lone})`, name);
  const nfc = name.normalize('NFC');
  if (nfc.trim() === '') reject('is empty or only whitespace', nfc);
  const control = CONTROL.exec(nfc);
  if (control !== null)
    reject(
      `must not contain control characters (${hex(control[0].charCodeAt(0))} at index ${control.index})`,
      nfc,
    );
  if (nfc.includes('/') || nfc.includes('\\'))
    reject('must be a bare name, not a path (it has "/" or "\\")', nfc);
  if (nfc === '.' || nfc === '..') reject('cannot be "." or ".."', nfc);
  if (nfc.startsWith('..'))
    reject(
      'must not start with ".." (a containment check on path.relative would take it for the parent)',
      nfc,
    );
  if (nfc.includes(':')) reject('must not contain ":" (a Windows drive such as C:x, or an NTFS stream)', nfc);
  const reserved = WINDOWS_RESERVED.exec(nfc);
  if (reserved !== null)
    reject(`must not contain ${JSON.stringify(reserved[0])} (Windows forbids < > " | ? *)`, nfc);
  const bidi = BIDI.exec(nfc);
  if (bidi !== null)
    reject(
      `must not contain bidirectional control characters (${hex(bidi[0].charCodeAt(0))} at index ${bidi.index}), which disguise the extension`,
      nfc,
    );
  const bytes = Buffer.byteLength(nfc, 'utf8');
  if (bytes > MAX_UPLOAD_NAME_BYTES)
    reject(`is ${bytes} bytes in UTF-8, over the limit of ${MAX_UPLOAD_NAME_BYTES}`, nfc);
  const stem = nfc.split('.')[0]!.replace(/ +$/, '');
  if (DEVICE.test(stem)) reject(`is the Windows device name ${stem.toUpperCase()}`, nfc);
  if (/[. ]$/.test(nfc)) reject('must not end with a dot or a space (Windows drops them)', nfc);
  if (nfc.startsWith('-')) reject('must not start with "-" (shell tools would read it as an option)', nfc);
  return nfc;
}
