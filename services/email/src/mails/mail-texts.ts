// The texts of the mails players receive, one catalog per language. A ticket's language picks
// its catalog: the exact code, else its base language (pt-BR -> pt), else English. A new
// language is one more entry here; the unit test checks every catalog has every text.
export interface MailTexts {
  /** The sender's display name. */
  fromName: (game: string) => string;
  /** Subject of a reply: the ticket's subject line and number. */
  replySubject: (subject: string, number: number) => string;
  /** Under the agent's message. */
  signature: (game: string) => string;
  /** How to answer. */
  replyHint: (number: number) => string;
  /** Above the quoted conversation. */
  earlier: string;
  /** Who wrote a quoted message, and when. */
  youWrote: (at: string) => string;
  supportWrote: (at: string) => string;
}

const en: MailTexts = {
  fromName: (game) => `${game} Support`,
  replySubject: (subject, number) => `Re: ${subject} [#${number}]`,
  signature: (game) => `The ${game} support team`,
  replyHint: (number) => `Ticket #${number}. Reply to this email to answer; please keep the ticket number in the subject.`,
  earlier: "Earlier in this conversation",
  youWrote: (at) => `You wrote on ${at}:`,
  supportWrote: (at) => `Support wrote on ${at}:`,
};

const de: MailTexts = {
  fromName: (game) => `${game} Support`,
  replySubject: (subject, number) => `AW: ${subject} [#${number}]`,
  signature: (game) => `Dein ${game}-Supportteam`,
  replyHint: (number) => `Ticket #${number}. Antworte einfach auf diese E-Mail; bitte lass die Ticketnummer im Betreff stehen.`,
  earlier: "Bisher in diesem Gespräch",
  youWrote: (at) => `Du hast am ${at} geschrieben:`,
  supportWrote: (at) => `Der Support hat am ${at} geschrieben:`,
};

const fr: MailTexts = {
  fromName: (game) => `Support ${game}`,
  replySubject: (subject, number) => `RE: ${subject} [#${number}]`,
  signature: (game) => `L'équipe support de ${game}`,
  replyHint: (number) => `Ticket n° ${number}. Répondez à cet e-mail pour nous écrire ; merci de garder le numéro du ticket dans l'objet.`,
  earlier: "Plus tôt dans cette conversation",
  youWrote: (at) => `Vous avez écrit le ${at} :`,
  supportWrote: (at) => `Le support a écrit le ${at} :`,
};

const es: MailTexts = {
  fromName: (game) => `Soporte de ${game}`,
  replySubject: (subject, number) => `RE: ${subject} [#${number}]`,
  signature: (game) => `El equipo de soporte de ${game}`,
  replyHint: (number) => `Ticket n.º ${number}. Responde a este correo para contestar; conserva el número del ticket en el asunto.`,
  earlier: "Antes en esta conversación",
  youWrote: (at) => `Escribiste el ${at}:`,
  supportWrote: (at) => `Soporte escribió el ${at}:`,
};

const pt: MailTexts = {
  fromName: (game) => `Suporte ${game}`,
  replySubject: (subject, number) => `RE: ${subject} [#${number}]`,
  signature: (game) => `Equipe de suporte de ${game}`,
  replyHint: (number) => `Ticket nº ${number}. Responda a este e-mail para continuar; mantenha o número do ticket no assunto.`,
  earlier: "Antes nesta conversa",
  youWrote: (at) => `Você escreveu em ${at}:`,
  supportWrote: (at) => `O suporte escreveu em ${at}:`,
};

const ja: MailTexts = {
  fromName: (game) => `${game} サポート`,
  replySubject: (subject, number) => `Re: ${subject} [#${number}]`,
  signature: (game) => `${game} サポートチーム`,
  replyHint: (number) => `チケット #${number}。このメールに返信してください（件名のチケット番号は消さないでください）。`,
  earlier: "これまでのやり取り",
  youWrote: (at) => `${at} にお客様が書いたメッセージ:`,
  supportWrote: (at) => `${at} にサポートが書いたメッセージ:`,
};

export const catalogs: Readonly<Record<string, MailTexts>> = { en, de, fr, es, pt, ja };

/** The catalog of a ticket's language and the language it is in. */
export function textsFor(language: string): { language: string; texts: MailTexts } {
  const base = language.split("-")[0]!;
  for (const candidate of [language, base]) {
    const texts = catalogs[candidate];
    if (texts) return { language: candidate, texts };
  }
  return { language: "en", texts: en };
}
