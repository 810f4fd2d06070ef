import type { Actor } from './actor.js';

/** Sends one mail through SMTP. With mail disabled the job completes without sending. */
export const mailer: Actor<'mail'> = {
  name: 'mailer',
  job: 'mail',
  async handle(payload, { mail, config, log }) {
    if (!mail) return 'skipped';
    const info = await mail.sendMail({
      from: config.mailer.from ?? `Hearth <hearth@${new URL(config.rootUrl).hostname}>`,
      to: payload.to,
      subject: payload.subject,
      text: payload.text,
      ...(payload.html ? { html: payload.html } : {}),
    });
    log.info({ messageId: info.messageId, recipients: payload.to.length }, 'mail sent');
    return 'done';
  },
};
