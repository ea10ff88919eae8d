/**
 * Text from the service (or a file) is made safe before it reaches a terminal:
 * escape sequences (CSI, OSC, DCS, ...), C0 and C1 control characters, bidi controls
 * (which can reorder what a person reads) and the invisible format characters that change
 * how other text is drawn or hide it are removed.
 *
 * Every pattern here runs in linear time on any input (no nested or adjacent overlapping
 * quantifiers; each lazy scan ends at its terminator or the end of the text, consuming what
 * it scanned): test/unit/output-hostile.test.ts feeds them 1 MB of hostile text.
 */

// ESC-introduced sequences: CSI (ESC [ ... final), OSC/DCS/SOS/PM/APC (ESC ] ... BEL or ST), and two-byte ESC X.
// eslint-disable-next-line no-control-regex
const ESCAPE_SEQUENCES = /\u001b(?:\[[0-?]*[ -/]*[@-~]?|[\]PX^_][\s\S]*?(?:\u0007|\u001b\\|$)|[ -/]*[0-~]?)/g;
// 8-bit CSI/OSC forms.
// eslint-disable-next-line no-control-regex
const C1_SEQUENCES = /\u009b[0-?]*[ -/]*[@-~]?|[\u009d\u0090\u0098\u009e\u009f][\s\S]*?(?:\u0007|\u009c|$)/g;
// Remaining controls: C0 except tab and newline, DEL, C1.
// eslint-disable-next-line no-control-regex
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
// Bidi controls: ALM (U+061C), LRM/RLM (U+200E/F), embeddings and overrides (U+202A-E),
// isolates (U+2066-9); the deprecated format controls that swap mirrored characters and
// digit and Arabic shapes (U+206A-F); interlinear annotation marks (U+FFF9-B), which can
// hide the text between them. Kept: ZWJ and ZWNJ (emoji, Persian, Indic scripts).
const BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u206f\ufff9-\ufffb]/g;

/** Removes escape sequences and control, bidi and invisible format characters; keeps tab and newline. */
export function sanitize(text: string): string {
  return text.replace(ESCAPE_SEQUENCES, '').replace(C1_SEQUENCES, '').replace(CONTROLS, '').replace(BIDI, '');
}

/** For one table cell or one line: sanitize, and turn tabs and line breaks (U+2028/9 too) into spaces. */
export function sanitizeInline(text: string): string {
  return sanitize(text).replace(/[\t\r\n\u2028\u2029]+/g, ' ');
}
