import type { Language } from '@loupe/contracts';
import { interpolate } from '../i18n.js';

/** Mails the accounts flow sends, in each of the four languages. {{name}}, {{link}}, {{code}}, {{minutes}}. */
export type MailKind = 'activation' | 'loginCode' | 'reset' | 'approved' | 'rejected';

type Template = { subject: string; text: string };

const templates: Record<Language, Record<MailKind, Template>> = {
  en: {
    activation: {
      subject: 'Activate your Loupe account',
      text: 'Hello {{name}},\n\nplease open this link to activate your Loupe account:\n{{link}}\n\nThe link is valid for {{hours}} hours. After activation we review your registration and contact you within 24 hours.',
    },
    loginCode: {
      subject: 'Your Loupe sign-in code',
      text: 'Your verification code is {{code}}. It is valid for {{minutes}} minutes. If you did not ask for it, ignore this mail.',
    },
    reset: {
      subject: 'Reset your Loupe password',
      text: 'Hello {{name}},\n\nopen this link to set a new password:\n{{link}}\n\nThe link can be used once and is valid for {{minutes}} minutes. If you did not ask for it, ignore this mail.',
    },
    approved: {
      subject: 'Your Loupe account is approved',
      text: 'Hello {{name}},\n\nyour account has been approved. You can sign in now:\n{{link}}',
    },
    rejected: {
      subject: 'Your Loupe registration',
      text: 'Hello {{name}},\n\nunfortunately your registration was not approved. Please contact support if you think this is a mistake.',
    },
  },
  zh: {
    activation: {
      subject: '激活您的 Loupe 账号',
      text: '{{name}}，您好：\n\n请打开以下链接激活您的 Loupe 账号：\n{{link}}\n\n链接 {{hours}} 小时内有效。激活后我们会审核您的注册，并在 24 小时内与您联系。',
    },
    loginCode: {
      subject: '您的 Loupe 登录验证码',
      text: '您的验证码是 {{code}}，{{minutes}} 分钟内有效。如果不是您本人操作，请忽略此邮件。',
    },
    reset: {
      subject: '重置您的 Loupe 密码',
      text: '{{name}}，您好：\n\n请打开以下链接设置新密码：\n{{link}}\n\n该链接只能使用一次，{{minutes}} 分钟内有效。如果不是您本人操作，请忽略此邮件。',
    },
    approved: {
      subject: '您的 Loupe 账号已通过审核',
      text: '{{name}}，您好：\n\n您的账号已通过审核，现在可以登录：\n{{link}}',
    },
    rejected: {
      subject: '您的 Loupe 注册',
      text: '{{name}}，您好：\n\n很遗憾，您的注册未通过审核。如有疑问，请联系客服。',
    },
  },
  de: {
    activation: {
      subject: 'Aktivieren Sie Ihr Loupe-Konto',
      text: 'Hallo {{name}},\n\nbitte öffnen Sie diesen Link, um Ihr Loupe-Konto zu aktivieren:\n{{link}}\n\nDer Link ist {{hours}} Stunden gültig. Nach der Aktivierung prüfen wir Ihre Registrierung und melden uns innerhalb von 24 Stunden.',
    },
    loginCode: {
      subject: 'Ihr Loupe-Anmeldecode',
      text: 'Ihr Bestätigungscode lautet {{code}}. Er ist {{minutes}} Minuten gültig. Wenn Sie ihn nicht angefordert haben, ignorieren Sie diese E-Mail.',
    },
    reset: {
      subject: 'Loupe-Passwort zurücksetzen',
      text: 'Hallo {{name}},\n\nöffnen Sie diesen Link, um ein neues Passwort festzulegen:\n{{link}}\n\nDer Link ist einmal verwendbar und {{minutes}} Minuten gültig. Wenn Sie ihn nicht angefordert haben, ignorieren Sie diese E-Mail.',
    },
    approved: {
      subject: 'Ihr Loupe-Konto wurde freigegeben',
      text: 'Hallo {{name}},\n\nIhr Konto wurde freigegeben. Sie können sich jetzt anmelden:\n{{link}}',
    },
    rejected: {
      subject: 'Ihre Loupe-Registrierung',
      text: 'Hallo {{name}},\n\nleider wurde Ihre Registrierung nicht freigegeben. Bitte wenden Sie sich an den Support, falls Sie einen Irrtum vermuten.',
    },
  },
  ru: {
    activation: {
      subject: 'Активируйте учётную запись Loupe',
      text: 'Здравствуйте, {{name}}!\n\nОткройте эту ссылку, чтобы активировать учётную запись Loupe:\n{{link}}\n\nСсылка действительна {{hours}} ч. После активации мы проверим вашу регистрацию и свяжемся с вами в течение 24 часов.',
    },
    loginCode: {
      subject: 'Код входа в Loupe',
      text: 'Ваш код подтверждения: {{code}}. Он действителен {{minutes}} мин. Если вы его не запрашивали, проигнорируйте это письмо.',
    },
    reset: {
      subject: 'Сброс пароля Loupe',
      text: 'Здравствуйте, {{name}}!\n\nОткройте эту ссылку, чтобы задать новый пароль:\n{{link}}\n\nСсылку можно использовать один раз, она действительна {{minutes}} мин. Если вы её не запрашивали, проигнорируйте это письмо.',
    },
    approved: {
      subject: 'Ваша учётная запись Loupe одобрена',
      text: 'Здравствуйте, {{name}}!\n\nВаша учётная запись одобрена. Теперь вы можете войти:\n{{link}}',
    },
    rejected: {
      subject: 'Ваша регистрация в Loupe',
      text: 'Здравствуйте, {{name}}!\n\nК сожалению, ваша регистрация не одобрена. Если вы считаете это ошибкой, обратитесь в поддержку.',
    },
  },
};

export function renderMail(lang: Language, kind: MailKind, vars: Record<string, string | number>): Template {
  const t = templates[lang][kind];
  return { subject: interpolate(t.subject, vars), text: interpolate(t.text, vars) };
}
