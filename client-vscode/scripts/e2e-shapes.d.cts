export function scoreParts(text: string | undefined): [string, string][];
export function showsNumbers(text: string | undefined, labels: readonly string[], also?: readonly string[]): boolean;
export function statusShows(text: string | undefined, labels: readonly string[], also?: readonly string[]): boolean;
export function lensShows(title: string | undefined, labels: readonly string[], how?: string): boolean;
