// Outgoing mail, one path for every service: nodemailer over SMTP_URL.
export { addressOf, createMailer, emailNotConfigured, MailNotSent, mailNotSentOf, type DkimSettings, type Mailer, type OutgoingMail, type SentMail } from "./mailer.ts";
