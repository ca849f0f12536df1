import { App, message as staticMessage, Modal } from 'antd';

/**
 * Ant Design's context-bound message and modal when the shell wraps the app in <App>, the static ones
 * otherwise (unit tests render pages without the shell's providers).
 */
export function useNotify() {
  const ctx = App.useApp();
  return {
    message: typeof ctx.message.success === 'function' ? ctx.message : staticMessage,
    modal: typeof ctx.modal.confirm === 'function' ? ctx.modal : Modal,
  };
}
