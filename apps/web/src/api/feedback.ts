import { create } from 'zustand';

/** A message with one button that leads somewhere (SPEC §8: "button goes to /train" etc.). */
export interface ActionNotice {
  message: string;
  /** i18n key in `common` for the button, absent for a plain message. */
  actionLabel?: string;
  to?: string;
}

/**
 * The UI side of the client's reactions. The client runs outside React, so the root registers the real
 * Ant Design and router implementations here; tests register fakes.
 */
export interface FeedbackPort {
  notice: (notice: ActionNotice) => void;
  navigate: (to: string) => void;
}

let port: FeedbackPort = {
  notice: () => undefined,
  navigate: (to) => globalThis.location?.assign(to),
};

export function setFeedbackPort(next: Partial<FeedbackPort>): void {
  port = { ...port, ...next };
}

export function feedback(): FeedbackPort {
  return port;
}

/** The relogin dialog is state rather than a call so that it renders once, with stable test ids. */
interface ReloginState {
  open: boolean;
  message: string;
  show: (message: string) => void;
  close: () => void;
}

export const useRelogin = create<ReloginState>((set) => ({
  open: false,
  message: '',
  show: (message) => set({ open: true, message }),
  close: () => set({ open: false }),
}));
