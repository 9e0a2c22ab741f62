// Outgoing mail, one path for every service: nodemailer over SMTP_URL.
export { createMailer, emailNotConfigured, type Mailer, type OutgoingMail } from "./mailer.ts";
