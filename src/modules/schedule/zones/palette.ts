/** The colour a zone or calendar gets when none is given (§11.1, §11.2): the next palette entry. */
const PALETTE = [
  '#1F77B4',
  '#FF7F0E',
  '#2CA02C',
  '#D62728',
  '#9467BD',
  '#8C564B',
  '#E377C2',
  '#7F7F7F',
  '#BCBD22',
  '#17BECF',
] as const;

/** The first palette colour not yet used by `taken`, else the next in turn. */
export function nextPaletteColor(taken: readonly string[]): string {
  const used = new Set(taken.map((c) => c.toUpperCase()));
  return PALETTE.find((c) => !used.has(c)) ?? PALETTE[taken.length % PALETTE.length] ?? PALETTE[0];
}
