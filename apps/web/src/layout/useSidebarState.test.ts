import { afterEach, describe, expect, it } from 'vitest';
import { act, renderHook } from '@testing-library/react';
import Cookies from 'js-cookie';
import { SIDEBAR_COOKIE, isMobileWidth, useSidebarState } from './useSidebarState';

function resize(width: number) {
  Object.defineProperty(window, 'innerWidth', { configurable: true, value: width });
  window.dispatchEvent(new Event('resize'));
}

afterEach(() => {
  Cookies.remove(SIDEBAR_COOKIE);
  resize(1280);
});

describe('sidebar state', () => {
  it('treats widths under 992 px as mobile', () => {
    expect(isMobileWidth(991)).toBe(true);
    expect(isMobileWidth(992)).toBe(false);
  });

  it('keeps the desktop choice in a cookie', () => {
    resize(1280);
    const { result, unmount } = renderHook(() => useSidebarState());
    expect(result.current.collapsed).toBe(false);
    act(() => result.current.toggle());
    expect(Cookies.get(SIDEBAR_COOKIE)).toBe('0');
    unmount();
    expect(renderHook(() => useSidebarState()).result.current.collapsed).toBe(true);
  });

  it('collapses by itself under 992 px without overwriting the desktop choice', () => {
    resize(1280);
    const { result } = renderHook(() => useSidebarState());
    act(() => resize(800));
    expect(result.current).toMatchObject({ mobile: true, collapsed: true });
    act(() => result.current.toggle());
    expect(result.current.collapsed).toBe(false);
    expect(Cookies.get(SIDEBAR_COOKIE)).toBeUndefined();
    act(() => resize(1280));
    expect(result.current).toMatchObject({ mobile: false, collapsed: false });
  });
});
