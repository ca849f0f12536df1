import { Outlet } from 'react-router-dom';
import { useRootFontSize } from './useRootFontSize';

/** Public (sign-in and registration) pages: the root font follows the window height. */
export function PublicLayout() {
  useRootFontSize(true);
  return (
    <div className="loupe-public-layout" data-testid="public-layout">
      <Outlet />
    </div>
  );
}
