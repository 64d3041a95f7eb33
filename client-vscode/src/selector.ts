/** Which documents the language client hands to the server. No vscode import. */

import { LANGUAGES } from "./languages.generated";

/**
 * Files on disk and unsaved `untitled:` buffers: the server scores an unsaved buffer against the
 * reference its pragma names (relative to the first workspace folder) or the one chosen with
 * RefScore: Set Reference… (docs/editor.md). Other schemes (a git revision, an output channel)
 * are not the user's code being written.
 */
export const SCORED_SCHEMES: readonly string[] = ["file", "untitled"];

export interface DocumentFilter {
  scheme: string;
  language: string;
}

export function documentSelector(): DocumentFilter[] {
  return SCORED_SCHEMES.flatMap((scheme) => LANGUAGES.map((language) => ({ scheme, language })));
}
