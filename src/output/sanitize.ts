/**
 * Text from the service (or a file) is made safe before it reaches a terminal:
 * escape sequences (CSI, OSC, DCS, ...), C0 and C1 control characters and bidi
 * controls (which can reorder what a person reads) are removed.
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
// Bidi embedding/override/isolate controls and marks.
const BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** Removes escape sequences and control/bidi characters; keeps tab and newline. */
export function sanitize(text: string): string {
  return text.replace(ESCAPE_SEQUENCES, '').replace(C1_SEQUENCES, '').replace(CONTROLS, '').replace(BIDI, '');
}

/** For one table cell or one line: sanitize, and turn tabs and newlines into spaces. */
export function sanitizeInline(text: string): string {
  return sanitize(text).replace(/[\t\r\n]+/g, ' ');
}
