import { invalid } from '../../http/errors';

/** §0.2 tags: a comma-separated string is split; each 1–64 characters, at most 50, duplicates dropped. */
export function tagsOf(value: string | readonly string[], path: string): string[] {
  const list = typeof value === 'string' ? value.split(',').map((s) => s.trim()) : [...value];
  const tags = [...new Set(list.filter((s) => s !== ''))];
  if (tags.some((s) => s.length > 64)) throw invalid(path, 'must hold strings of 1 to 64 characters');
  if (tags.length > 50) throw invalid(path, 'must have at most 50 items');
  return tags;
}
