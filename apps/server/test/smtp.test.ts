import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Errors, type OutboxMail } from '@loupe/contracts';
import { adminToken, call, newUser, startApp, type TestApp } from './helper.js';

/** Just enough of an SMTP server (RFC 5321, no TLS, no auth) to receive what the mailer sends. */
interface Received {
  from: string;
  to: string[];
  data: string;
}

function smtpServer(refuse: (rcpt: string) => boolean) {
  const received: Received[] = [];
  const server = net.createServer((socket) => {
    let mail: Received = { from: '', to: [], data: '' };
    let inData = false;
    let buffer = '';
    socket.write('220 test ESMTP\r\n');
    socket.on('data', (chunk) => {
      buffer += chunk.toString('utf8');
      for (;;) {
        if (inData) {
          const end = buffer.indexOf('\r\n.\r\n');
          if (end < 0) return;
          mail.data = buffer.slice(0, end);
          buffer = buffer.slice(end + 5);
          inData = false;
          received.push(mail);
          mail = { from: '', to: [], data: '' };
          socket.write('250 queued\r\n');
          continue;
        }
        const eol = buffer.indexOf('\r\n');
        if (eol < 0) return;
        const line = buffer.slice(0, eol);
        buffer = buffer.slice(eol + 2);
        const verb = line.slice(0, 4).toUpperCase();
        if (verb === 'EHLO' || verb === 'HELO') socket.write('250 test\r\n');
        else if (verb === 'MAIL') {
          mail.from = line;
          socket.write('250 ok\r\n');
        } else if (verb === 'RCPT') {
          if (refuse(line)) socket.write('550 no such user\r\n');
          else {
            mail.to.push(line);
            socket.write('250 ok\r\n');
          }
        } else if (verb === 'DATA') {
          inData = true;
          socket.write('354 go ahead\r\n');
        } else if (verb === 'QUIT') socket.end('221 bye\r\n');
        else if (verb === 'RSET' || verb === 'NOOP') socket.write('250 ok\r\n');
        else socket.write('502 not implemented\r\n');
      }
    });
  });
  return { server, received };
}

let smtp: ReturnType<typeof smtpServer>;
let t: TestApp;

beforeAll(async () => {
  smtp = smtpServer((rcpt) => rcpt.includes('bounce'));
  await new Promise<void>((resolve) => smtp.server.listen(0, '127.0.0.1', resolve));
  const { port } = smtp.server.address() as net.AddressInfo;
  t = await startApp({ smtpUrl: `smtp://127.0.0.1:${port}` });
});

afterAll(async () => {
  await t?.close();
  await new Promise<void>((resolve) => smtp.server.close(() => resolve()));
});

describe('SMTP mailer (SMTP_URL set)', () => {
  it('delivers the activation mail over SMTP instead of the outbox', async () => {
    const user = newUser({ language: 'de' });
    expect((await call(t.app, 'POST', '/api/register', user)).code).toBe(0);
    const mail = smtp.received.find((m) => m.to.some((r) => r.includes(user.email)));
    expect(mail).toBeDefined();
    expect(mail!.from).toContain('no-reply@loupe.local');
    const body = mail!.data.replace(/=\r\n/g, '');
    expect(body).toMatch(/http:\/\/loupe\.test\/registered\/check\?token=3D|http:\/\/loupe\.test\/registered\/check\?token=/);
    expect(body).toMatch(/Subject: .*Loupe/);
    const outbox = await call<OutboxMail[]>(t.app, 'GET', `/api/admin/outbox?to=${encodeURIComponent(user.email)}`, undefined, {
      token: await adminToken(t.app),
    });
    expect(outbox.data).toEqual([]);
  });

  it('answers emailSendFailed when the mail server refuses', async () => {
    const r = await call(t.app, 'POST', '/api/register', newUser({ email: `bounce.${Date.now()}@factory.test` }), { lang: 'zh' });
    expect(r).toMatchObject({ status: 500, code: Errors.emailSendFailed.code, message: '邮件发送失败，请重试。' });
  });
});
