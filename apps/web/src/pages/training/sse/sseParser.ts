/** One dispatched server-sent event (WHATWG HTML "event stream interpretation"). */
export interface SseEvent {
  /** `message` when the stream names none. */
  type: string;
  data: string;
  /** The last `id:` seen so far on this connection or an earlier one ('' if none). */
  lastEventId: string;
}

/**
 * Incremental event-stream parser: feed it decoded text in chunks of any size (a chunk may end inside a line
 * or between a CR and its LF) and it returns the events completed so far. Follows the HTML standard: `data`
 * lines join with '\n', an event without data is not dispatched, `id` persists across events, comment lines
 * (`:`) are ignored, `retry` reports the reconnection delay.
 */
export class SseParser {
  private buffer = '';
  /** A chunk ended with CR: a following LF belongs to the same line break. */
  private pendingCr = false;
  private type = '';
  private data: string[] = [];
  private hasData = false;
  lastEventId: string;
  /** Reconnection delay the server asked for, in ms. */
  retryMs: number | null = null;

  constructor(lastEventId = '') {
    this.lastEventId = lastEventId;
  }

  feed(chunk: string): SseEvent[] {
    let text = chunk;
    if (this.pendingCr && text.startsWith('\n')) text = text.slice(1);
    this.pendingCr = false;
    this.buffer += text;
    const events: SseEvent[] = [];
    let start = 0;
    for (let i = 0; i < this.buffer.length; i++) {
      const c = this.buffer[i];
      if (c !== '\n' && c !== '\r') continue;
      this.line(this.buffer.slice(start, i), events);
      if (c === '\r') {
        if (i + 1 === this.buffer.length) this.pendingCr = true;
        else if (this.buffer[i + 1] === '\n') i++;
      }
      start = i + 1;
    }
    this.buffer = this.buffer.slice(start);
    return events;
  }

  /** The connection closed: an event not ended by a blank line is dropped (as the standard says). */
  reset(): void {
    this.buffer = '';
    this.pendingCr = false;
    this.type = '';
    this.data = [];
    this.hasData = false;
  }

  private line(line: string, out: SseEvent[]): void {
    if (line === '') {
      if (this.hasData) out.push({ type: this.type || 'message', data: this.data.join('\n'), lastEventId: this.lastEventId });
      this.type = '';
      this.data = [];
      this.hasData = false;
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    switch (field) {
      case 'event':
        this.type = value;
        break;
      case 'data':
        this.data.push(value);
        this.hasData = true;
        break;
      case 'id':
        if (!value.includes('\0')) this.lastEventId = value;
        break;
      case 'retry':
        if (/^\d+$/.test(value)) this.retryMs = Number(value);
        break;
      default:
        break;
    }
  }
}
