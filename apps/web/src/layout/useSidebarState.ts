import { useCallback, useEffect, useRef, useState } from 'react';
import Cookies from 'js-cookie';
import { Limits } from '@loupe/contracts';

/** Cookie holding the sidebar state (SPEC §2): '1' open, '0' collapsed. */
export const SIDEBAR_COOKIE = 'sidebarStatus';

export function isMobileWidth(width: number): boolean {
  return width < Limits.mobileBreakpointPx;
}

function readCollapsed(): boolean {
  return Cookies.get(SIDEBAR_COOKIE) === '0';
}

/**
 * Desktop keeps the user's choice in the cookie. Under 992 px the sidebar collapses on its own and opens over
 * the page; that choice is not written back, so the desktop state survives a narrow window.
 */
export function useSidebarState() {
  const [mobile, setMobile] = useState(() => isMobileWidth(window.innerWidth));
  const [collapsed, setCollapsedState] = useState(() => mobile || readCollapsed());
  const mobileRef = useRef(mobile);

  useEffect(() => {
    const onResize = () => {
      const nowMobile = isMobileWidth(window.innerWidth);
      if (nowMobile === mobileRef.current) return;
      mobileRef.current = nowMobile;
      setMobile(nowMobile);
      setCollapsedState(nowMobile ? true : readCollapsed());
    };
    window.addEventListener('resize', onResize);
    return () => window.removeEventListener('resize', onResize);
  }, []);

  const setCollapsed = useCallback(
    (next: boolean) => {
      if (!mobile) Cookies.set(SIDEBAR_COOKIE, next ? '0' : '1', { sameSite: 'lax' });
      setCollapsedState(next);
    },
    [mobile],
  );

  return { mobile, collapsed, setCollapsed, toggle: () => setCollapsed(!collapsed) };
}
