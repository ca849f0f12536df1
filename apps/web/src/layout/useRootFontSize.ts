import { useEffect } from 'react';
import { Limits } from '@loupe/contracts';

const BASE_PX = 16;

export function publicFontSize(windowHeight: number): number {
  return (windowHeight / Limits.publicFontReferenceHeight) * BASE_PX;
}

/** Public pages scale rem with the window height (SPEC §2); every other page keeps 16 px. */
export function useRootFontSize(scaled: boolean): void {
  useEffect(() => {
    const root = document.documentElement;
    if (!scaled) {
      root.style.fontSize = `${BASE_PX}px`;
      return;
    }
    const apply = () => {
      root.style.fontSize = `${publicFontSize(window.innerHeight)}px`;
    };
    apply();
    window.addEventListener('resize', apply);
    return () => {
      window.removeEventListener('resize', apply);
      root.style.fontSize = `${BASE_PX}px`;
    };
  }, [scaled]);
}
