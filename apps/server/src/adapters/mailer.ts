import type { OutboxRepo } from '../db/outbox.js';

export interface Mail {
  to: string;
  subject: string;
  text: string;
  /** The one link the mail is about (activation, reset), kept apart so admins and tests can follow it. */
  link: string | null;
}

/** The Mailer port (ARCHITECTURE.md): an outbox table by default, SMTP when SMTP_URL is set. */
export interface Mailer {
  readonly kind: 'outbox' | 'smtp';
  send(mail: Mail): Promise<void>;
  close(): Promise<void>;
}

export function outboxMailer(outbox: OutboxRepo, now: () => number): Mailer {
  return {
    kind: 'outbox',
    async send(mail) {
      await outbox.add({ to_address: mail.to, subject: mail.subject, text: mail.text, link: mail.link, created_at: now() });
    },
    async close() {},
  };
}

export async function smtpMailer(smtpUrl: string, from: string): Promise<Mailer> {
  // Loaded only when SMTP is configured.
  const { default: nodemailer } = await import('nodemailer');
  const transport = nodemailer.createTransport(smtpUrl);
  return {
    kind: 'smtp',
    async send(mail) {
      await transport.sendMail({ from, to: mail.to, subject: mail.subject, text: mail.text });
    },
    async close() {
      transport.close();
    },
  };
}
