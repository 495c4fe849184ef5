import nodemailer from 'nodemailer';

/** Sends plain-text e-mails. */
export interface Mailer {
  send(mail: { to: string; subject: string; text: string }): Promise<void>;
  close(): void;
}

/**
 * An SMTP mailer (nodemailer) for `url` (`smtp://user:pass@host:587`, `smtps://user:pass@host:465`), sending
 * from `from`. Connections time out after 10 s, so a dead server cannot hold an alert up for long.
 */
export function smtpMailer(url: string, from: string): Mailer {
  const transport = nodemailer.createTransport({ url, connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 20_000 });
  return {
    async send(mail) {
      await transport.sendMail({ from, to: mail.to, subject: mail.subject, text: mail.text });
    },
    close: () => transport.close(),
  };
}
