/** The separators spreadsheet tools write: comma, semicolon (locales with decimal commas), tab. */
export type Separator = ',' | ';' | '\t';

/** The separator the header line uses most, counted outside quotes. */
export function separatorOf(text: string): Separator {
  const end = text.search(/\r?\n/);
  const line = end < 0 ? text : text.slice(0, end);
  const count: Record<Separator, number> = { ',': 0, ';': 0, '\t': 0 };
  let quoted = false;
  for (const ch of line) {
    if (ch === '"') quoted = !quoted;
    else if (!quoted && ch in count) count[ch as Separator] += 1;
  }
  return (Object.keys(count) as Separator[]).reduce((a, b) => (count[b] > count[a] ? b : a), ',');
}

/**
 * RFC 4180 rows: quoted fields may hold the separator, doubled quotes and line breaks; CRLF or LF; blank lines
 * dropped. Each row keeps the line it starts on (1-based), for the report.
 */
export function csvRows(text: string, sep: Separator): { line: number; cells: string[] }[] {
  const rows: { line: number; cells: string[] }[] = [];
  let cells: string[] = [];
  let cell = '';
  let quoted = false;
  let line = 1;
  let start = 1;
  const endRow = () => {
    cells.push(cell);
    if (cells.length > 1 || cells[0]!.trim() !== '') rows.push({ line: start, cells });
    cells = [];
    cell = '';
  };
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        cell += '"';
        i += 1;
      } else if (ch === '"') quoted = false;
      else {
        if (ch === '\n') line += 1;
        cell += ch;
      }
    } else if (ch === '"' && cell.trim() === '') {
      quoted = true;
      cell = '';
    } else if (ch === sep) {
      cells.push(cell);
      cell = '';
    } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i += 1;
      endRow();
      line += 1;
      start = line;
    } else cell += ch;
  }
  if (cell !== '' || cells.length > 0) endRow();
  return rows;
}
