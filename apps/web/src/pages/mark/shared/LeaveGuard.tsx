import { useContext, useEffect, useRef } from 'react';
import { UNSAFE_DataRouterContext, UNSAFE_NavigationContext, useBlocker, useLocation, type To } from 'react-router-dom';
import { getSession } from '@/stores/session';

interface Props {
  /** Asked at the moment of leaving: true keeps the user on the page. */
  when: () => boolean;
  onBlocked: () => void;
  /** Asked on reload or tab close: true makes the browser ask before unloading (unsaved changes). */
  unloadWhen: () => boolean;
  /** Runs first on reload or tab close: the last chance to send what is queued. */
  onUnload?: () => void;
}

/** Signing out or a lost session must reach the sign-in page whatever is being drawn. */
const holds = (when: () => boolean) => Boolean(getSession().token) && when();

const pathnameOf = (to: To, current: string) =>
  typeof to === 'string' ? new URL(to, `http://x${current}`).pathname : (to.pathname ?? current);

/**
 * Keeps the user on the labeling page while a drawing is open (SPEC §5 "drawing must be finished"). Only a
 * change of path counts: the page itself rewrites ?imageId= on every image switch, which checks the drawing
 * on its own. Under a data router this is react-router's blocker; the shell's BrowserRouter has none, so the
 * navigator's push and replace are guarded instead (links, menus and navigate() all go through them; the
 * browser's back button does not and cannot be held there).
 */
export function LeaveGuard(props: Props) {
  const dataRouter = useContext(UNSAFE_DataRouterContext);
  return (
    <>
      {dataRouter ? <DataRouterGuard {...props} /> : <NavigatorGuard {...props} />}
      <UnloadGuard unloadWhen={props.unloadWhen} onUnload={props.onUnload} />
    </>
  );
}

function DataRouterGuard({ when, onBlocked }: Props) {
  const blocker = useBlocker(({ currentLocation, nextLocation }) => currentLocation.pathname !== nextLocation.pathname && holds(when));
  useEffect(() => {
    if (blocker.state !== 'blocked') return;
    onBlocked();
    blocker.reset();
  }, [blocker, onBlocked]);
  return null;
}

function NavigatorGuard({ when, onBlocked }: Props) {
  const { navigator } = useContext(UNSAFE_NavigationContext);
  const { pathname } = useLocation();
  const latest = useRef({ when, onBlocked, pathname });
  latest.current = { when, onBlocked, pathname };
  useEffect(() => {
    const { push, replace } = navigator;
    const guard =
      (go: typeof push): typeof push =>
      (to, state, opts) => {
        const { when: blocks, onBlocked: tell, pathname: here } = latest.current;
        if (pathnameOf(to, here) !== here && holds(blocks)) return tell();
        go.call(navigator, to, state, opts);
      };
    navigator.push = guard(push);
    navigator.replace = guard(replace);
    return () => {
      navigator.push = push;
      navigator.replace = replace;
    };
  }, [navigator]);
  return null;
}

function UnloadGuard({ unloadWhen, onUnload }: Pick<Props, 'unloadWhen' | 'onUnload'>) {
  const latest = useRef({ unloadWhen, onUnload });
  latest.current = { unloadWhen, onUnload };
  useEffect(() => {
    const onBeforeUnload = (event: BeforeUnloadEvent) => {
      latest.current.onUnload?.();
      if (!latest.current.unloadWhen()) return;
      event.preventDefault();
      // Older browsers ask only when returnValue is set.
      event.returnValue = '';
    };
    window.addEventListener('beforeunload', onBeforeUnload);
    return () => window.removeEventListener('beforeunload', onBeforeUnload);
  }, []);
  return null;
}
