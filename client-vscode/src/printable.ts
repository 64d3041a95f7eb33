/**
 * Code text made safe to show: the server's `bidi.printable` (server/refscore/bidi.py) on this
 * side. Bidi controls (U+202A-U+202E, U+2066-U+2069, U+200E, U+200F, U+061C) and the C0/C1
 * control characters and DEL become visible `<U+202E>` markers, so that a label cannot display
 * as other code (Trojan Source) or carry an ESC or CR. The server sends code raw in command
 * results (it is data); whoever displays it escapes it, as the server does for diagnostic messages.
 */

// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** `text` with each control and bidi character, except those in `keep`, as a `<U+001B>` marker. */
export function printable(text: string, keep = ""): string {
  return text.replace(UNSAFE, (c) => (keep.includes(c) ? c : `<U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}>`));
}
