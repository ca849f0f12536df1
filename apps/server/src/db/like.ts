/** A LIKE pattern for "contains", with % _ and \ escaped (use with `escape '\'`). */
export function likeContains(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
