import { afterEach, describe, expect, it, vi } from 'vitest';
import { cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react';
import type { UsageData } from '@loupe/contracts';
import { mockServer, renderPage } from '@/pages/auth/test/harness';
import { periodStart, Usage } from './Usage';

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const used: UsageData = {
  totals: [
    { kind: 'training', count: 2, hours: 1.5 },
    { kind: 'test', count: 1, hours: 0.01 },
    { kind: 'export', count: 0, hours: 0 },
  ],
  months: [{ month: '2026-11', kind: 'training', count: 2, hours: 1.5 }],
  entries: [
    { id: 2, kind: 'training', modelId: 7, modelName: 'Gears', result: 'succeeded', seconds: 5000, startedAt: '2026-11-02T10:00:00.000Z', finishedAt: '2026-11-02T11:23:20.000Z' },
    { id: 1, kind: 'test', modelId: null, modelName: 'Old bolts', result: 'failed', seconds: 42, startedAt: '2026-11-01T10:00:00.000Z', finishedAt: '2026-11-01T10:00:42.000Z' },
  ],
};
const none: UsageData = { totals: used.totals.map((x) => ({ ...x, count: 0, hours: 0 })), months: [], entries: [] };

describe('/usage', () => {
  it('period starts: this month, 3 and 12 months back, none for all time', () => {
    const now = new Date(2026, 10, 27, 15, 0);
    expect(periodStart('month', now)).toBe(new Date(2026, 10, 1).getTime());
    expect(periodStart('quarter', now)).toBe(new Date(2026, 8, 1).getTime());
    expect(periodStart('year', now)).toBe(new Date(2025, 11, 1).getTime());
    expect(periodStart('all', now)).toBeUndefined();
  });

  it('shows totals per kind, the latest jobs (a deleted model marked) and the months; the period filter asks again', async () => {
    const calls = mockServer({ 'GET /api/usage': { data: used } });
    renderPage(<Usage />, '/usage');
    await waitFor(() => expect(screen.getByTestId('usage-total-training').getAttribute('data-count')).toBe('2'));
    expect(screen.getByTestId('usage-time-training').textContent).toBe('Time: 1.5 h');
    expect(screen.getByTestId('usage-total-export').getAttribute('data-count')).toBe('0');
    const rows = await screen.findAllByTestId('usage-entry');
    expect(rows).toHaveLength(2);
    expect(rows[0]!.textContent).toContain('Gears');
    expect(rows[0]!.textContent).toContain('Succeeded');
    expect(rows[0]!.textContent).toContain('1.4 h');
    expect(rows[1]!.textContent).toContain('Old bolts');
    expect(within(rows[1]!).getByText('deleted')).toBeTruthy();
    expect(rows[1]!.textContent).toContain('42 s');
    expect(screen.getByTestId('usage-months').textContent).toContain('2026-11');
    expect(screen.queryByTestId('usage-empty')).toBeNull();
    expect(calls[0]!.url).toContain('from=');

    fireEvent.click(screen.getByTestId('usage-period-all'));
    await waitFor(() => expect(calls.some((c) => c.url === '/api/usage')).toBe(true));
  });

  it('says no usage is recorded when the period has none', async () => {
    mockServer({ 'GET /api/usage': { data: none } });
    renderPage(<Usage />, '/usage');
    expect((await screen.findByTestId('usage-empty')).textContent).toContain('No usage recorded yet');
  });
});
