/**
 * Text from the service (or a file) is made safe before it reaches a terminal:
 * escape sequences (CSI, OSC, DCS, ...), C0 and C1 control characters, bidi controls
 * (which can reorder what a person reads) and the invisible format characters that change
 * how other text is drawn, hide it, or make two different texts read the same are removed.
 *
 * Every pattern here runs in linear time on any input (no nested or adjacent overlapping
 * quantifiers, but for the bounded runs of whole sequences, which nothing backtracks into;
 * each lazy scan ends at its terminator or the end of the text, consuming what it scanned):
 * test/unit/output-hostile.test.ts feeds them 1 MB of hostile text, and
 * test/unit/output-fast-paths.test.ts checks that they remove what the four replaces of one
 * character or sequence at a time removed.
 */

// ESC-introduced sequences: CSI (ESC [ ... final), OSC/DCS/SOS/PM/APC (ESC ] ... BEL or ST), and two-byte ESC X.
// eslint-disable-next-line no-control-regex
const ESCAPE_SEQUENCE = /\u001b(?:\[[0-?]*[ -/]*[@-~]?|[\]PX^_][\s\S]*?(?:\u0007|\u001b\\|$)|[ -/]*[0-~]?)/;
// 8-bit CSI/OSC forms.
// eslint-disable-next-line no-control-regex
const C1_SEQUENCE = /\u009b[0-?]*[ -/]*[@-~]?|[\u009d\u0090\u0098\u009e\u009f][\s\S]*?(?:\u0007|\u009c|$)/;

/**
 * A run of up to 256 back-to-back sequences as one match: each sequence in it is matched as
 * it would be alone (a sequence never matches empty, and what follows the run always
 * matches, so nothing backtracks into it), and removing the runs removes the same text as
 * removing the sequences one by one. 1 MB of "ESC [" is then 4,000 matches, not 500,000
 * (5 ms instead of 25). The bound keeps the regex's backtracking stack small.
 */
const runsOf = (one: RegExp) => new RegExp(`(?:${one.source}){1,256}`, 'g');
/** Runs of escape sequences (also what output/secret-reading.ts leaves out of a secret). */
export const ESCAPE_SEQUENCES = runsOf(ESCAPE_SEQUENCE);
export const C1_SEQUENCES = runsOf(C1_SEQUENCE);
// Remaining controls: C0 except tab and newline, DEL, C1; and bidi controls: ALM (U+061C),
// LRM/RLM (U+200E/F), embeddings and overrides (U+202A-E), isolates (U+2066-9); the deprecated
// format controls that swap mirrored characters and digit and Arabic shapes (U+206A-F);
// interlinear annotation marks (U+FFF9-B), which can hide the text between them; and what draws
// as nothing between letters, so that two names that differ read the same: the zero-width
// space (U+200B), word joiner and invisible operators (U+2060-4), the Mongolian vowel separator
// (U+180E), a byte order mark inside text (U+FEFF), and the tag characters (U+E0000-7F, a
// surrogate pair each), which carry a whole hidden text. Kept: ZWJ and ZWNJ (emoji, Persian,
// Indic scripts). Single characters (or one pair), so one pass removing runs of any of them
// leaves what removing the controls, then the others, left.
/** The bidi and hidden format characters, as a character class body (json.ts escapes the same). */
export const BIDI_AND_HIDDEN = '\\u061c\\u180e\\u200b\\u200e\\u200f\\u202a-\\u202e\\u2060-\\u2064\\u2066-\\u206f\\ufeff\\ufff9-\\ufffb';
/** A tag character (U+E0000-E007F) in UTF-16. */
export const TAG_CHARACTER = '\\udb40[\\udc00-\\udc7f]';
const CONTROLS_AND_BIDI = new RegExp(`(?:[\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f${BIDI_AND_HIDDEN}]|${TAG_CHARACTER})+`, 'g');
// Every match of the three patterns above starts with one of these characters (ESC and the
// 8-bit introducers are controls): text without any is returned as it is, after one native
// scan instead of three replaces.
const UNSAFE = new RegExp(`[\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f${BIDI_AND_HIDDEN}]|${TAG_CHARACTER}`);
// Line breaks made spaces by sanitizeInline; UNSAFE and these for its own scan (\r is a control).
const LINE_BREAKS = /[\t\r\n\u2028\u2029]+/g;
const UNSAFE_INLINE = new RegExp(`[\\u0000-\\u001f\\u007f-\\u009f${BIDI_AND_HIDDEN}\\u2028\\u2029]|${TAG_CHARACTER}`);

/** The replaces of sanitize, for text holding at least one UNSAFE character. */
function strip(text: string): string {
  return text.replace(ESCAPE_SEQUENCES, '').replace(C1_SEQUENCES, '').replace(CONTROLS_AND_BIDI, '');
}

/** Removes escape sequences and control, bidi and invisible format characters; keeps tab and newline. */
export function sanitize(text: string): string {
  return UNSAFE.test(text) ? strip(text) : text;
}

/** For one table cell or one line: sanitize, and turn tabs and line breaks (U+2028/9 too) into spaces. */
export function sanitizeInline(text: string): string {
  return UNSAFE_INLINE.test(text) ? sanitize(text).replace(LINE_BREAKS, ' ') : text;
}
